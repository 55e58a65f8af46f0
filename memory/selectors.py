"""Reads of long-term memory for the API, the web chat and the admin. Every selector takes the tenant."""
from __future__ import annotations

from memory.models import MemoryNote


def memory_note_list(*, tenant, end_user, status: str | None = MemoryNote.Status.ACTIVE, kind: str | None = None):
    qs = MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user)
    if status:
        qs = qs.filter(status=status)
    if kind:
        qs = qs.filter(kind=kind)
    return qs.order_by("-updated_at", "-id")


def memory_note_get(*, tenant, end_user, note_id: int) -> MemoryNote | None:
    """A note of this user in this tenant, or None (another tenant's or user's note looks missing)."""
    return MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user, pk=note_id).first()


def memory_review_inbox(*, tenant):
    """Notes waiting for a person: inferred, low confidence, or unclear changes."""
    return MemoryNote.objects.for_tenant(tenant).filter(status=MemoryNote.Status.PENDING_REVIEW) \
        .select_related("end_user", "supersedes").order_by("-created_at")
