"""Pinned facts follow a person's change to a note: after an Undo under a reply or a correction on
"What I remember", the conversation's pinned facts ("What we have settled: 预算 40 万") say what the notes say.

A pinned fact is set by one user message (`{"value", "message_id", "updated_at"}`, assistants.services.pinned);
a note rests on messages too. A pinned fact of the note's slot that was set by one of those messages is read
again from the note's words as they are now; when they no longer state a value, the pinned fact is dropped
rather than left saying what the person took back.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from django.db import transaction

from assistants.services.pinned import pinned_facts_extract
from memory.models import MemoryNote, NoteSourceMessage
from memory.services.identifiers.pii import pii_redact_value
from tenancy.models import ChatSession

# A note's slot (memory.services.writing.topic_lexicon) -> the pinned fact that holds the same thing.
PINNED_KEY_OF_SLOT = {
    "budget": "budget",
    "location": "city",
    "shop_size": "size",
    "business": "category",
    "staff": "headcount",
    "allergy": "allergy",
}


def _pinned_value(note: MemoryNote, pinned_key: str) -> str | None:
    """The value the note states for `pinned_key`, in the user's own words (its quote: "40 万", not the sentence's
    "40 万元") unless a correction changed the sentence since (then the quote says the old value)."""
    if note.status != MemoryNote.Status.ACTIVE:
        return None
    said, now = (pinned_facts_extract(text or "")[0].get(pinned_key) for text in (note.quote, note.content))
    said = said if isinstance(said, str) and said else None
    now = now if isinstance(now, str) and now else None
    if said and (now is None or re.sub(r"\D", "", said) == re.sub(r"\D", "", now)):
        return said
    return now


@transaction.atomic
def session_pinned_follow_notes(*, tenant, end_user, current: MemoryNote, others: tuple[MemoryNote, ...] = ()) -> int:
    """Make the pinned fact of `current`'s slot agree with `current` (the note now in force, or the one just
    taken back) in every conversation of `end_user` where a message of `current` or of `others` (the versions
    it replaced or that replaced it) set it. Returns how many conversations changed."""
    pinned_key = PINNED_KEY_OF_SLOT.get((current.key or "").split(":")[-1])
    if pinned_key is None:
        return 0
    note_ids = [current.pk, *(n.pk for n in others)]
    message_ids = set(
        NoteSourceMessage.objects.filter(tenant_id=tenant.pk, memorynote_id__in=note_ids).values_list(
            "message_id", flat=True
        )
    )
    if not message_ids:
        return 0
    value = _pinned_value(current, pinned_key)
    changed = 0
    sessions = ChatSession.objects.for_tenant(tenant).select_for_update().filter(end_user=end_user)
    for session in sessions.filter(pinned_facts__has_key=pinned_key):
        facts = dict(session.pinned_facts or {})
        entry = facts.get(pinned_key) or {}
        if entry.get("message_id") not in message_ids or entry.get("value") == value:
            continue
        if value is None:
            facts.pop(pinned_key)
        else:
            facts[pinned_key] = dict(entry, value=value, updated_at=datetime.now(UTC).isoformat())
        facts, _found = pii_redact_value(facts)  # a pinned fact never holds an identifier
        ChatSession.objects.for_tenant(tenant).filter(pk=session.pk).update(pinned_facts=facts)
        changed += 1
    return changed


def session_pinned_after_undo(*, tenant, end_user, event: dict) -> int:
    """After memory_event_undo: the pinned fact follows the version the Undo made current again (a superseded
    note restored), or is dropped with the note the Undo took back (a written note)."""
    notes = MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user)
    undone = notes.filter(pk=event.get("note_id")).first()
    before = notes.filter(pk=(event.get("before") or {}).get("note_id")).first()
    current = before if before is not None and event.get("action") == "superseded" else undone
    if current is None:
        return 0
    others = tuple(n for n in (undone, before) if n is not None and n.pk != current.pk)
    return session_pinned_follow_notes(tenant=tenant, end_user=end_user, current=current, others=others)
