"""Another reply to the same message (regenerate) and a corrected message sent again (edit and resend).

Both keep what they replace as an earlier version (Message.metadata[MESSAGE_REPLACED_KEY] = the id of the message
that replaced it): the person can still read it, the model is never sent it again (assistants.services.context).
Only the latest exchange of a conversation can be regenerated or edited, as in other assistants: an earlier one
would leave later replies answering a message that is no longer there."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from django.db import transaction

from assistants.services.agent import ReplyState
from assistants.services.chat import chat_turn_stream, turn_uses_long_term_memory
from assistants.services.earlier_versions import message_versions_retire
from assistants.services.reply import chat_reply_store, chat_reply_stream
from assistants.services.turn_input import turn_session_live_check
from assistants.services.turn_usage import turn_quota_check
from core.erasure import end_user_being_erased
from core.exceptions import InvalidInput, NotFound
from core.policy import memory_policy_for
from tenancy.models import MESSAGE_REPLACED_KEY, ChatSession, EndUser, Message, Tenant

ALTERNATIVE_OF_KEY = "alternative_of"  # on a regenerated reply: the reply it replaced
EDIT_OF_KEY = "edit_of"  # on a resent user message: the message it corrects


def _current(tenant, session):
    return Message.objects.for_tenant(tenant).filter(session=session).exclude(metadata__has_key=MESSAGE_REPLACED_KEY)


def _check_session(*, tenant, session: ChatSession) -> None:
    turn_session_live_check(tenant=tenant, session=session)
    user = EndUser.objects.for_tenant(session.tenant_id).filter(pk=session.end_user_id).first()
    if user is None or end_user_being_erased(user):  # a 404 here, as it always was: the conversation is going
        raise NotFound("That user's data is being erased; no new messages are accepted.")


def _latest_checked(*, tenant, session: ChatSession, message: Message, role: str, missing: str, not_latest: str):
    """The session's current messages, once `message` is found to be the latest current one of `role`: only the
    latest exchange can be regenerated or edited. NotFound(`missing`) for a message of another session or role;
    InvalidInput(`not_latest`) for an earlier one."""
    _check_session(tenant=tenant, session=session)
    current = _current(tenant, session)
    latest = current.filter(role=role).order_by("-id").first()
    if message.session_id != session.pk or message.role != role or latest is None:
        raise NotFound(missing)
    if latest.pk != message.pk:
        raise InvalidInput(not_latest, code="not_latest")
    return current


def _mark_replaced(tenant, messages, by) -> None:
    """Mark `messages` as replaced by the message `by` ("pending" while it is being written: out of sight, but
    restored if the new version is refused). Once replaced for good, what recall and experience memory hold of
    them goes (assistants.services.earlier_versions)."""
    for message in messages:
        message.metadata = {**(message.metadata or {}), MESSAGE_REPLACED_KEY: by}
        Message.objects.for_tenant(tenant).filter(pk=message.pk).update(metadata=message.metadata)
    if by != "pending":
        message_versions_retire(tenant=tenant, message_ids=[m.pk for m in messages])


def _regenerated_message(*, tenant: Tenant, session: ChatSession, reply: Message) -> Message:
    """The user message `reply` answered. Raises NotFound unless `reply` is a current reply of `session`,
    InvalidInput unless it is the latest one and answers a message."""
    current = _latest_checked(
        tenant=tenant,
        session=session,
        message=reply,
        role=Message.Role.ASSISTANT,
        missing="That reply does not exist.",
        not_latest="Only the latest reply can be regenerated.",
    )
    user_message = current.filter(role=Message.Role.USER, id__lt=reply.pk).order_by("-id").first()
    if user_message is None:
        raise InvalidInput("That reply answers no message.")
    return user_message


def _regenerate_context(*, tenant: Tenant, session: ChatSession, reply: Message, user_message: Message, policy):
    """The context for a new reply to `user_message`, built afresh; the pre-turn hooks ran for this message
    already (a task step, a forget request), so what they said is reused from the old reply's context."""
    from assistants.services.context import context_build

    old = (reply.metadata or {}).get("context") or {}
    hooks = [{"section": "task", "data": old["task"]}] if old.get("task") else []
    hooks += [{"reply_hint": hint} for hint in old.get("hints") or []]
    return context_build(
        tenant=tenant,
        session=session,
        user_message=user_message,
        policy=policy,
        hook_results=hooks,
        recall=turn_uses_long_term_memory(session=session, end_user=session.end_user),
    )


