"""Optimistic concurrency on notes: a note's version is a digest of what a person can see and change
of it, sent as the REST API's ETag and the web chat's hidden form field; a correction or forget that names a
version is done only if the note still has it, so two people correcting one note never overwrite each other
silently (the second gets 412 and a sentence).

The version is derived, never stored: whatever path changed the note (a correction, extraction, decay, a
forget), its version changes with it, and no migration or extra write is needed. Bookkeeping that no editor
sees (last_recalled_at, recall_count, the embedding) is left out, so being recalled does not make an edit stale."""

from __future__ import annotations

import hashlib
import json

from django.db import transaction

from core.exceptions import ApplicationError
from memory.models import MemoryNote
from memory.services.notes.notes import memory_note_forget, memory_note_update, note_index_text, note_policy
from memory.services.vectors.embeddings import (
    OFFLINE_HASH_MODEL,
    SENTENCE_MODEL,
    SENTENCE_TRANSFORMERS_PREFIX,
    embed_texts,
    embeddings_kept_for_turn,
)

VERSIONED_FIELDS = (
    "kind",
    "key",
    "content",
    "value",
    "quote",
    "source",
    "confidence",
    "importance",
    "pinned",
    "status",
    "expires_at",
    "supersedes_id",
    "observed_at",
)


class VersionMismatch(ApplicationError):
    code = "version_mismatch"
    status = 412


def note_version(note: MemoryNote) -> str:
    """The note's current version: 20 hex digits, the same for the same visible state."""
    state = {name: getattr(note, name) for name in VERSIONED_FIELDS}
    state["id"] = note.pk
    digest = hashlib.sha256(json.dumps(state, sort_keys=True, default=str).encode()).hexdigest()
    return digest[:20]


def _check(note: MemoryNote, expected: set[str] | None) -> None:
    """Raise VersionMismatch unless `expected` is None (no condition), holds "*" or holds the note's version."""
    if expected is None or "*" in expected or note_version(note) in expected:
        return
    raise VersionMismatch(
        "That note was changed since you read it; read it again and apply your change to the new version.",
        details={"version": note_version(note)},
    )


def _locked(*, tenant, note: MemoryNote) -> MemoryNote:
    return MemoryNote.objects.for_tenant(tenant).select_for_update().select_related("end_user").get(pk=note.pk)


def _embed_before_locking(note: MemoryNote, changes: dict) -> None:
    """Ask a remote embedding model for the new content now; memory_note_update finds the vector kept. Models
    that run in this process are left to memory_note_update: they hold no connection open."""
    model = note_policy(note).embedding_model
    if model in (SENTENCE_MODEL, OFFLINE_HASH_MODEL) or model.startswith(SENTENCE_TRANSFORMERS_PREFIX):
        return
    content, kind, key = str(changes["content"]).strip(), changes.get("kind", note.kind), changes.get("key", note.key)
    embed_texts(texts=[note_index_text(content=content, kind=kind, key=key)], model=model)


def memory_note_update_if_version(
    *, tenant, note: MemoryNote, expected: set[str] | None, actor: str = "", **changes
) -> MemoryNote:
    """memory_note_update, done only if the note still has one of the `expected` versions (None: always).

    Compare and write happen under the note's row lock, so of two corrections made from the same version exactly
    one succeeds. A new content is embedded before the lock is taken (a remote model's vectors are kept for the
    block), so no model call is made while the row is held."""
    with embeddings_kept_for_turn():
        if "content" in changes and note.tenant_id == tenant.pk:
            _embed_before_locking(note, changes)
        with transaction.atomic():
            current = _locked(tenant=tenant, note=note)
            _check(current, expected)
            return memory_note_update(tenant=tenant, note=current, actor=actor, **changes)


@transaction.atomic
def memory_note_forget_if_version(*, tenant, note: MemoryNote, expected: set[str] | None, actor: str = "") -> None:
    """Forget the note if it still has one of the `expected` versions (None: always); forgetting a forgotten
    note changes nothing."""
    current = _locked(tenant=tenant, note=note)
    _check(current, expected)
    if current.status != MemoryNote.Status.FORGOTTEN:
        memory_note_forget(tenant=tenant, note=current, actor=actor)
