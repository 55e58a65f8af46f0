"""The chat turn: one service for the web chat, the API and tests."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Iterator

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from assistants.llm import ModelError, OfflineChatModel, get_chat_model
from assistants.llm.sections import is_chinese
from assistants.models import Assistant, ChatSession, EndUser, Message, Tenant
from assistants.services.hooks import run_pre_turn_hooks
from assistants.services.pinned import session_pinned_update
from assistants.services.policy import memory_policy_for
from assistants.services.tokens import token_count
from core.db import connection_release_while_waiting
from core.exceptions import Conflict, InvalidInput, NotFound
from memory.services.pii import pii_safe_title

logger = logging.getLogger(__name__)


@dataclass
class TurnContext:
    """What the reply was built from. `messages` is exactly what was sent to the model."""

    messages: list[dict]
    summary: str = ""
    pinned_facts: dict = field(default_factory=dict)
    memories: list = field(default_factory=list)  # list[memory.services.recall.RecalledItem]
    task: dict | None = None
    hints: list[str] = field(default_factory=list)  # reply hints from pre-turn hooks (assistants.services.hooks)
    hint_sections: list[str] = field(default_factory=list)  # the hook section each hint came from, in order
    experience_ids: list[int] = field(default_factory=list)  # experiences offered as hints this turn
    token_count: int = 0
    window_message_ids: list[int] = field(default_factory=list)  # the stored messages sent verbatim
    truncated: bool = False  # the new user message was cut for the model (it is stored intact)
    # How many messages of the session came after the summary and before this turn (None: not counted). Not part
    # of as_dict(): it spares the turn a second count when it decides whether compaction is due.
    unsummarised_before: int | None = None

    def as_dict(self) -> dict:
        """What is stored with the reply (metadata.context) and sent to clients. An experience hint is kept by
        reference (`experiences`: ids), never as text: it was computed for this turn, and the stored message must
        not carry words that came from elsewhere."""
        sections = self.hint_sections if len(self.hint_sections) == len(self.hints) else [""] * len(self.hints)
        own = [(h, s) for h, s in zip(self.hints, sections, strict=True) if s != "experience"]
        return {"summary": self.summary, "pinned_facts": self.pinned_facts,
                "memories": [m.as_dict() for m in self.memories], "task": self.task,
                "hints": [h for h, _ in own], "hint_sections": [s for _, s in own],
                "experiences": list(self.experience_ids),
                "token_count": self.token_count, "window_message_ids": self.window_message_ids,
                "truncated": self.truncated}


@dataclass
class TurnResult:
    session: ChatSession
    user_message: Message
    reply_message: Message | None
    reply: str
    context: TurnContext
    error: str | None = None  # a sentence for the person when the model failed; the user message is kept


def chat_session_start(*, tenant: Tenant, end_user: EndUser, assistant: Assistant | None = None,
                       title: str = "", temporary: bool = False) -> ChatSession:
    """A new conversation. `temporary`: nothing of it reaches long-term memory or experiences, nothing is recalled
    into it, and it is deleted `tenant.temporary_chat_ttl_hours` after it starts (assistants.jobs)."""
    if end_user.tenant_id != tenant.pk:
        raise NotFound("That user does not exist.")
    if assistant is None:
        assistant = Assistant.objects.for_tenant(tenant).order_by("id").first()
        if assistant is None:
            raise InvalidInput("This tenant has no assistant yet: create one first.")
    elif assistant.tenant_id != tenant.pk:
        raise NotFound("That assistant does not exist.")
    # A title is often the first words of a message: no identifier may be kept in it.
    expires_at = timezone.now() + timedelta(hours=tenant.temporary_chat_ttl_hours) if temporary else None
    return ChatSession.objects.for_tenant(tenant).create(tenant=tenant, end_user=end_user, assistant=assistant,
                                                         title=pii_safe_title(title, 200), temporary=bool(temporary),
                                                         expires_at=expires_at)


def turn_uses_long_term_memory(*, session: ChatSession, end_user: EndUser) -> bool:
    """False in a temporary chat or when the person switched memory off: the turn then writes no notes (no
    extraction, so its messages are not indexed for recall either), recalls none, and learns no experience."""
    return not session.temporary and end_user.memory_enabled


def chat_turn(*, tenant: Tenant, session: ChatSession, text: str) -> TurnResult:
    """Store the user's message, build the context, call the model, store the reply, schedule jobs."""
    result = None
    for event, payload in chat_turn_stream(tenant=tenant, session=session, text=text, memory_wait=0):
        if event == "done":
            result = payload
            break  # the reply is complete: a JSON client reads the memory events later (GET …/memory-events/)
    return result


