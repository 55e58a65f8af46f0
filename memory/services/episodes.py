"""Message vectors: past user messages embedded, so that episodic recall finds a message by meaning as well as by
its words. Written in the background: by the extraction job after each turn, and in batches by the import job.

A message is embedded together with the tail of the message before it in its session (CONTEXT_CHARS characters:
the question it answers, the remark it follows; a canned reply of the offline model is skipped), so that "Yes, three of them" or "我也是" is found by what it is
about; on LoCoMo this raised R@5 of dense + keyword recall over raw turns from 63.9 to 67.0 (three conversations,
docs/benchmarks.md). A long message is embedded in chunks (CHUNK_CHARS characters, cut at sentence ends where
possible), one vector each, so that one topic in a long message is not averaged away; the context goes with the
first chunk. The text is redacted of personal identifiers
before it is embedded (embed_texts does it), and a vector row belongs to one tenant and one user like its message.
"""

from __future__ import annotations

import re

from core.db import prepared_rows
from memory.models import MemoryNote, MessageVector
from memory.services.embeddings import embed_texts

CHUNK_CHARS = 600
CONTEXT_CHARS = 200
EMBED_BATCH = 256
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;.\n])\s*")


def message_chunks(text: str, *, size: int = CHUNK_CHARS) -> list[str]:
    """`text` cut into pieces of at most about `size` characters, at sentence ends when there are any."""
    text = (text or "").strip()
    if len(text) <= size:
        return [text] if text else []
    chunks, current = [], ""
    for sentence in (s for s in _SENTENCE_END.split(text) if s):
        while len(sentence) > size:  # one sentence longer than a chunk: hard cuts
            if current:
                chunks.append(current)
                current = ""
            chunks.append(sentence[:size])
            sentence = sentence[size:]
        if len(current) + len(sentence) + 1 > size and current:
            chunks.append(current)
            current = ""
        current = f"{current} {sentence}".strip() if current else sentence
    if current:
        chunks.append(current)
    return chunks


def _embedding_inputs(*, tenant, message_ids: list[int]) -> dict[int, tuple[list[str], bool, str | None]]:
    """For each message, in one statement: the models it is embedded with, whether a note resting on it was
    forgotten, and the content of the message before it in its session (either role, but not a canned offline
    reply)."""
    if not message_ids:
        return {}
    # Prepared (planned once per connection); the tenant is a parameter in every part, so each part prunes to
    # the tenant's partitions when it runs.
    rows = prepared_rows(
        "SELECT m.id, "
        "ARRAY(SELECT DISTINCT v.embedding_model FROM memory_messagevector v "
        "WHERE v.tenant_id = %(tenant)s AND v.message_id = m.id), "
        "EXISTS (SELECT 1 FROM memory_memorynote_source_messages s JOIN memory_memorynote n "
        "ON n.tenant_id = %(tenant)s AND n.id = s.memorynote_id "
        "WHERE s.tenant_id = %(tenant)s AND s.message_id = m.id AND n.status = %(forgotten)s), "
        "(SELECT q.content FROM assistants_message q WHERE q.tenant_id = %(tenant)s "
        "AND q.session_id = m.session_id AND q.id < m.id "
        # a canned reply of the offline model says nothing about the conversation: the context skips it
        "AND NOT (q.role = 'assistant' AND coalesce(q.metadata->>'model', '') = 'offline') "
        "ORDER BY q.id DESC LIMIT 1) "
        "FROM assistants_message m WHERE m.tenant_id = %(tenant)s AND m.id = ANY(%(ids)s::bigint[])",
        {"tenant": tenant.pk, "ids": message_ids, "forgotten": str(MemoryNote.Status.FORGOTTEN)},
    )
    return {row[0]: (list(row[1]), row[2], row[3]) for row in rows}


def _with_context(chunk: str, before: str | None) -> str:
    return f"{before[-CONTEXT_CHARS:]}\n{chunk}" if before else chunk


def message_vectors_write(*, tenant, messages, model: str) -> int:
    """Embed `messages` (user messages of one tenant) with `model`; idempotent (a message already embedded with
    that model is skipped). A message whose note the user had forgotten stays out of episodic recall: it is never
    embedded again. Returns the number of vectors written."""
    messages = [m for m in messages if m.tenant_id == tenant.pk]
    if not messages:
        return 0
    inputs = _embedding_inputs(tenant=tenant, message_ids=[m.pk for m in messages])
    # skipped: a message already embedded with this model, or one whose note the user had forgotten
    todo = [m for m in messages if m.pk in inputs and model not in inputs[m.pk][0] and not inputs[m.pk][1]]
    pieces = [
        (m, i, _with_context(chunk, inputs[m.pk][2]) if i == 0 else chunk)
        for m in todo
        for i, chunk in enumerate(message_chunks(m.content))
    ]
    written = 0
    for start in range(0, len(pieces), EMBED_BATCH):
        batch = pieces[start : start + EMBED_BATCH]
        used, vectors = embed_texts(texts=[chunk for _, _, chunk in batch], model=model)
        rows = [
            MessageVector(
                tenant=tenant,
                end_user_id=m.end_user_id,
                session_id=m.session_id,
                message_id=m.pk,
                chunk=i,
                embedding=vector,
                embedding_model=used,
                said_at=m.created_at,
            )
            for (m, i, _), vector in zip(batch, vectors, strict=True)
        ]
        # a message embedded with another model before keeps one row per chunk: the new model's replaces it
        replaced = {m.pk for m, _, _ in batch if any(name != used for name in inputs[m.pk][0])}
        if replaced:
            MessageVector.objects.for_tenant(tenant).filter(message_id__in=replaced).exclude(
                embedding_model=used
            ).delete()
        MessageVector.objects.for_tenant(tenant).bulk_create(rows, ignore_conflicts=True)
        written += len(rows)
    return written
