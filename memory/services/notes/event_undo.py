"""Undoing one memory change of a chat turn: the Undo under a reply in the web chat, and
`POST /api/v1/messages/<id>/memory-events/<note_id>/undo/`.

Apart from memory.services.notes.events because it changes notes through memory.services.notes.notes, which itself imports
events (forgetting a note takes its text out of the turns' events): one direction, no cycle.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from core.exceptions import InvalidInput, NotFound
from memory.models import MemoryNote
from memory.services.notes.events import turn_user_message
from memory.services.notes.notes import memory_note_forget, memory_note_update
from tenancy.models import Message


@transaction.atomic
def memory_event_undo(*, tenant, end_user, message_id: int, note_id: int, actor: str) -> dict:
    """Undo one event of a turn: a written note is forgotten; a superseding note is rejected and the version it
    replaced is active again, marked as corrected by the person (so extraction keeps it). Forgetting cannot be
    undone: the forgotten text no longer exists."""
    message = turn_user_message(tenant=tenant, message_id=message_id, end_user=end_user)
    metadata = dict(message.metadata or {})
    events = list(metadata.get("memory_events") or [])
    index = next((i for i, e in enumerate(events) if e.get("note_id") == note_id), None)
    if index is None:
        raise NotFound("That memory change does not exist in this turn.")
    event = dict(events[index])
    if not event.get("undoable"):
        raise InvalidInput("Forgetting cannot be undone: the forgotten text was deleted.")
    if event.get("undone"):
        return event
    notes = MemoryNote.objects.for_tenant(tenant).select_for_update().filter(end_user=end_user)
    note = notes.filter(pk=note_id).first()
    if note is not None and note.status in (MemoryNote.Status.ACTIVE, MemoryNote.Status.PENDING_REVIEW):
        if event["action"] == "superseded":
            memory_note_update(tenant=tenant, note=note, actor=actor, status=MemoryNote.Status.REJECTED)
        else:
            memory_note_forget(tenant=tenant, note=note, actor=actor)
    previous = event.get("before") or {}
    if event["action"] == "superseded" and previous.get("note_id"):
        old = notes.filter(pk=previous["note_id"], status=MemoryNote.Status.SUPERSEDED).first()
        if old is not None:
            memory_note_update(tenant=tenant, note=old, actor=actor, status=MemoryNote.Status.ACTIVE)
            MemoryNote.objects.for_tenant(tenant).filter(pk=old.pk).update(
                corrected_at=timezone.now(), corrected_by=actor[:200]
            )
    # read again: forgetting the note above removed its text from these very events
    metadata = dict(Message.objects.for_tenant(tenant).get(pk=message.pk).metadata or {})
    events = list(metadata.get("memory_events") or [])
    event = dict(events[index], undone=True)
    events[index] = event
    metadata["memory_events"] = events
    Message.objects.for_tenant(tenant).filter(pk=message.pk).update(metadata=metadata)
    return event