def chat_reply_regenerate_stream(
    *, tenant: Tenant, session: ChatSession, reply: Message
) -> Iterator[tuple[str, object]]:
    """A new reply to the message `reply` answered, as chat_turn_stream's events. The old reply stays, as an
    earlier version of the new one. Nothing new is written to long-term memory: the message was read already."""
    user_message = _regenerated_message(tenant=tenant, session=session, reply=reply)
    session.end_user = EndUser.objects.for_tenant(tenant).get(pk=session.end_user_id)
    policy = memory_policy_for(tenant=tenant, assistant=session.assistant)
    turn_quota_check(tenant=tenant, session=session, policy=policy, text=user_message.content)  # a reply is a turn
    context = _regenerate_context(tenant=tenant, session=session, reply=reply, user_message=user_message, policy=policy)
    yield "context", context
    _mark_replaced(tenant, [reply], "pending")  # out of sight while its successor is written (Stop, reload)

    # The reply is the chat turn's (assistants.services.reply), with no tools: the model answers again.
    result = yield from chat_reply_stream(
        tenant=tenant,
        session=session,
        user_message=user_message,
        context=context,
        policy=policy,
        store=partial(_regenerated_store, tenant=tenant, session=session, reply=reply, context=context),
    )
    yield "done", result


@transaction.atomic
def _regenerated_store(*, tenant, session, reply: Message, state: ReplyState, context, model_name: str, **how):
    """Store the new reply (`how`: stopped=True, or the error sentence) and make `reply` its earlier version."""
    new = chat_reply_store(
        tenant=tenant,
        session=session,
        text=state.text,
        context=context,
        model_name=model_name,
        extra={ALTERNATIVE_OF_KEY: reply.pk},
        **how,
    )
    _mark_replaced(tenant, [reply], new.pk)
    return new


def chat_turn_edit_stream(
    *, tenant: Tenant, session: ChatSession, message: Message, text: str
) -> Iterator[tuple[str, object]]:
    """Send a corrected version of the person's latest message: a new turn (chat_turn_stream, so the new text is
    read for memory like any message) after which the old message and its reply are an earlier version. If the
    new text is refused (empty, too long) nothing changes."""
    current = _latest_checked(
        tenant=tenant,
        session=session,
        message=message,
        role=Message.Role.USER,
        missing="That message does not exist.",
        not_latest="Only your latest message can be edited.",
    )
    if text.strip() == message.content.strip():
        raise InvalidInput("The message is unchanged: edit it before sending it again.", code="unchanged")
    replaced = [message, *current.filter(id__gt=message.pk)]
    _mark_replaced(tenant, replaced, "pending")  # out of the context the new turn is built from
    turn = chat_turn_stream(tenant=tenant, session=session, text=text)
    try:
        first = next(turn)  # validation and storing the new message happen here
    except BaseException:
        for old in replaced:  # refused: the conversation is as it was
            old.metadata.pop(MESSAGE_REPLACED_KEY, None)
            Message.objects.for_tenant(tenant).filter(pk=old.pk).update(metadata=old.metadata)
        raise
    new_message = current.filter(role=Message.Role.USER, id__gt=message.pk).order_by("-id").first()
    if new_message is not None:
        _mark_replaced(tenant, replaced, new_message.pk)
        new_message.metadata = {**(new_message.metadata or {}), EDIT_OF_KEY: message.pk}
        Message.objects.for_tenant(tenant).filter(pk=new_message.pk).update(metadata=new_message.metadata)
    yield first
    yield from turn
