"""Memory events of a chat turn: what the turn wrote, updated, superseded or forgot, for every client to show:
the `memory` event of the streaming chat, `GET /api/v1/messages/<id>/memory-events/`, and the line
under the reply in the web chat ("Memory updated: budget 20,000 euros → 30,000 euros", with Undo).

The events live on the user message (`Message.metadata["memory_events"]`), written by the extraction job in its
transaction and by the forget command in the pre-turn hook; `metadata["memory_done"]` says the job has finished,
so a client can tell "nothing changed" from "not yet known". A forget event never carries the forgotten text:
forgetting removes it, and the event must not keep a copy.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from core.exceptions import NotFound
from core.text import has_chinese
from memory.models import MemoryNote
from tenancy.models import Message

UNDOABLE = {"written", "superseded"}


def _slot(key: str) -> str:
    return (key or "").split(":")[-1]


def note_label(note: MemoryNote) -> str:
    """A short description of a note's fact: "budget 20,000 euros", "location 成都", else its sentence."""
    from memory.services.writing.quantities import money_text

    value = note.value if isinstance(note.value, dict) else {}
    slot = _slot(note.key)
    chinese = has_chinese(note.content)
    if "amount" in value:
        amount = value["amount"]
        if slot in {"budget", "revenue", "rent"}:
            text = money_text(amount, value.get("currency", ""), chinese)
        else:
            text = f"{int(amount) if float(amount).is_integer() else amount:g}"
            text += {"shop_size": " m²" if value.get("unit") != "sq ft" else " sq ft", "staff": " people"}.get(slot, "")
        return f"{slot} {'~' if value.get('approx') else ''}{text}".strip()
    for field in ("option", "place", "type"):
        if value.get(field):
            return f"{slot} {value[field]}".strip()
    return note.content.rstrip("。.")


def note_event(*, action: str, note: MemoryNote, before: MemoryNote | None = None) -> dict:
    """One change as clients show it. `value` is the label without the slot ("30,000 euros"), for "budget 20,000
    euros → 30,000 euros"."""
    label = note_label(note)
    slot = _slot(note.key)
    value = label[len(slot) + 1 :] if slot and label.startswith(f"{slot} ") else label
    event = {
        "action": action,
        "note_id": note.pk,
        "kind": note.kind,
        "key": note.key,
        "label": label,
        "value": value,
        "content": note.content,
        "undoable": action in UNDOABLE,
        "undone": False,
    }
    if before is not None:
        event["before"] = {"note_id": before.pk, "label": note_label(before), "content": before.content}
    return event


def forget_event(*, forgotten: list[dict], places: list[str]) -> dict:
    """One event for a forget request: how many notes, of which kinds and slots, and where else it was removed
    (pinned facts, summary, task state, scratch). Never the forgotten text."""
    return {
        "action": "forgotten",
        "notes": len(forgotten),
        "keys": sorted({f.get("key") or f.get("kind", "") for f in forgotten}),
        "places": places,
        "undoable": False,
        "undone": False,
    }


def memory_events_record(
    *, tenant, message: Message, events: list[dict], done: bool = False, locked: Message | None = None, **columns
) -> None:
    """Add `events` to the user message's memory events (and mark the turn's extraction done). `locked`: the
    message's row as the caller read it with select_for_update in this transaction (saves reading it again);
    `columns`: other columns of the message set in the same UPDATE."""
    row = locked or Message.objects.for_tenant(tenant).select_for_update().filter(pk=message.pk).first()
    if row is None:
        return
    metadata = dict(row.metadata or {})
    metadata["memory_events"] = list(metadata.get("memory_events") or []) + list(events)
    if done:
        metadata["memory_done"] = timezone.now().isoformat()
    Message.objects.for_tenant(tenant).filter(pk=row.pk).update(metadata=metadata, **columns)
    message.metadata = metadata


def turn_user_message(*, tenant, message_id: int, end_user=None) -> Message:
    """The user message of the turn `message_id` belongs to (the message itself, or the one before a reply): where
    the turn's events live. NotFound when it is not this tenant's (and, given `end_user`, this user's) message."""
    qs = Message.objects.for_tenant(tenant).select_related("session")
    if end_user is not None:
        qs = qs.filter(end_user=end_user)
    message = qs.filter(pk=message_id).first()
    if message is None:
        raise NotFound(f"Message {message_id} does not exist.")
    if message.role == Message.Role.ASSISTANT:  # the reply: its turn's events are on the user message before it
        message = (
            Message.objects.for_tenant(tenant)
            .filter(session=message.session_id, role=Message.Role.USER, id__lt=message.pk)
            .order_by("-id")
            .first()
            or message
        )
    return message


def memory_events_for_message(*, tenant, message_id: int, end_user=None) -> dict:
    """{"message_id", "status": "done" | "pending", "events": [...]} for the turn of `message_id` (the user
    message or its reply)."""
    message = turn_user_message(tenant=tenant, message_id=message_id, end_user=end_user)
    metadata = message.metadata or {}
    done = bool(metadata.get("memory_done")) or message.role != Message.Role.USER
    return {
        "message_id": message.pk,
        "status": "done" if done else "pending",
        "events": list(metadata.get("memory_events") or []),
    }


def memory_note_traces_forget(*, tenant, note: MemoryNote) -> int:
    """Remove a forgotten note's text from the messages that mention it by id ("forget means
    everywhere"): the memory events of the turns that wrote or replaced it, and the recalled notes listed in the
    context of replies ("used N memories"). Returns how many messages were changed. The message texts themselves
    stay until the user's data is erased (docs/memory.md)."""
    changed = 0
    rows = (
        Message.objects.for_tenant(tenant)
        .select_for_update()
        .filter(end_user_id=note.end_user_id)
        .filter(
            models.Q(metadata__memory_events__contains=[{"note_id": note.pk}])
            | models.Q(metadata__memory_events__contains=[{"before": {"note_id": note.pk}}])
            | models.Q(metadata__context__memories__contains=[{"type": "note", "id": note.pk}])
        )
    )
    for row in rows:
        metadata = dict(row.metadata or {})
        events = []
        for event in metadata.get("memory_events") or []:
            event = dict(event)
            if event.get("note_id") == note.pk:
                event.update(label="", value="", content="", forgotten=True, undoable=False)
            if (event.get("before") or {}).get("note_id") == note.pk:
                event["before"] = {"note_id": note.pk, "label": "", "content": "", "forgotten": True}
                event["undoable"] = False  # the version to go back to no longer exists
            events.append(event)
        if "memory_events" in metadata:
            metadata["memory_events"] = events
        context = metadata.get("context")
        if isinstance(context, dict) and context.get("memories"):
            metadata["context"] = dict(
                context,
                memories=[m for m in context["memories"] if not (m.get("type") == "note" and m.get("id") == note.pk)],
            )
        Message.objects.for_tenant(tenant).filter(pk=row.pk).update(metadata=metadata)
        changed += 1
    return changed
