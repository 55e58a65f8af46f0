"""The chat turn: one service for the web chat, the API and tests. (Interface fixed; issue 3 completes it.)"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from django.db import transaction

from assistants.llm import get_chat_model
from assistants.services.hooks import run_pre_turn_hooks
from assistants.models import Assistant, ChatSession, EndUser, Message, Tenant
from core.exceptions import InvalidInput, NotFound


@dataclass
class TurnContext:
    """What the reply was built from. `messages` is exactly what was sent to the model."""

    messages: list[dict]
    summary: str = ""
    pinned_facts: dict = field(default_factory=dict)
    memories: list = field(default_factory=list)  # list[memory.services.recall.RecalledItem]
    task: dict | None = None
    hints: list[str] = field(default_factory=list)  # reply hints from pre-turn hooks (assistants.services.hooks)
    token_count: int = 0

    def as_dict(self) -> dict:
        return {"summary": self.summary, "pinned_facts": self.pinned_facts,
                "memories": [m.as_dict() for m in self.memories], "task": self.task, "hints": self.hints,
                "token_count": self.token_count}


@dataclass
class TurnResult:
    session: ChatSession
    user_message: Message
    reply_message: Message | None
    reply: str
    context: TurnContext
    error: str | None = None  # a sentence for the person when the model failed; the user message is kept


def chat_session_start(*, tenant: Tenant, end_user: EndUser, assistant: Assistant | None = None,
                       title: str = "") -> ChatSession:
    if end_user.tenant_id != tenant.pk:
        raise NotFound("That user does not exist.")
    if assistant is None:
        assistant = Assistant.objects.for_tenant(tenant).order_by("id").first()
        if assistant is None:
            raise InvalidInput("This tenant has no assistant yet: create one first.")
    elif assistant.tenant_id != tenant.pk:
        raise NotFound("That assistant does not exist.")
    return ChatSession.objects.for_tenant(tenant).create(tenant=tenant, end_user=end_user, assistant=assistant,
                                                         title=title[:200])


def chat_turn(*, tenant: Tenant, session: ChatSession, text: str) -> TurnResult:
    """Store the user's message, build the context, call the model, store the reply, schedule jobs."""
    result = None
    for event, payload in chat_turn_stream(tenant=tenant, session=session, text=text):
        if event == "done":
            result = payload
    return result


def chat_turn_stream(*, tenant: Tenant, session: ChatSession, text: str) -> Iterator[tuple[str, object]]:
    """The same turn, as events: ("context", TurnContext), ("delta", str)..., then ("done", TurnResult)."""
    if session.tenant_id != tenant.pk:
        raise NotFound("That session does not exist.")
    if not text or not text.strip():
        raise InvalidInput("The message is empty: write something to send.")
    with transaction.atomic():
        # Lock the end user: an erasure in progress (issue 7) must not see new rows appear behind it.
        end_user = EndUser.all_tenants.select_for_update().filter(pk=session.end_user_id).first()
        if end_user is None or end_user.erasure_requested_at is not None:
            raise NotFound("That user's data is being erased; no new messages are accepted.")
        user_message = Message.objects.for_tenant(tenant).create(
            tenant=tenant, session=session, end_user=session.end_user, role=Message.Role.USER, content=text)
        hook_results = run_pre_turn_hooks(tenant=tenant, session=session, message=user_message)
    history = list(Message.objects.for_tenant(tenant).filter(session=session).order_by("-id")[:20])[::-1]
    messages = [{"role": "system", "content": session.assistant.system_prompt}]
    messages += [{"role": m.role, "content": m.content} for m in history]
    task = next((h["data"] for h in hook_results if h.get("section") == "task"), None)
    hints = [h["reply_hint"] for h in hook_results if h.get("reply_hint")]
    context = TurnContext(messages=messages, task=task, hints=hints)
    yield "context", context
    model = get_chat_model(tenant=tenant, assistant=session.assistant)
    parts = []
    for delta in model.stream(messages):
        parts.append(delta)
        yield "delta", delta
    reply = "".join(parts)
    reply_message = Message.objects.for_tenant(tenant).create(
        tenant=tenant, session=session, end_user=session.end_user, role=Message.Role.ASSISTANT, content=reply,
        metadata={"context": context.as_dict(), "model": model.name})
    yield "done", TurnResult(session=session, user_message=user_message, reply_message=reply_message,
                             reply=reply, context=context)