def _enqueue(job, *args) -> None:
    """Record a background job in the outbox with the data it is about and send it once that commits; a broker
    outage keeps it for redelivery (core.dispatch), never turned into a failed reply."""
    from core.dispatch import enqueue_on_commit

    enqueue_on_commit(job, *args)


def _error_sentence(exc: Exception, chinese: bool) -> str:
    reason = getattr(exc, "reason", "error")
    zh = {"timeout": "没有及时回答", "rate_limited": "当前请求太多（限流）", "server_error": "出现了服务器错误",
          "unreachable": "无法连接", "empty": "返回了空回答", "malformed": "返回了无法读取的回答",
          "refused": "拒绝了请求"}
    en = {"timeout": "did not answer in time", "rate_limited": "is rate limited right now",
          "server_error": "failed with a server error", "unreachable": "could not be reached",
          "empty": "returned an empty answer", "malformed": "returned an answer that could not be read",
          "refused": "refused the request"}
    if chinese:
        return f"语言模型{zh.get(reason, '出错了')}，这条回复来自离线模型；你的消息已经保存。"
    return f"The language model {en.get(reason, 'failed')}, so this reply comes from the offline model; your message is saved."


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
        from memory.services.recall import memory_recall_touch

        memory_recall_touch(tenant=tenant, items=memories)
    except Exception:  # recall counters must not cost the user the stored reply
        logger.exception("counting recalled notes failed")


def chat_reply_store(*, tenant: Tenant, session: ChatSession, text: str, context: TurnContext, model_name: str,
                     error: str | None = None, stopped: bool = False, extra: dict | None = None) -> Message:
    """Store the assistant's reply of a turn (whole, or as far as it got when `stopped`)."""
    metadata = {**(extra or {}), "context": context.as_dict(), "model": model_name}
    if error:
        metadata["error"] = error
    if stopped:
        metadata["stopped"] = True
    reply_message = Message.objects.for_tenant(tenant).create(
        tenant=tenant, session=session, end_user=session.end_user, role=Message.Role.ASSISTANT, content=text,
        token_count=token_count(text), metadata=metadata)
    ChatSession.objects.for_tenant(tenant).filter(pk=session.pk).update(last_activity_at=timezone.now())
    return reply_message


def _memory_events(*, tenant, message, wait: float) -> dict:
    """The turn's memory events once its extraction job is done, or what is known after `wait` seconds
    (status "pending": the client can ask GET /api/v1/messages/<id>/memory-events/ later). The connection goes
    back to the pool between polls."""
    import time

    from memory.services.events import memory_events_for_message

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


