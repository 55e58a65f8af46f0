"""The erasure lock, seen from a writer: any job or hook of any layer that writes about one end user takes it, so
that it never writes behind that user's erasure (assistants.services.privacy takes the same row lock)."""

from __future__ import annotations

from tenancy.models import EndUser


def end_user_lock_for_write(*, tenant_id: int, end_user_id: int) -> EndUser | None:
    """For any writer about a user (jobs, hooks): lock the user's row and return it, or None when the user is
    gone or being erased, in which case write nothing. Call it inside `transaction.atomic()` and write in the
    same transaction: erasure takes the same lock, so the write either lands before erasure (and is erased) or
    sees the flag."""
    user = EndUser.objects.unscoped().select_for_update().filter(pk=end_user_id, tenant_id=tenant_id).first()
    if user is None or user.erasure_requested_at is not None:
        return None
    return user
