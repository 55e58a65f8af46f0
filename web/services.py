"""Writes the web chat makes that no other layer owns: naming and deleting one's own conversations, closing one's
own account. Everything else goes through the owning layer's services (chat, notes, feedback, privacy)."""
from __future__ import annotations

from django.db import transaction

from assistants.models import ChatSession
from assistants.services.privacy import user_erase_request
from core.exceptions import InvalidInput
from memory.services.pii import pii_safe_title

TITLE_MAX = 200
AUTO_TITLE_CHARS = 48


@transaction.atomic
def chat_session_rename(*, tenant, end_user, session: ChatSession, title: str) -> ChatSession:
    title = (title or "").strip()
    if not title:
        raise InvalidInput("The name is empty: write a name for the conversation.")
    if session.tenant_id != tenant.pk or session.end_user_id != end_user.pk:
        raise InvalidInput("That conversation is not yours.")
    session.title = pii_safe_title(title, TITLE_MAX)
    session.save(update_fields=["title", "updated_at"])
    return session


@transaction.atomic
def chat_session_delete(*, tenant, end_user, session: ChatSession) -> None:
    """Delete a conversation and its messages. Notes learnt from it stay (managed on "What I remember")."""
    if session.tenant_id != tenant.pk or session.end_user_id != end_user.pk:
        raise InvalidInput("That conversation is not yours.")
    session.delete()


def chat_session_auto_title(*, tenant, session: ChatSession, text: str) -> None:
    """Name an unnamed conversation after its first message, so the list is readable."""
    if session.title:
        return
    title = pii_safe_title(text, AUTO_TITLE_CHARS + 1)  # no identifier in the list of conversations
    ChatSession.objects.for_tenant(tenant).filter(pk=session.pk, title="").update(title=title)
    session.title = title


@transaction.atomic
def web_account_delete(*, tenant, end_user, account) -> object:
    """Start the privacy erasure of everything about `end_user` and remove the web login itself.

    Returns the erasure JobRecord. The login is deleted in the same transaction, so a half-done request never
    leaves an account that can log in to data being erased."""
    job = user_erase_request(tenant=tenant, end_user=end_user, requested_by=f"end_user:{end_user.pk}:web")
    if account is not None and account.pk:
        account.delete()
    return job