def chat_turn_stream(*, tenant: Tenant, session: ChatSession, text: str,
                     memory_wait: float | None = None) -> Iterator[tuple[str, object]]:
    """The same turn, as events: ("context", TurnContext), ("delta", str)..., ("done", TurnResult), then
    ("memory", {"message_id", "status", "events"}): what the turn's jobs wrote, updated, superseded or forgot,
    after at most `memory_wait` seconds (settings.MEMORY_EVENTS_WAIT_SECONDS).

    The user's message is committed before the model is called, so no model fault can lose it; a fault gives a
    reply from the offline model and TurnResult.error says what happened. Extraction and compaction are queued
    after commit and never block the reply."""
    from assistants import jobs as assistant_jobs
    from assistants.services.context import context_build
    from memory import jobs as memory_jobs

    if session.tenant_id != tenant.pk:
        raise NotFound("That session does not exist.")
    if session.expires_at is not None and session.expires_at <= timezone.now():
        raise NotFound("That temporary conversation has expired and is being deleted.")
    if not text or not text.strip():
        raise InvalidInput("The message is empty: write something to send.")
    if "\x00" in text:
        raise InvalidInput("The message contains a NUL character (\\0), which cannot be stored: remove it and "
                           "send again.", code="nul_character")
    limit = settings.MAX_MESSAGE_CHARS
    if len(text) > limit:
        raise InvalidInput(f"The message is {len(text):,} characters long; the limit is {limit:,} characters: "
                           f"shorten it or send it in parts.", code="message_too_long",
                           details={"length": len(text), "limit": limit})
    with transaction.atomic():
        # Lock the end user: an erasure in progress must not see new rows appear behind it.
        end_user = EndUser.all_tenants.select_for_update().filter(pk=session.end_user_id).first()
        if end_user is None:
            raise NotFound("That user does not exist (already erased?).")
        if end_user.erasure_requested_at is not None:  # docs/api.md: always 409 user_being_erased during erasure
            raise Conflict("That user's data is being erased; no new messages are accepted.",
                           code="user_being_erased")
        session.end_user = end_user  # the row just locked: the turn reads it from here, not once per use
        user_message = Message.objects.for_tenant(tenant).create(
            tenant=tenant, session=session, end_user=end_user, role=Message.Role.USER, content=text,
            token_count=token_count(text))
        # Locks the session row and brings `session` up to date with it (pinned facts, summary), so the context
        # below is built from the committed state without reading the row again.
        session_pinned_update(tenant=tenant, session=session, message=user_message)
        hook_results = run_pre_turn_hooks(tenant=tenant, session=session, message=user_message)
        long_term = turn_uses_long_term_memory(session=session, end_user=end_user)
        if long_term:
            _enqueue(memory_jobs.memory_extract, tenant.pk, user_message.pk)  # with the message, in its transaction
    policy = memory_policy_for(tenant=tenant, assistant=session.assistant)
    try:
        context = context_build(tenant=tenant, session=session, user_message=user_message, policy=policy,
                                hook_results=hook_results, recall=long_term)
    except Exception:  # a context bug must not lose the turn: fall back to prompt + message
        logger.exception("context assembly failed for session %s", session.pk)
        context = TurnContext(messages=[{"role": "system", "content": session.assistant.system_prompt},
                                        {"role": "user", "content": text[:20000]}])
    yield "context", context

    chinese = is_chinese(text[:2000])
    error = None
    parts: list[str] = []
    model = get_chat_model(tenant=tenant, assistant=session.assistant)
    model_name = model.name
    if not model.offline:
        connection_release_while_waiting()  # a remote model takes seconds: do not hold a pooled connection
    try:
        for delta in model.stream(context.messages):
            parts.append(delta)
            yield "delta", delta
    except GeneratorExit:
        # The person stopped the reply (or went away): keep what was streamed, marked stopped, so a reload shows
        # the stop instead of a reply they never saw finish. The web chat then trims it to what was shown.
        try:
            chat_reply_store(tenant=tenant, session=session, text="".join(parts), context=context,
                             model_name="offline" if model.offline else model_name, stopped=True)
        except Exception:  # closing a stream must never raise; the user message is kept anyway
            logger.exception("storing a stopped reply failed")
        raise
    except Exception as exc:  # ModelError, or anything else the provider raised
        if not isinstance(exc, ModelError):
            logger.exception("chat model %s failed", model_name)
        error = _error_sentence(exc, chinese)
        fallback = OfflineChatModel().complete(context.messages)
        text_out = ("\n\n" if parts else "") + fallback
        parts.append(text_out)
        yield "delta", text_out
        model_name = f"{model_name}->offline"
    reply = "".join(parts)
    reply_message = chat_reply_store(tenant=tenant, session=session, text=reply, context=context,
                                     model_name="offline" if model.offline else model_name, error=error)
    _count_recalls(tenant=tenant, memories=context.memories)
    if _compaction_due(tenant=tenant, session=session, policy=policy, context=context):
        _enqueue(assistant_jobs.session_compact, tenant.pk, session.pk)
    yield "done", TurnResult(session=session, user_message=user_message, reply_message=reply_message,
                             reply=reply, context=context, error=error)
    if not long_term:  # a temporary chat or memory switched off: no job writes anything for this turn
        yield "memory", {"message_id": user_message.pk, "status": "done", "events": []}
        return
    wait = settings.MEMORY_EVENTS_WAIT_SECONDS if memory_wait is None else memory_wait
    yield "memory", _memory_events(tenant=tenant, message=user_message, wait=wait)
