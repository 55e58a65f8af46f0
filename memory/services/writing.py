"""Applying one checked candidate to a user's notes: write, refresh, supersede, or hold for review.

- Same user + same kind/key (or, without a key, a near-identical note of the same kind by embedding similarity):
  the same value refreshes the note (updated_at, confidence); a different value supersedes it.
- Review (pending_review, not recalled): agent_inferred candidates, candidates below the review threshold, and
  unclear changes of a known fact (a hedge or low confidence without an explicit change marker, a hedged old
  value, a contradiction within one message). The chat hook asks the user about the unclear ones and the answer
  settles them (memory.services.commands).
"""
from __future__ import annotations

import json

from django.db import connection

from memory.models import MemoryNote
from memory.services.embeddings import embed_texts, search_terms
from memory.services.notes import memory_note_create, memory_note_refresh, note_index_text
from memory.services.rules import Candidate

SIMILAR_NOTE = 0.85  # cosine similarity above which two keyless notes of one kind are the same fact


def _comparable(value) -> str:
    if not isinstance(value, dict):
        return ""
    return json.dumps({k: v for k, v in value.items() if k != "approx"}, sort_keys=True, ensure_ascii=False)


def _terms_overlap(a: str, b: str) -> float:
    ta, tb = set(search_terms(a)), set(search_terms(b))
    return len(ta & tb) / max(1, min(len(ta), len(tb)))


def same_fact(note: MemoryNote, candidate: Candidate) -> bool:
    if note.value or candidate.value:
        return _comparable(note.value) == _comparable(candidate.value)
    return _terms_overlap(note.content, candidate.content) >= 0.6


def similar_note(*, tenant, end_user, kind: str, content: str, key: str, embedding_model: str,
                 statuses=(MemoryNote.Status.ACTIVE,)) -> MemoryNote | None:
    """The closest note of the same kind by cosine similarity, if above SIMILAR_NOTE. Tenant and user are
    filtered in the SQL; only vectors of the same embedding model are compared."""
    model, vectors = embed_texts(texts=[note_index_text(content=content, kind=kind, key=key)], model=embedding_model)
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id, 1 - (embedding <=> %s::vector) FROM memory_memorynote "
            "WHERE tenant_id = %s AND end_user_id = %s AND kind = %s AND status = ANY(%s) AND key = '' "
            "AND embedding_model = %s AND embedding IS NOT NULL ORDER BY embedding <=> %s::vector LIMIT 1",
            [str(vectors[0]), tenant.pk, end_user.pk, kind, list(statuses), model, str(vectors[0])])
        row = cur.fetchone()
    if row and row[1] >= SIMILAR_NOTE:
        return MemoryNote.objects.for_tenant(tenant).get(pk=row[0])
    return None


def existing_note(*, tenant, end_user, candidate: Candidate, embedding_model: str) -> MemoryNote | None:
    qs = MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user, kind=candidate.kind,
                                                      status=MemoryNote.Status.ACTIVE)
    if candidate.key:
        return qs.filter(key=candidate.key).order_by("-updated_at").first()
    return similar_note(tenant=tenant, end_user=end_user, kind=candidate.kind, content=candidate.content,
                        key="", embedding_model=embedding_model)


def is_unclear_change(old: MemoryNote, candidate: Candidate, policy) -> bool:
    """A change we should ask about rather than apply (seed 002 fact check, seed 001 conflict clarification)."""
    if candidate.change and not candidate.unclear:
        return False
    old_hedged = bool(isinstance(old.value, dict) and old.value.get("approx"))
    return (candidate.unclear or candidate.hedged or old_hedged
            or candidate.confidence < policy.review_confidence_threshold)


def candidate_apply(*, tenant, message, candidate: Candidate, policy) -> str:
    """Write one checked candidate for the message's user. Returns the outcome counted in the job result:
    written, refreshed, superseded, pending_review or unchanged."""
    end_user = message.end_user
    if (message.metadata or {}).get("memory_answer"):
        candidate.change, candidate.unclear = True, False  # the user is answering our question: it is settled
    status, reason = MemoryNote.Status.ACTIVE, ""
    if candidate.source == MemoryNote.Source.AGENT_INFERRED:
        status, reason = MemoryNote.Status.PENDING_REVIEW, "agent_inferred"
    elif candidate.confidence < policy.review_confidence_threshold:
        status, reason = MemoryNote.Status.PENDING_REVIEW, "low_confidence"
    old = existing_note(tenant=tenant, end_user=end_user, candidate=candidate, embedding_model=policy.embedding_model)
    if old is not None and same_fact(old, candidate):
        if status == MemoryNote.Status.ACTIVE:
            if isinstance(old.value, dict) and old.value.get("approx") and not candidate.hedged and candidate.value:
                old.value = candidate.value  # "大概 10 万" confirmed as "10 万": no longer approximate
                old.save(update_fields=["value", "updated_at"])
            memory_note_refresh(note=old, confidence=candidate.confidence, message=message)
            return "refreshed"
        return "unchanged"  # an unchecked (inferred / low-confidence) repeat of a known fact adds nothing
    if old is not None and status == MemoryNote.Status.ACTIVE and is_unclear_change(old, candidate, policy):
        status, reason = MemoryNote.Status.PENDING_REVIEW, "conflict"
    if status != MemoryNote.Status.ACTIVE:
        duplicate = MemoryNote.objects.for_tenant(tenant).filter(
            end_user=end_user, kind=candidate.kind, key=candidate.key, status=MemoryNote.Status.PENDING_REVIEW)
        if candidate.key and any(same_fact(n, candidate) for n in duplicate):
            return "pending_review"
    memory_note_create(
        tenant=tenant, end_user=end_user, kind=candidate.kind, key=candidate.key, content=candidate.content,
        source=candidate.source, confidence=candidate.confidence, value=candidate.value, quote=candidate.quote,
        status=status, session=message.session, message=message, supersedes=old, review_reason=reason,
        assistant=message.session.assistant)
    if status != MemoryNote.Status.ACTIVE:
        return "pending_review"
    return "superseded" if old is not None else "written"
