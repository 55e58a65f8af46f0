"""The reply of a chat turn, streamed and stored: one implementation for a chat turn (assistants.services.chat)
and a regenerated reply (assistants.services.alternatives)."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.utils import timezone

from assistants.services.agent import ReplyState, reply_stream
from assistants.services.tokens import token_count
from assistants.services.turn_context import TurnContext
from tenancy.models import ChatSession, Message, Tenant

if TYPE_CHECKING:
    from tools.services.toolbox import Toolbox


@dataclass
class TurnResult:
    session: ChatSession
    user_message: Message
    reply_message: Message | None
    reply: str
    context: TurnContext
    error: str | None = None  # a sentence for the person when the model failed; the user message is kept
    tool_calls: list[dict] = field(default_factory=list)  # the tools the model called (toolbox.ToolOutcome.public)


def chat_reply_store(
    *,
    tenant: Tenant,
    session: ChatSession,
    text: str,
    context: TurnContext,
    model_name: str,
    error: str | None = None,
    stopped: bool = False,
    extra: dict | None = None,
) -> Message:
    """Store the assistant's reply of a turn (whole, or as far as it got when `stopped`)."""
    metadata = {**(extra or {}), "context": context.as_dict(), "model": model_name}
    if error:
        metadata["error"] = error
    if stopped:
        metadata["stopped"] = True
    reply_message = Message.objects.for_tenant(tenant).create(
        tenant=tenant,
        session=session,
        end_user=session.end_user,
        role=Message.Role.ASSISTANT,
        content=text,
        token_count=token_count(text),
        metadata=metadata,
    )
    ChatSession.objects.for_tenant(tenant).filter(pk=session.pk).update(last_activity_at=timezone.now())
    return reply_message


def chat_reply_stream(
    *,
    tenant: Tenant,
    session: ChatSession,
    user_message: Message,
    context: TurnContext,
    policy,
    store: Callable[..., Message],
    toolbox: Toolbox | None = None,
    tool_choice: str = "auto",
) -> Generator[tuple[str, object], None, TurnResult]:
    """The reply to `user_message` as events (assistants.services.agent), then stored by
    `store(state=, model_name=, stopped=True | error=)`, which returns the stored message (a reply the person
    stopped is stored as far as it got). Returns the turn's result, for the caller to yield as ("done", result)."""
    state = ReplyState()
    model_name, error = yield from reply_stream(
        tenant=tenant,
        session=session,
        text=user_message.content,
        context=context,
        policy=policy,
        toolbox=toolbox,
        tool_choice=tool_choice,
        state=state,
        store_stopped=lambda model_name: store(state=state, model_name=model_name, stopped=True),
    )
    reply_message = store(state=state, model_name=model_name, error=error)
    return TurnResult(
        session=session,
        user_message=user_message,
        reply_message=reply_message,
        reply=state.text,
        context=context,
        error=error,
        tool_calls=state.calls,
    )
