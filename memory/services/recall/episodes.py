"""Message vectors: past user messages embedded, so that episodic recall finds a message by meaning as well as by
its words. Written in the background: by the extraction job after each turn, and in batches by the import job.

A message is embedded together with the tail of the message before it in its session (CONTEXT_CHARS characters:
the question it answers, the remark it follows; a canned reply of the offline model is skipped), so that "Yes, three of them" or "我也是" is found by what it is
about; on LoCoMo this raised R@5 of dense + keyword recall over raw turns from 63.9 to 67.0 (three conversations,
docs/benchmarks-history.md). A long message is embedded in chunks (CHUNK_CHARS characters, cut at sentence ends where
possible), one vector each, so that one topic in a long message is not averaged away; the context goes with the
first chunk. A chunk of several sentences also gets one row per sentence (chunk_sentences; short ones go with the
next): the unit vector between the chunk's vector and the sentence's own, so that "..., anyway, I organised the
seminar last week" is found by its second sentence while the row still carries what the turn is about. Recall
takes a message's best row. On LoCoMo (all ten conversations) vector-only R@25 over messages rose from 59.9 to
67.7, and the platform's R@5 / R@10 / R@25 from 63.7 / 72.9 / 81.7 to 64.6 / 73.8 / 82.4 (docs/benchmarks-history.md,
"Recall, thirteenth round"); a sentence alone, without its chunk, ranked worse than the whole message (57.5). The text is
redacted of personal identifiers
before it is embedded (embed_texts does it), and a vector row belongs to one tenant and one user like its message.
"""

from __future__ import annotations

import re

import numpy as np

from core.db import prepared_rows
from core.text import CJK as _CJK
from memory.models import MemoryNote, MessageVector
from memory.services.identifiers.pii import pii_redact
from memory.services.recall.recall_sql import current_version
from memory.services.vectors.embeddings import embed_texts

CHUNK_CHARS = 600
CONTEXT_CHARS = 200
EMBED_BATCH = 256
SENTENCES_MAX = 6  # sentence vectors of one chunk at most: the sentences after the sixth join it
# A sentence ends at CJK end punctuation, at ASCII end punctuation followed by white space (not inside "3.5",
# "john.doe@example.com" or "138.1234.5678"), or at a line break.
_SENTENCE_END = re.compile(r"(?<=[。！？；])\s*|(?<=[.!?;])\s+|\s*\n\s*")
_WORD = re.compile(r"[^\W\d_]+|\d+")


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


def _substantial(piece: str) -> bool:
    """A piece that says something on its own: four words, or six CJK characters ("Wow!", "好的。" are not)."""
    cjk = len(_CJK.findall(piece))
    return cjk >= 6 or len(_WORD.findall(_CJK.sub(" ", piece))) >= 4


def _joined(first: str, second: str) -> str:
    """Two sentences as one: a space between words, none after CJK punctuation."""
    if not first:
        return second
    return f"{first}{second}" if _CJK.search(first[-2:]) or first[-1] in "。！？；" else f"{first} {second}"


def chunk_sentences(chunk: str, *, most: int = SENTENCES_MAX) -> list[str]:
    """The sentences of `chunk` when it has two or more that say something (a short one goes with the next, the
    last with the one before), at most `most` (the rest joins the last); [] for a chunk of one sentence."""
    pieces: list[str] = []
    pending = ""
    for sentence in (s.strip() for s in _SENTENCE_END.split(chunk or "")):
        if not sentence:
            continue
        pending = _joined(pending, sentence)
        if _substantial(pending):
            pieces.append(pending)
            pending = ""
    if pending and pieces:
        pieces[-1] = _joined(pieces[-1], pending)
    if len(pieces) > most:
        rest = ""
        for piece in pieces[most - 1 :]:
            rest = _joined(rest, piece)
        pieces = [*pieces[: most - 1], rest]
    return pieces if len(pieces) > 1 else []


