"""What a note change leaves behind (memory.services.notes.notes): an AuditLog row when an actor made it, and the
webhook event, with ids and kinds only."""

from __future__ import annotations

from memory.models import AuditLog, MemoryNote
from webhooks.services import webhook_event_emit


def note_audit(*, tenant, actor: str, action: str, note: MemoryNote, before: dict | None, after: dict | None) -> None:
    if actor:
        AuditLog.objects.for_tenant(tenant).create(
            tenant=tenant,
            actor=actor[:200],
            action=action,
            object_type="memory_note",
            object_id=str(note.pk),
            before=before,
            after=after,
        )


def note_event_emit(note: MemoryNote, event: str, **extra) -> None:
    """The webhook event of a note change: ids and kinds only (webhooks.services)."""
    webhook_event_emit(
        tenant=note.tenant_id,
        event=event,
        data={
            "note": note.pk,
            "kind": note.kind,
            "status": note.status,
            "session": note.session_id,
            "user_id": note.end_user_id,
            **extra,
        },
    )


def note_webhook_content(tenant_id: int, note_id: int) -> tuple[dict, int] | None:
    """A webhook delivery's content for a note (webhooks.content, registered in memory.apps): its text now."""
    note = MemoryNote.objects.for_tenant(tenant_id).filter(pk=note_id).first()
    return None if note is None else ({"content": note.content}, note.end_user_id)


def note_snapshot(note: MemoryNote) -> dict:
    return {
        "kind": note.kind,
        "key": note.key,
        "content": note.content,
        "status": note.status,
        "confidence": note.confidence,
        "value": note.value,
    }
