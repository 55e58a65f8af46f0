"""Writes the web chat makes that no other layer owns: closing one's own account, stopping a reply. Everything
else goes through the owning layer's services (chat, sessions, notes, feedback, privacy)."""

from __future__ import annotations

import re
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from assistants.services.privacy import user_erase_request
from assistants.services.sessions import session_title
from assistants.services.tokens import token_count
from core.exceptions import InvalidInput
from tenancy.models import MESSAGE_REPLACED_KEY, ChatSession, Message
from web.models import StreamedTurn

SELF_SERVICE_ERASURE = "user:self (web chat)"


@transaction.atomic
def session_retitle_after_edit(*, tenant, session: ChatSession, message: Message, text: str) -> None:
    """Edit and resend of the conversation's first message: a title made from the old wording is made from the
    new one (a name the person gave it is kept; editing a later message changes nothing)."""
    if not text.strip() or session.title != session_title(message.content, from_message=True):
        return
    others = Message.objects.for_tenant(tenant).filter(session=session, role=Message.Role.USER).exclude(pk=message.pk)
    if others.exclude(metadata__has_key=MESSAGE_REPLACED_KEY).exists():  # not the first message, or not the latest
        return
    title = session_title(text, from_message=True)
    ChatSession.objects.for_tenant(tenant).filter(pk=session.pk, title=session.title).update(title=title)
    session.title = title


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
TURN_KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")  # what the browser names a streamed reply by (static/web/app.js)
TURNS_KEPT = timedelta(days=1)  # a streamed turn's record is only needed while it streams


def _own(*, tenant, end_user, session: ChatSession) -> None:
    if session.tenant_id != tenant.pk or session.end_user_id != end_user.pk:
        raise InvalidInput("That conversation is not yours.")


def _reply_trim(*, tenant, session: ChatSession, after: int, chars: int) -> Message | None:
    """Trim the reply of the turn whose messages come after message `after` (and before the next user message)
    to `chars` characters, marked stopped; None while that turn has stored no reply. Only ever shortens it."""
    messages = Message.objects.for_tenant(tenant).filter(session=session)
    replies = messages.filter(role=Message.Role.ASSISTANT, pk__gt=after).exclude(metadata__has_key=MESSAGE_REPLACED_KEY)
    next_user = messages.filter(role=Message.Role.USER, pk__gt=after).order_by("pk").values_list("pk", flat=True)
    if (before := next_user.first()) is not None:
        replies = replies.filter(pk__lt=before)  # a later turn's reply is never this turn's
    reply = replies.select_for_update().order_by("-pk").first()
    if reply is None:
        return None
    reply.metadata = {**(reply.metadata or {}), "stopped": True}
    if chars < len(reply.content):
        reply.content = reply.content[:chars]
        reply.token_count = token_count(reply.content)
    reply.save(update_fields=["metadata", "content", "token_count", "updated_at"])
    return reply


@transaction.atomic
def chat_reply_stop(*, tenant, end_user, session: ChatSession, user_message_id: int, chars: int) -> Message | None:
    """The person pressed Stop after seeing `chars` characters of the reply to `user_message_id`. If the reply is
    stored already it is trimmed to those characters and marked stopped, so a reload shows what they saw; if not,
    the request is noted on the user message and the running turn (web.views.chat_events) stops and trims when it
    sees it. Only ever shortens the reply to that message, never another one."""
    _own(tenant=tenant, end_user=end_user, session=session)
    asked = Message.objects.for_tenant(tenant).filter(session=session, end_user=end_user, role=Message.Role.USER)
    user_message = asked.exclude(metadata__has_key=MESSAGE_REPLACED_KEY).filter(pk=user_message_id)
    user_message = user_message.select_for_update().first()
    if user_message is None:
        raise InvalidInput("There is no reply to stop.")
    chars = max(0, int(chars))
    reply = _reply_trim(tenant=tenant, session=session, after=user_message.pk, chars=chars)
    if reply is None:
        user_message.metadata = {**(user_message.metadata or {}), STOP_KEY: chars}
        user_message.save(update_fields=["metadata", "updated_at"])
    return reply


def _turn_locked(*, tenant, session: ChatSession, key: str) -> StreamedTurn:
    """The record of the turn named `key`, created if new, with the session row locked: a Stop and the start of
    its turn take the same lock, so whichever comes second sees what the first wrote."""
    if not TURN_KEY.fullmatch(key or ""):
        raise InvalidInput("That reply is not named the way the chat names replies; reload the page.")
    ChatSession.objects.for_tenant(tenant).select_for_update().filter(pk=session.pk).first()
    turns = StreamedTurn.objects.for_tenant(tenant)
    turns.filter(session=session, created_at__lt=timezone.now() - TURNS_KEPT).delete()
    turn, _created = turns.get_or_create(tenant=tenant, session=session, key=key)
    return turn


@transaction.atomic
def streamed_turn_stop(*, tenant, end_user, session: ChatSession, key: str, chars: int) -> Message | None:
    """The person pressed Stop after seeing `chars` characters of the reply the browser named `key`.

    A stored reply is trimmed to those characters (returned); a running turn sees the Stop and ends; a turn that
    has not reached the server yet finds the Stop when it does and ends at once. Nothing else is touched: a
    Stop that arrives before its message never reaches an earlier reply."""
    _own(tenant=tenant, end_user=end_user, session=session)
    turn = _turn_locked(tenant=tenant, session=session, key=key)
    chars = max(0, int(chars))
    if turn.stop_chars is None or chars < turn.stop_chars:
        turn.stop_chars = chars
        turn.save(update_fields=["stop_chars", "updated_at"])
    if turn.after_message_id is None:
        return None
    return _reply_trim(tenant=tenant, session=session, after=turn.after_message_id, chars=turn.stop_chars)


@transaction.atomic
def streamed_turn_begin(*, tenant, session: ChatSession, key: str) -> int | None:
    """The turn named `key` has stored its user message (or, to regenerate, is about to answer it again): its
    reply is whatever comes after the session's latest message. Returns the characters of a Stop that arrived
    before it (the turn ends at once), else None."""
    turn = _turn_locked(tenant=tenant, session=session, key=key)
    latest = Message.objects.for_tenant(tenant).filter(session=session).order_by("-pk").values_list("pk", flat=True)
    turn.after_message_id = latest.first() or 0
    turn.save(update_fields=["after_message_id", "updated_at"])
    return turn.stop_chars


def streamed_turn_stop_requested(*, tenant, session: ChatSession, key: str) -> int | None:
    """How many characters the person saw when they pressed Stop on the turn named `key`, or None."""
    turns = StreamedTurn.objects.for_tenant(tenant).filter(session=session, key=key)
    return turns.values_list("stop_chars", flat=True).first()


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