def _embedding_inputs(*, tenant, message_ids: list[int]) -> dict[int, tuple[list[str], bool, str | None]]:
    """For each current message (an earlier version, edited or regenerated since, is left out), in one statement:
    the models it is embedded with, whether a note resting on it was forgotten, and the content of the current
    message before it in its session (either role, but not a canned offline reply)."""
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
        # an earlier version (the reply to the wording the user edited away) is never embedded again
        "AND " + current_version("q") + " ORDER BY q.id DESC LIMIT 1) "
        "FROM assistants_message m WHERE m.tenant_id = %(tenant)s AND m.id = ANY(%(ids)s::bigint[]) "
        "AND " + current_version("m"),
        {"tenant": tenant.pk, "ids": message_ids, "forgotten": str(MemoryNote.Status.FORGOTTEN)},
    )
    return {row[0]: (list(row[1]), row[2], row[3]) for row in rows}


def _with_context(chunk: str, before: str | None) -> str:
    return f"{before[-CONTEXT_CHARS:]}\n{chunk}" if before else chunk


def message_pieces(content: str, before: str | None) -> list[tuple[int, str, int | None]]:
    """What one message is embedded as: (chunk number, text, the chunk a sentence belongs to). The chunks first,
    the first with the context; then each chunk's sentences when it has several (chunk_sentences)."""
    # redacted before anything is cut (chunks, sentences, the context's tail): an identifier cut in two is no
    # longer recognised when embed_texts redacts each piece
    chunks = message_chunks(pii_redact(content)[0])
    before = pii_redact(before)[0] if before else before
    pieces: list[tuple[int, str, int | None]] = [
        (i, _with_context(chunk, before) if i == 0 else chunk, None) for i, chunk in enumerate(chunks)
    ]
    for parent, chunk in enumerate(chunks):
        pieces.extend((len(pieces), sentence, parent) for sentence in chunk_sentences(chunk))
    return pieces


def _batches(items: list[tuple], size: int = EMBED_BATCH):
    """`items` (message, pieces) in runs of about `size` pieces, a message never split between two."""
    run: list[tuple] = []
    count = 0
    for item in items:
        run.append(item)
        count += len(item[1])
        if count >= size:
            yield run
            run, count = [], 0
    if run:
        yield run


def piece_vector(chunk_vector, sentence_vector) -> list[float]:
    """A sentence's row: the unit vector between its chunk's and its own, so that the sentence is found by what it
    says and stays tied to what the message (and the turn before it) is about: the best of a message's rows is
    its cosine (recall_sql)."""
    both = np.asarray(chunk_vector, dtype=np.float64) + np.asarray(sentence_vector, dtype=np.float64)
    norm = float(np.linalg.norm(both))
    return (both / norm).tolist() if norm else list(chunk_vector)


def message_vectors_write(*, tenant, messages, model: str) -> int:
    """Embed `messages` (user messages of one tenant) with `model`; idempotent (a message already embedded with
    that model is skipped). A message whose note the user had forgotten, and an earlier version of a message
    (edited and resent since), stay out of episodic recall: they are never embedded again. Returns the number of
    vectors written."""
    messages = [m for m in messages if m.tenant_id == tenant.pk]
    if not messages:
        return 0
    inputs = _embedding_inputs(tenant=tenant, message_ids=[m.pk for m in messages])
    # skipped: a message already embedded with this model, or one whose note the user had forgotten
    todo = [m for m in messages if m.pk in inputs and model not in inputs[m.pk][0] and not inputs[m.pk][1]]
    written = 0
    for batch in _batches([(m, message_pieces(m.content, inputs[m.pk][2])) for m in todo]):
        texts = [text for _, pieces in batch for _, text, _ in pieces]
        used, flat = embed_texts(texts=texts, model=model)
        rows, at = [], 0
        for m, pieces in batch:
            vectors = flat[at : at + len(pieces)]
            at += len(pieces)
            for (i, _, parent), vector in zip(pieces, vectors, strict=True):
                rows.append(
                    MessageVector(
                        tenant=tenant,
                        end_user_id=m.end_user_id,
                        session_id=m.session_id,
                        message_id=m.pk,
                        chunk=i,
                        embedding=vector if parent is None else piece_vector(vectors[parent], vector),
                        embedding_model=used,
                        said_at=m.created_at,
                    )
                )
        # a message embedded with another model before keeps one row per chunk: the new model's replaces it
        replaced = {m.pk for m, _ in batch if any(name != used for name in inputs[m.pk][0])}
        if replaced:
            MessageVector.objects.for_tenant(tenant).filter(message_id__in=replaced).exclude(
                embedding_model=used
            ).delete()
        MessageVector.objects.for_tenant(tenant).bulk_create(rows, ignore_conflicts=True)
        written += len(rows)
    return written
