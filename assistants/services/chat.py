"""The chat turn: one service for the web chat, the API and tests."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from assistants.services.agent import ReplyState
from assistants.services.hooks import prepare_pre_turn_hooks, run_pre_turn_hooks
from assistants.services.pinned import session_pinned_update
from assistants.services.recall_early import recall_early_start
from assistants.services.reply import TurnResult, chat_reply_store, chat_reply_stream
from assistants.services.sessions import session_assistant_choose, session_title
from assistants.services.tokens import token_count
from assistants.services.turn_context import TurnContext
from assistants.services.turn_input import turn_input_check
from assistants.services.turn_usage import turn_quota_check
from core.db import connection_release_while_waiting
from core.erasure import end_user_write_lock
from core.exceptions import NotFound
from core.policy import MemoryPolicy, memory_policy_for
from core.priority import interactive_work_seen
from memory.services.vectors.embeddings import embeddings_kept_for_turn
from tenancy.models import Assistant, ChatSession, EndUser, Message, Tenant

if TYPE_CHECKING:
    from tools.services.toolbox import Toolbox

logger = logging.getLogger(__name__)


def chat_session_start(
    *, tenant: Tenant, end_user: EndUser, assistant: Assistant | None = None, title: str = "", temporary: bool = False
) -> ChatSession:
    """A new conversation. `temporary`: nothing of it reaches long-term memory or experiences, nothing is recalled
    into it, and it is deleted `tenant.temporary_chat_ttl_hours` after it starts (assistants.jobs)."""
    if end_user.tenant_id != tenant.pk:
        raise NotFound("That user does not exist.")
    assistant = session_assistant_choose(tenant=tenant, assistant=assistant)
    # A title is often the first words of a message: no identifier may be kept in it.
    expires_at = timezone.now() + timedelta(hours=tenant.temporary_chat_ttl_hours) if temporary else None
    return ChatSession.objects.for_tenant(tenant).create(
        tenant=tenant,
        end_user=end_user,
        assistant=assistant,
        title=session_title(title),
        temporary=bool(temporary),
        expires_at=expires_at,
    )


def turn_uses_long_term_memory(*, session: ChatSession, end_user: EndUser) -> bool:
    """False in a temporary chat or when the person switched memory off: the turn then writes no notes (no
    extraction, so its messages are not indexed for recall either), recalls none, and learns no experience."""
    return not session.temporary and end_user.memory_enabled


def chat_turn(*, tenant: Tenant, session: ChatSession, text: str, tool_choice: str = "auto") -> TurnResult:
    """Store the user's message, build the context, call the model (and the tools it asks for), store the
    reply, schedule jobs."""
    for event, payload in chat_turn_stream(
        tenant=tenant, session=session, text=text, memory_wait=0, tool_choice=tool_choice
    ):
        if event == "done" and isinstance(payload, TurnResult):
            return payload  # the reply is complete: a JSON client reads the memory events later (GET …/memory-events/)
    raise RuntimeError("The chat turn ended without its result.")


def _enqueue(job: str, *args: int) -> None:
    """Record a background job in the outbox with the data it is about and send it once that commits; a broker
    outage keeps it for redelivery (core.dispatch), never turned into a failed reply."""
    from core.dispatch import enqueue_on_commit

    enqueue_on_commit(job, *args)


def _compaction_due(*, tenant, session: ChatSession, policy, context: TurnContext) -> bool:
    if context.unsummarised_before is not None:  # context assembly read them already: they, this turn's two
        unsummarised = context.unsummarised_before + 2
    else:
        unsummarised = Message.objects.for_tenant(tenant).filter(session=session)
        if session.summary_through_id:
            unsummarised = unsummarised.filter(id__gt=session.summary_through_id)
        unsummarised = unsummarised.count()
    return unsummarised - 2 * policy.window_turns >= max(1, policy.summary_trigger_messages)


def _count_recalls(*, tenant, memories: list) -> None:
    try:
        from memory.services.recall.recall import memory_recall_touch

        memory_recall_touch(tenant=tenant, items=memories)
    except Exception:  # recall counters must not cost the user the stored reply
        logger.exception("counting recalled notes failed")


def _memory_events(*, tenant, message, wait: float) -> dict:
    """The turn's memory events once its extraction job is done, or what is known after `wait` seconds
    (status "pending": the client can ask GET /api/v1/messages/<id>/memory-events/ later). The connection goes
    back to the pool between polls."""
    import time

    from memory.services.notes.events import memory_events_for_message

    deadline = time.monotonic() + max(0.0, wait)
    while True:
        try:
            payload = memory_events_for_message(tenant=tenant, message_id=message.pk)
        except NotFound:  # the user's data was erased meanwhile: there is nothing to report
            return {"message_id": message.pk, "status": "done", "events": []}
        if payload["status"] == "done" or time.monotonic() >= deadline:
            return payload
        connection_release_while_waiting()
        time.sleep(0.1)


def chat_turn_stream(
    *, tenant: Tenant, session: ChatSession, text: str, memory_wait: float | None = None, tool_choice: str = "auto"
) -> Iterator[tuple[str, object]]:
    """The same turn, as events: ("context", TurnContext), ("delta", str)... with ("tool_call", dict) and
    ("tool_result", dict) between them when the model calls tools (`tool_choice`: auto, none or a tool's name;
    assistants.services.agent), ("done", TurnResult), then
    ("memory", {"message_id", "status", "events"}): what the turn's jobs wrote, updated, superseded or forgot,
    after at most `memory_wait` seconds (settings.MEMORY_EVENTS_WAIT_SECONDS).

    The user's message is committed before the model is called, so no model fault can lose it; a fault gives a
    reply from the offline model and TurnResult.error says what happened. Extraction and compaction are queued
    after commit and never block the reply."""
    turn = _turn_open(tenant=tenant, session=session, text=text, tool_choice=tool_choice)
    context, user_message = turn.context, turn.user_message
    yield "context", context

    turn.toolbox.ctx.user_message = user_message
    result = yield from chat_reply_stream(
        tenant=tenant,
        session=session,
        user_message=user_message,
        context=context,
        policy=turn.policy,
        store=partial(_reply_with_calls_store, tenant=tenant, session=session, context=context),
        toolbox=turn.toolbox,
        tool_choice=turn.tool_choice,
    )
    turn.toolbox.log()
    _count_recalls(tenant=tenant, memories=context.memories)
    if _compaction_due(tenant=tenant, session=session, policy=turn.policy, context=context):
        _enqueue("assistants.jobs.session_compact", tenant.pk, session.pk)
    interactive_work_seen()
    yield "done", result
    if not turn.long_term:  # a temporary chat or memory switched off: no job writes anything for this turn
        yield "memory", {"message_id": user_message.pk, "status": "done", "events": []}
        return
    wait = settings.MEMORY_EVENTS_WAIT_SECONDS if memory_wait is None else memory_wait
    yield "memory", _memory_events(tenant=tenant, message=user_message, wait=wait)


@dataclass
class _OpenTurn:
    """A turn up to the model call: its policy, tools, stored message and context."""

    policy: MemoryPolicy
    toolbox: Toolbox
    tool_choice: str
    user_message: Message
    long_term: bool
    context: TurnContext


def _turn_open(*, tenant: Tenant, session: ChatSession, text: str, tool_choice: str) -> _OpenTurn:
    """Everything before the model is called, in the order that keeps the turn safe: refusals (input, quota, a
    tool the assistant lacks) before anything is written; remote calls (recall, the hooks' models) before any
    row is locked; then the user's message committed, so no model fault can lose it; then the context."""
    turn_input_check(tenant=tenant, session=session, text=text)
    interactive_work_seen()  # bulk jobs on this machine pause while the turn runs (core.priority)
    # The turn's effective policy (tenant + assistant), resolved once: every layer below gets this one.
    policy = memory_policy_for(tenant=tenant, assistant=session.assistant)
    turn_quota_check(tenant=tenant, session=session, policy=policy, text=text)  # 429 at a usage limit
    toolbox = _toolbox(tenant=tenant, session=session, policy=policy)
    tool_choice = toolbox.choice(tool_choice)  # a tool the assistant lacks: 400, before anything is written
    # Recall reads nothing the steps below write: it runs beside them (assistants.services.recall_early)
    early_recall = recall_early_start(
        tenant=tenant,
        session=session,
        text=text,
        policy=policy,
        long_term=turn_uses_long_term_memory(session=session, end_user=session.end_user),
    )
    # Whatever the hooks need from a remote model (routing a task, embeddings) is asked now, before any row is
    # locked: with the user's row locked, a slow model would hold up the user's other turns and an erasure.
    with embeddings_kept_for_turn():  # what prepare embedded is not sent to a remote model again under the locks
        prepared = prepare_pre_turn_hooks(tenant=tenant, session=session, text=text, policy=policy)
        user_message, hook_results, long_term = _user_message_commit(
            tenant=tenant, session=session, text=text, policy=policy, prepared=prepared
        )
    context = _turn_context(
        tenant=tenant,
        session=session,
        text=text,
        user_message=user_message,
        policy=policy,
        hook_results=hook_results,
        recall=long_term,
        early_recall=early_recall,
    )
    return _OpenTurn(policy, toolbox, tool_choice, user_message, long_term, context)


def _user_message_commit(
    *, tenant: Tenant, session: ChatSession, text: str, policy, prepared
) -> tuple[Message, list[dict], bool]:
    """Store the user's message and run the pre-turn hooks in one transaction, with the end user's row and the
    session's locked; the extraction job is queued with it (sent after commit). Returns (the message, the hooks'
    results, whether the turn uses long-term memory). No remote model is called here: what the hooks need from
    one was asked in `prepared`, before the locks. Raises NotFound for an erased user, Conflict during an
    erasure."""
    with transaction.atomic():
        # Lock the end user: an erasure in progress must not see new rows appear behind it.
        end_user = end_user_write_lock(
            tenant_id=session.tenant_id,
            end_user_id=session.end_user_id,
            erasing="That user's data is being erased; no new messages are accepted.",
        )
        session.end_user = end_user  # the row just locked: the turn reads it from here, not once per use
        user_message = Message.objects.for_tenant(tenant).create(
            tenant=tenant,
            session=session,
            end_user=end_user,
            role=Message.Role.USER,
            content=text,
            token_count=token_count(text),
        )
        # Locks the session row and brings `session` up to date with it (pinned facts, summary), so the context
        # below is built from the committed state without reading the row again.
        session_pinned_update(tenant=tenant, session=session, message=user_message)
        hook_results = run_pre_turn_hooks(
            tenant=tenant, session=session, message=user_message, policy=policy, prepared=prepared
        )
        long_term = turn_uses_long_term_memory(session=session, end_user=end_user)
        if long_term:
            _enqueue("memory.jobs.memory_extract", tenant.pk, user_message.pk)  # with the message, in its transaction
    return user_message, hook_results, long_term


def _turn_context(
    *,
    tenant: Tenant,
    session: ChatSession,
    text: str,
    user_message: Message,
    policy,
    hook_results: list[dict],
    recall: bool,
    early_recall=None,
) -> TurnContext:
    """The turn's context (assistants.services.context); a context bug must not lose the turn, so a failure
    is logged and the context falls back to the system prompt and the message."""
    from assistants.services.context import context_build

    try:
        return context_build(
            tenant=tenant,
            session=session,
            user_message=user_message,
            policy=policy,
            hook_results=hook_results,
            recall=recall,
            early_recall=early_recall,
        )
    except Exception:  # a context bug must not lose the turn: fall back to prompt + message
        logger.exception("context assembly failed for session %s", session.pk)
        return TurnContext(
            messages=[
                {"role": "system", "content": session.assistant.system_prompt},
                {"role": "user", "content": text[:20000]},
            ]
        )


def _reply_with_calls_store(*, tenant, session, context, state: ReplyState, model_name: str, **outcome) -> Message:
    """A chat turn's reply as far as it got (`outcome`: stopped=True, or the error sentence), with the tool calls
    it made, both read when the reply ends."""
    return chat_reply_store(
        tenant=tenant,
        session=session,
        text=state.text,
        context=context,
        model_name=model_name,
        extra={"tool_calls": state.calls} if state.calls else None,
        **outcome,
    )


def tool_choice_check(*, tenant: Tenant, session: ChatSession, tool_choice: str) -> str:
    """`tool_choice` if it is auto, none or a tool the session's assistant may call; else InvalidInput (for a
    caller that must refuse before it writes anything, such as the API starting a new session)."""
    if (tool_choice or "auto") in ("auto", "none"):
        return tool_choice or "auto"
    return _toolbox(tenant=tenant, session=session, policy=None).choice(tool_choice)


def _toolbox(*, tenant: Tenant, session: ChatSession, policy) -> Toolbox:
    """The tools this turn may offer its model (tools.services.toolbox)."""
    from tools.services.toolbox import Toolbox

    return Toolbox(
        tenant=tenant,
        session=session,
        policy=policy,
        long_term=turn_uses_long_term_memory(session=session, end_user=session.end_user),
    )
