"""Rolling-summary compaction of one session (seeds 000, 002, 003, 004).

session_compact moves the messages that have left the window (all unsummarised messages except the last
window_turns turns) into ChatSession.summary, oldest first and at most one bounded pass at a time:
- one pass takes at most COMPACTION_PASS_MESSAGES messages and COMPACTION_PASS_TOKENS tokens of them (at least one
  message), so a pass costs the same for a 10,000-message session as for a 50-message one; when more have left the
  window, the job queues the next pass as its own job (core.dispatch, in the transaction that advanced
  summary_through_id), and an import runs its passes in its own bounded steps;
- it MERGES them into the existing summary, never starting over, so early facts survive many compactions;
- it keeps budgets, amounts, places, sizes, categories, dates, decisions and constraints and drops greetings;
- the result is capped at budget_summary_tokens and passed through the PII guard (memory.services.identifiers.pii);
- it writes with compare-and-set on summary_version, so two concurrent compactions cannot corrupt the summary:
  the loser re-reads and merges again from the winner's state;
- it is idempotent: run again with nothing new, it changes nothing.
The model is the tenant's chat model (structured JSON output, validated with pydantic); with the offline
provider, the extractive summariser in assistants.llm.offline. A model fault raises, and the job retries later;
until then the unsummarised messages are still sent verbatim (assistants.services.context).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from pydantic import BaseModel, Field

from assistants.llm import get_chat_model
from assistants.llm.errors import ModelError
from assistants.llm.offline import offline_summary_merge, summary_lines
from assistants.services.tokens import token_count, token_truncate
from core.dispatch import enqueue_on_commit
from core.policy import memory_policy_for
from memory.services.identifiers.pii import pii_redact
from tenancy.models import MESSAGE_REPLACED_KEY, ChatSession, Message
from tenancy.scoping import tenant_scope

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3


class SummaryOut(BaseModel):
    """The structured answer the model must give."""

    summary_lines: list[str] = Field(min_length=1, description="One fact or decision per line, oldest first.")


SUMMARY_INSTRUCTIONS = """You maintain the rolling summary of a conversation between a user and an assistant.
Merge the NEW MESSAGES into the EXISTING SUMMARY; never drop a fact of the existing summary unless the user changed it.
Keep: budgets, amounts, places, sizes, categories, dates, deadlines, names, decisions and constraints the user stated,
and the assistant's concrete recommendations the user accepted. When the user changed a value, keep only the new value
and say it replaced the old one. Drop greetings, thanks and small talk. Write each line in the language the user used
(Chinese stays Chinese). At most {max_tokens} tokens in total.
Answer with JSON only: {{"summary_lines": ["...", "..."]}}"""


def _is_offline_reply(message: Message) -> bool:
    model = str((message.metadata or {}).get("model", ""))
    return message.role == Message.Role.ASSISTANT and (model == "offline" or model.endswith("->offline"))


def summary_merge(*, model, old_summary: str, messages: list[Message], max_tokens: int, pinned_facts: dict) -> str:
    """The new summary text (before the PII guard), from the model or the offline summariser."""
    if model.offline:
        return offline_summary_merge(
            old_summary=old_summary,
            max_tokens=max_tokens,
            pinned_facts=pinned_facts,
            messages=[{"role": m.role, "content": m.content, "offline": _is_offline_reply(m)} for m in messages],
        )
    transcript = "\n".join(
        f"{m.role}: {token_truncate(m.content, 1500)}"
        for m in messages
        if m.role in (Message.Role.USER, Message.Role.ASSISTANT) and not _is_offline_reply(m)
    )
    prompt = [
        {"role": "system", "content": SUMMARY_INSTRUCTIONS.format(max_tokens=max_tokens)},
        {"role": "user", "content": f"EXISTING SUMMARY:\n{old_summary or '(none)'}\n\nNEW MESSAGES:\n{transcript}"},
    ]
    answer = model.complete_json(prompt, SummaryOut)
    lines = [ln.strip().removeprefix("- ") for ln in answer.summary_lines if ln and ln.strip()]
    if not lines:
        raise ModelError("The language model returned an empty summary.", reason="empty")
    text = "\n".join(f"- {ln}" for ln in lines)
    if token_count(text) > max_tokens:
        # Over the cap: let the extractive summariser trim it (small talk first, oldest facts last).
        text = offline_summary_merge(old_summary=text, messages=[], max_tokens=max_tokens, pinned_facts=pinned_facts)
    return text


def _pass_messages(*, session: ChatSession, keep: int) -> tuple[list[Message], bool]:
    """The oldest unsummarised messages that left the window, bounded by COMPACTION_PASS_MESSAGES and
    COMPACTION_PASS_TOKENS (at least one), and whether more than these have left it. Reads at most
    limit + keep + 1 rows, however long the session. An earlier version of a message (edited or regenerated since,
    assistants.services.alternatives) is never summarised: the model is not sent it again."""
    limit = max(1, int(settings.COMPACTION_PASS_MESSAGES))
    pending = Message.objects.filter(session_id=session.pk).exclude(metadata__has_key=MESSAGE_REPLACED_KEY)
    if session.summary_through_id:
        pending = pending.filter(id__gt=session.summary_through_id)
    rows = list(pending.order_by("id")[: limit + keep + 1])
    left = rows[: max(0, len(rows) - keep)]  # each has at least `keep` newer messages after it
    taken: list[Message] = []
    tokens = 0
    for message in left[:limit]:
        tokens += token_count(token_truncate(message.content, 1500))
        if taken and tokens > settings.COMPACTION_PASS_TOKENS:
            break
        taken.append(message)
    return taken, len(left) > len(taken)


def session_compact(*, tenant_id: int, session_id: int, continue_in_job: bool = False) -> dict:
    """Merge the oldest messages that left the window (one bounded pass) into the summary; compare-and-set on
    summary_version. "more_pending" says whether more have left the window; with `continue_in_job` (the Celery
    job) the next pass is queued in the same transaction as this one's summary, so a crash loses neither."""
    with tenant_scope(tenant_id):
        for attempt in range(MAX_ATTEMPTS):
            session = ChatSession.objects.select_related("assistant", "tenant").filter(pk=session_id).first()
            if session is None:
                return {"compacted": 0, "reason": "session gone"}
            policy = memory_policy_for(tenant=session.tenant, assistant=session.assistant)
            dropped, more = _pass_messages(session=session, keep=2 * policy.window_turns)
            if not dropped:
                return {"compacted": 0, "summary_version": session.summary_version}
            model = get_chat_model(policy=policy, assistant=session.assistant)
            merged = summary_merge(
                model=model,
                old_summary=session.summary,
                messages=dropped,
                max_tokens=policy.budget_summary_tokens,
                pinned_facts=session.pinned_facts,
            )
            merged, redacted = pii_redact(merged)
            merged = token_truncate(merged, policy.budget_summary_tokens)
            with transaction.atomic():
                won = ChatSession.objects.filter(pk=session_id, summary_version=session.summary_version).update(
                    summary=merged, summary_through_id=dropped[-1].id, summary_version=session.summary_version + 1
                )
                if won and more and continue_in_job:
                    enqueue_on_commit("assistants.jobs.session_compact", tenant_id, session_id)
            if won:
                return {
                    "compacted": len(dropped),
                    "summary_version": session.summary_version + 1,
                    "summary_lines": len(summary_lines(merged)),
                    "pii_redacted": sum(redacted.values()),
                    "model": model.name,
                    "attempts": attempt + 1,
                    "more_pending": more,
                }
            logger.info("compaction of session %s lost the race; merging again", session_id)
        return {"compacted": 0, "reason": "concurrent compactions kept winning"}
