"""Writes the web chat makes that no other layer owns: closing one's own account, stopping a reply. Everything
else goes through the owning layer's services (chat, sessions, notes, feedback, privacy)."""

from __future__ import annotations

from django.db import transaction

from assistants.models import MESSAGE_REPLACED_KEY, ChatSession, Message
from assistants.services.privacy import user_erase_request
from assistants.services.tokens import token_count
from core.exceptions import InvalidInput

SELF_SERVICE_ERASURE = "user:self (web chat)"


@transaction.atomic
def web_account_delete(*, tenant, end_user, account) -> object:
    """Start the privacy erasure of everything about `end_user` and remove the web login itself.

    Returns the erasure JobRecord. The login is deleted in the same transaction, so a half-done request never
    leaves an account that can log in to data being erased."""
    # No identifier in requested_by: it is kept on the erasure receipt, which must name no one.
    job = user_erase_request(
        tenant=tenant,
        end_user=end_user,
        requested_by=SELF_SERVICE_ERASURE,
        reason="The user deleted their account in the web chat.",
    )
    if account is not None and account.pk:
        account.delete()
    return job


STOP_KEY = "stop_requested_chars"  # on the user message: the person pressed Stop after this many characters


@transaction.atomic
def chat_reply_stop(
    *, tenant, end_user, session: ChatSession, user_message_id: int | None, chars: int
) -> Message | None:
    """The person pressed Stop after seeing `chars` characters of the reply to `user_message_id` (the latest
    user message when None). If the reply is stored already it is trimmed to those characters and marked
    stopped, so a reload shows what they saw; if not, the request is noted on the user message and the running
    turn (web.views.chat) stops and trims when it sees it. Only ever shortens what the model wrote."""
    if session.tenant_id != tenant.pk or session.end_user_id != end_user.pk:
        raise InvalidInput("That conversation is not yours.")
    messages = Message.objects.for_tenant(tenant).filter(session=session, end_user=end_user)
    asked = messages.filter(role=Message.Role.USER).exclude(metadata__has_key=MESSAGE_REPLACED_KEY)
    asked = asked.filter(pk=user_message_id) if user_message_id else asked.order_by("-id")
    user_message = asked.select_for_update().first()
    if user_message is None:
        raise InvalidInput("There is no reply to stop.")
    chars = max(0, int(chars))
    reply = (
        messages.filter(role=Message.Role.ASSISTANT, pk__gt=user_message.pk)
        .exclude(metadata__has_key=MESSAGE_REPLACED_KEY)
        .order_by("-pk")
        .first()
    )
    if reply is None:
        user_message.metadata = {**(user_message.metadata or {}), STOP_KEY: chars}
        user_message.save(update_fields=["metadata", "updated_at"])
        return None
    reply.metadata = {**(reply.metadata or {}), "stopped": True}
    if chars < len(reply.content):
        reply.content = reply.content[:chars]
        reply.token_count = token_count(reply.content)
    reply.save(update_fields=["metadata", "content", "token_count", "updated_at"])
    return reply


def chat_stop_requested(*, tenant, user_message_id: int) -> int | None:
    """How many characters the person saw when they pressed Stop on this turn, or None."""
    metadata = Message.objects.for_tenant(tenant).filter(pk=user_message_id).values_list("metadata", flat=True)
    value = (metadata.first() or {}).get(STOP_KEY)
    return int(value) if value is not None else None


def chat_stop_clear(*, tenant, session: ChatSession) -> None:
    """Forget an earlier Stop on the session's latest message before it is answered again (regenerate)."""
    latest = (
        Message.objects.for_tenant(tenant)
        .filter(session=session, role=Message.Role.USER)
        .exclude(metadata__has_key=MESSAGE_REPLACED_KEY)
        .order_by("-id")
        .first()
    )
    if latest is not None and STOP_KEY in (latest.metadata or {}):
        latest.metadata.pop(STOP_KEY)
        Message.objects.for_tenant(tenant).filter(pk=latest.pk).update(metadata=latest.metadata)
