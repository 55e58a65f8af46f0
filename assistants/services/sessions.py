"""A chat session's title and its deletion: the one service the API and the web chat both use.

A session that is not the caller's answers NotFound (404), the same as a missing one, so an id reveals nothing.
"""

from __future__ import annotations

from django.db import transaction

from core.exceptions import InvalidInput, NotFound
from memory.services.identifiers.pii import pii_safe_title
from tenancy.models import Assistant, ChatSession, Tenant

TITLE_MAX_CHARS = 200  # a title someone gave (the person renaming, an integrator importing)
AUTO_TITLE_CHARS = 60  # a title made from the first message: short enough for a list of conversations


def session_title(text: str, *, from_message: bool = False) -> str:
    """The title to store for `text`: whitespace collapsed, identifiers redacted (a title is often the user's
    own words and is shown in lists and exports), cut with an ellipsis. `from_message`: made from a message,
    so the shorter AUTO_TITLE_CHARS limit applies."""
    return pii_safe_title(text, AUTO_TITLE_CHARS if from_message else TITLE_MAX_CHARS)


def session_assistant_choose(*, tenant: Tenant, assistant: Assistant | None) -> Assistant:
    """The assistant a new session (started or imported) belongs to: `assistant` if it is the tenant's (404
    otherwise), or the tenant's first when none is named (InvalidInput when the tenant has none yet)."""
    if assistant is None:
        assistant = Assistant.objects.for_tenant(tenant).order_by("id").first()
        if assistant is None:
            raise InvalidInput("This tenant has no assistant yet: create one first.")
    elif assistant.tenant_id != tenant.pk:
        raise NotFound("That assistant does not exist.")
    return assistant


def session_auto_title(*, tenant, session: ChatSession, text: str) -> None:
    """Name an unnamed conversation after its first message, so the list is readable. A title already there
    (given, or set by a concurrent first turn) is kept."""
    if session.title:
        return
    title = session_title(text, from_message=True)
    ChatSession.objects.for_tenant(tenant).filter(pk=session.pk, title="").update(title=title)
    session.title = title


def _check_owner(*, tenant, session: ChatSession, end_user=None) -> None:
    if session.tenant_id != tenant.pk or (end_user is not None and session.end_user_id != end_user.pk):
        raise NotFound("That session does not exist.")


@transaction.atomic
def session_rename(*, tenant, end_user, session: ChatSession, title: str) -> ChatSession:
    """Give the person's own conversation a name. An empty name is refused (InvalidInput)."""
    _check_owner(tenant=tenant, session=session, end_user=end_user)
    if not (title or "").strip():
        raise InvalidInput("The name is empty: write a name for the conversation.")
    session.title = session_title(title)
    session.save(update_fields=["title", "updated_at"])
    return session


@transaction.atomic
def session_delete(*, tenant, session: ChatSession, end_user=None) -> dict:
    """Delete the session with its messages and their feedback. Long-term notes learnt from it stay (they are
    about the user, not the conversation; managed on "What I remember" or the memories endpoints) but lose their
    link to it. `end_user`: the session must also be theirs. Returns counts per table."""
    _check_owner(tenant=tenant, session=session, end_user=end_user)
    return _session_delete_locked(tenant=tenant, session_id=session.pk)[1]


def _session_delete_locked(*, tenant, session_id: int) -> tuple[int, dict]:
    """Delete one session after locking its row. A job writing rows that point at the session (an import step's
    message vectors) holds a key-share lock on that row until it commits: the lock makes the delete wait for it, so
    the collector sees those rows too, or makes the job wait and then find the session gone. Without it the delete
    could collect, the job insert, and the commit fail on the foreign key (a 500 for the person deleting)."""
    with transaction.atomic():
        locked = ChatSession.objects.for_tenant(tenant).select_for_update().filter(pk=session_id).first()
        if locked is None:
            return 0, {}
        return ChatSession.objects.for_tenant(tenant).filter(pk=session_id).delete()


def sessions_temporary_purge(*, tenant, now=None) -> int:
    """Delete the tenant's temporary chats whose time is up (ChatSession.expires_at), with their messages and
    feedback. Idempotent: run again, it finds nothing. Returns how many sessions went."""
    from django.utils import timezone

    now = now or timezone.now()
    expired = ChatSession.objects.for_tenant(tenant).filter(temporary=True, expires_at__lte=now)
    count = 0
    for session_id in list(expired.values_list("pk", flat=True)[:1000]):
        deleted, _ = _session_delete_locked(tenant=tenant, session_id=session_id)
        count += 1 if deleted else 0
    return count
