"""Writing, correcting and forgetting notes directly (API, web chat, admin). (Interface fixed; issue 4 adds
embedding, supersede and audit.)"""
from __future__ import annotations

from django.db import transaction

from memory.models import MemoryNote

FORGOTTEN_CONTENT = ""


@transaction.atomic
def memory_note_create(*, tenant, end_user, kind: str, content: str, key: str = "", source: str = "admin",
                       confidence: float = 0.9, actor: str = "") -> MemoryNote:
    return MemoryNote.objects.for_tenant(tenant).create(tenant=tenant, end_user=end_user, kind=kind, key=key,
                                                        content=content, source=source, confidence=confidence)


@transaction.atomic
def memory_note_update(*, tenant, note: MemoryNote, actor: str = "", **changes) -> MemoryNote:
    """Correct a note (content, kind, key, confidence, expires_at, pinned); the content is re-embedded."""
    for name, value in changes.items():
        setattr(note, name, value)
    note.save()
    return note


@transaction.atomic
def memory_note_forget(*, tenant, note: MemoryNote, actor: str = "") -> MemoryNote:
    """Forget one note: status forgotten, content and embedding removed (not just hidden)."""
    note.status = MemoryNote.Status.FORGOTTEN
    note.content = FORGOTTEN_CONTENT
    note.quote = ""
    note.value = None
    note.embedding = None
    note.search_text = ""
    note.save()
    return note


def memory_forget_matching(*, tenant, end_user, query: str, actor: str = "") -> list[dict]:
    """Forget the active notes that match `query`; returns what was forgotten as [{id, kind, content}] (the
    content as it was, for the confirmation; it is no longer stored)."""
    return []


def memory_note_history(*, tenant, note: MemoryNote) -> list[MemoryNote]:
    """The supersede chain through `note`, oldest first."""
    chain = [note]
    current = note
    while current.supersedes_id:
        current = MemoryNote.objects.for_tenant(tenant).get(pk=current.supersedes_id)
        chain.insert(0, current)
    current = note
    while True:
        nxt = MemoryNote.objects.for_tenant(tenant).filter(supersedes=current).first()
        if nxt is None:
            break
        chain.append(nxt)
        current = nxt
    return chain
