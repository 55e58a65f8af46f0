"""The chat turn's metering and quota check, kept out of the turn's own module.

Both cost the turn no database statement when the tenant sets no limits: the check returns at once, and the
turn's usage (one event: the turn, its model call's tokens, duration and outcome) goes to this process's buffer
(core.metering), written after the response (usage.signals)."""

from __future__ import annotations

import time

from assistants.services.tokens import token_count
from core.metering import Attribution, UsageEvent, usage_event_record
from core.text import mostly_chinese
from usage.quotas import usage_quota_check


def turn_quota_check(*, tenant, session, policy, text: str) -> None:
    """Refuse the turn (429 quota_exceeded, in the language of `text`) when a hard limit of the turn's policy is
    reached for the tenant, the session's assistant or its end user."""
    usage_quota_check(
        tenant_id=tenant.pk,
        assistant_id=session.assistant_id,
        end_user_id=session.end_user_id,
        quotas=policy.usage_quotas,
        chinese=mostly_chinese(text[:2000]),
    )


class TurnMeter:
    """Started just before the reply's model call; `record` once the reply ended (finished, failed over to the
    offline model, or stopped by the person)."""

    def __init__(self, *, tenant, session, model, context):
        self.attribution = Attribution(
            tenant_id=tenant.pk, assistant_id=session.assistant_id, end_user_id=session.end_user_id, purpose="chat"
        )
        self.model, self.context, self.started = model, context, time.perf_counter()
        self.prompt = self.completion = self.rounds = 0
        self.counted = False

    def round_done(self, *, messages: list[dict] | None, reply: str) -> None:
        """One model call of the turn (a tool round or the reply): the provider's token counts when it reported
        them (OpenAIChatModel.last_usage), else counted as the context budget counts them, and marked so (the
        offline model always). `messages`: what a tool round sent (None: the turn's context)."""
        usage = getattr(self.model, "last_usage", None)
        prompt = getattr(usage, "prompt_tokens", None)
        completion = getattr(usage, "completion_tokens", None)
        self.counted = self.counted or prompt is None or completion is None
        if prompt is None and messages is not None:
            prompt = sum(
                token_count(str(m.get("content") or "")) + token_count(str(m.get("tool_calls") or "")) for m in messages
            )
        if prompt is None:  # context assembly counted it already (0 only for the fallback context)
            prompt = self.context.token_count or sum(
                token_count(str(m.get("content") or "")) for m in self.context.messages
            )
        self.prompt += prompt
        self.completion += token_count(reply) if completion is None else completion
        self.rounds += 1
        if usage is not None:
            self.model.last_usage = None  # counted once: a later round that reports nothing is counted, not repeated

    def record(self, *, reply: str, ok: bool, tool_calls: int = 0) -> None:
        """The turn's one usage event: every round's tokens (a turn with no tool calls has one round, recorded
        here if the caller did not), and how many tool calls it made."""
        if not self.rounds:
            self.round_done(messages=None, reply=reply)
        prompt, completion, counted = self.prompt, self.completion, self.counted
        usage_event_record(
            UsageEvent(
                attribution=self.attribution,
                kind="turn",
                model="offline" if self.model.offline else self.model.name,
                prompt_tokens=prompt,
                completion_tokens=completion,
                counted=counted,
                duration_ms=(time.perf_counter() - self.started) * 1000,
                ok=ok,
                turns=1,
                tool_calls=tool_calls,
            )
        )
