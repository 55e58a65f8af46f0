"""The erasure guard: the one place that says whether something new may be written about an end user.

From the moment a user's erasure starts (`EndUser.erasure_requested_at`, assistants.services.privacy) nothing new
is accepted for them, and once it has finished the user is gone. Every door and writer asks here:

- `end_user_being_erased(user)`: the check, for a reader deciding what to show or which way to go;
- `end_user_erasure_refuse(user)`: a request that would write about the user is refused (409 user_being_erased);
- `end_user_write_lock(...)`: a write about the user locks the user's row first, in the write's transaction, and
  is refused when the user is gone (404) or being erased (409). Erasure takes the same row lock, so the write
  either lands before erasure (and is erased with the rest) or sees the flag: it never writes behind it;
- `end_user_lock_for_write(...)`: the same lock for a job or hook, which writes nothing instead of failing.
"""

from __future__ import annotations

from core.exceptions import ApplicationError, Conflict, NotFound
from tenancy.models import EndUser


def end_user_being_erased(user: EndUser) -> bool:
    """Whether the user's erasure has started (then nothing new is accepted for them)."""
    return user.erasure_requested_at is not None


def end_user_erasure_refuse(user: EndUser, *, message: str | None = None) -> None:
    """Raise Conflict (code user_being_erased, docs/api.md) when the user's erasure has started. `message`: the
    caller's sentence; by default the one the API and MCP answer."""
    if end_user_being_erased(user):
        raise Conflict(
            message or f"User '{user.external_id}' is being erased; nothing new is accepted for them.",
            code="user_being_erased",
        )


def end_user_write_lock(*, tenant_id: int, end_user_id: int, erasing: str | None = None) -> EndUser:
    """Lock the user's row for a write about them and return it. Raises NotFound when the user is gone (erased),
    Conflict (end_user_erasure_refuse, with the sentence `erasing`) while they are being erased. Call it inside
    `transaction.atomic()` and write in the same transaction."""
    user = EndUser.objects.unscoped().select_for_update().filter(pk=end_user_id, tenant_id=tenant_id).first()
    if user is None:
        raise NotFound("That user does not exist (already erased?).")
    end_user_erasure_refuse(user, message=erasing)
    return user


def end_user_lock_for_write(*, tenant_id: int, end_user_id: int) -> EndUser | None:
    """For any writer about a user that must not fail (jobs, hooks): end_user_write_lock, or None when the user is
    gone or being erased, in which case write nothing."""
    try:
        return end_user_write_lock(tenant_id=tenant_id, end_user_id=end_user_id)
    except ApplicationError:
        return None
