"""The reply of a chat turn: the model's answer streamed, with the agent loop when the turn offers
tools: the model may answer with tool calls (parallel ones included); they run (tools.services.toolbox), their
results go back to the model, and it is called again, up to ASSISTANT_MAX_TOOL_ROUNDS rounds and within the
turn's token budget; then it must answer in words (`tool_choice: none`). A tool that fails, hangs or returns
garbage is a result that says so. A model fault gives the offline model's reply: the turn never fails for it."""

from __future__ import annotations

import logging
from collections.abc import Callable, Generator

from django.conf import settings
from django.utils.translation import gettext, gettext_lazy

from assistants.llm import ModelError, OfflineChatModel, get_chat_model
from assistants.services.tokens import token_count
from assistants.services.turn_context import TurnContext
from assistants.services.turn_usage import TurnMeter
from core.db import connection_release_while_waiting
from core.i18n import user_language
from core.text import mostly_chinese

logger = logging.getLogger(__name__)

# What went wrong with the model, per ModelError.reason (translated in locale/zh_Hans).
_MODEL_FAILURES = {
    "timeout": gettext_lazy("did not answer in time"),
    "rate_limited": gettext_lazy("is rate limited right now"),
    "server_error": gettext_lazy("failed with a server error"),
    "unreachable": gettext_lazy("could not be reached"),
    "empty": gettext_lazy("returned an empty answer"),
    "malformed": gettext_lazy("returned an answer that could not be read"),
    "refused": gettext_lazy("refused the request"),
}


def model_error_sentence(exc: Exception, chinese: bool) -> str:
    """The sentence shown when the model failed and the offline model answered instead, in the user's language."""
    with user_language(chinese):
        failure = str(_MODEL_FAILURES.get(getattr(exc, "reason", "error"), gettext_lazy("failed")))
        return gettext(
            "The language model %(failure)s, so this reply comes from the offline model; your message is saved."
        ) % {"failure": failure}


class ReplyState:
    """What the reply has so far: its text, and the tool calls made (outcomes, as clients see them)."""

    def __init__(self):
        self.parts: list[str] = []
        self.calls: list[dict] = []

    @property
    def text(self) -> str:
        return "".join(self.parts)


def _openai_choice(tool_choice: str, round_index: int):
    if tool_choice in ("auto", "none"):
        return tool_choice
    # a named tool is called in the first round; after its result the model decides
    return {"type": "function", "function": {"name": tool_choice}} if round_index == 0 else "auto"


def room_for_a_tool_round(*, messages: list[dict], policy) -> bool:
    """Another tool round fits the turn's budget: the context limit less what the reply needs."""
    used = sum(token_count(str(m.get("content") or "")) + token_count(str(m.get("tool_calls") or "")) for m in messages)
    return used < policy.context_limit_tokens - policy.reply_reserve_tokens


def reply_stream(
    *,
    tenant,
    session,
    text: str,
    context: TurnContext,
    policy,
    toolbox=None,
    tool_choice: str = "auto",
    state: ReplyState,
    store_stopped: Callable[..., object],
) -> Generator[tuple[str, object], None, tuple[str, str | None]]:
    """Yield ("delta", str), ("tool_call", dict), ("tool_result", dict) events; return (the model name to store,
    the error sentence or None, in the language of `text`). The reply and calls are in `state`. Closed
    mid-stream (the person stopped it or went away), it stores what was streamed, marked stopped, and re-raises."""
    model = get_chat_model(policy=policy, assistant=session.assistant)
    model_name = model.name
    if not model.offline:
        connection_release_while_waiting()  # a remote model takes seconds: do not hold a pooled connection
    meter = TurnMeter(tenant=tenant, session=session, model=model, context=context)  # no statement
    tools = toolbox.openai_tools() if toolbox is not None and tool_choice != "none" else []
    messages = list(context.messages)  # a turn with no tool call sends exactly its context
    error = None
    try:
        if tools:
            yield from _agent_loop(
                model=model,
                messages=messages,
                tools=tools,
                toolbox=toolbox,
                tool_choice=tool_choice,
                policy=policy,
                meter=meter,
                state=state,
            )
        else:
            for delta in model.stream(context.messages):
                state.parts.append(delta)
                yield "delta", delta
    except GeneratorExit:
        # The person stopped the reply (or went away): keep what was streamed, marked stopped, so a reload shows
        # the stop instead of a reply they never saw finish. The web chat then trims it to what was shown.
        meter.record(reply=state.text, ok=True, tool_calls=len(state.calls))
        try:
            store_stopped(model_name="offline" if model.offline else model_name)
        except Exception:  # closing a stream must never raise; the user message is kept anyway
            logger.exception("storing a stopped reply failed")
        raise
    except Exception as exc:  # ModelError, or anything else the provider raised
        if not isinstance(exc, ModelError):
            logger.exception("chat model %s failed", model_name)
        error = model_error_sentence(exc, mostly_chinese(text[:2000]))
        fallback = OfflineChatModel().complete(messages)
        text_out = ("\n\n" if state.parts else "") + fallback
        state.parts.append(text_out)
        yield "delta", text_out
        model_name = f"{model_name}->offline"
    meter.record(reply=state.text, ok=error is None, tool_calls=len(state.calls))
    return ("offline" if model.offline else model_name), error


def _agent_loop(*, model, messages, tools, toolbox, tool_choice, policy, meter, state: ReplyState):
    """Rounds of model calls and tool calls; `messages` grows with each round's calls and results."""
    max_rounds = max(0, settings.ASSISTANT_MAX_TOOL_ROUNDS)
    round_index = 0
    while True:
        final = round_index >= max_rounds or not room_for_a_tool_round(messages=messages, policy=policy)
        asked: list[dict] = []
        said: list[str] = []
        choice = "none" if final else _openai_choice(tool_choice, round_index)
        for delta in model.stream_round(messages, tools=tools, tool_choice=choice, calls=asked):
            said.append(delta)
            state.parts.append(delta)
            yield "delta", delta
        meter.round_done(messages=messages if round_index else None, reply="".join(said) + str(asked))
        if final and not "".join(said).strip():  # it still asked for tools when it had to answer
            raise ModelError("The language model answered with tool calls only.", reason="empty")
        if final or not asked:
            return
        round_index += 1
        messages.append(
            {
                "role": "assistant",
                "content": "".join(said) or None,
                "tool_calls": [
                    {
                        "id": c["id"] or f"call_{round_index}_{i}",
                        "type": "function",
                        "function": {"name": c["name"], "arguments": c["arguments"] or "{}"},
                    }
                    for i, c in enumerate(asked)
                ],
            }
        )
        for i, call in enumerate(asked):
            call["id"] = call["id"] or f"call_{round_index}_{i}"
            yield (
                "tool_call",
                {"id": call["id"], "name": call["name"], "arguments": call["arguments"], "round": round_index},
            )
        for outcome in toolbox.run(asked):
            public = {**outcome.public(), "round": round_index}
            state.calls.append(public)
            yield "tool_result", public
            messages.append({"role": "tool", "tool_call_id": outcome.id, "content": outcome.for_model()})
