"""Context assembly: exactly what is sent to the model for one turn, in this order:

1. the assistant's system prompt, byte-identical, never compressed;
2. pinned session facts;
3. long-term memories recalled for this user and this message (memory.services.recall.recall.memory_recall);
4. the task in progress (pre-turn hook section "task") and the reply hints;
5. the rolling summary of everything up to ChatSession.summary_through, as its own system message;
6. every message after summary_through verbatim (the window; compaction moves old ones into the summary), then
   the new user message.

Each section stays under its budget from the turn's policy (resolved once by the turn, tenant + assistant, and
used by recall too); the whole stays under
context_limit_tokens - reply_reserve_tokens. When unsummarised messages do not fit the window budget (compaction
has not caught up), the oldest of them are not dropped silently: an extractive digest of them is added after the
summary, so there is never a gap between summary and window.
"""

from __future__ import annotations

import json
import logging
from concurrent.futures import Future
from dataclasses import dataclass

from django.db.models.fields.json import KT

from assistants.llm import sections
from assistants.llm.offline import offline_summary_merge
from assistants.services.pinned import pinned_lines
from assistants.services.recall_early import MIN_BUDGET, recall_early_result
from assistants.services.tokens import (
    MESSAGE_OVERHEAD,
    REPLY_PRIMING,
    token_count,
    token_count_messages,
    token_truncate,
)
from assistants.services.turn_context import TurnContext
from core.policy import MemoryPolicy
from core.text import mostly_chinese
from tenancy.models import MESSAGE_REPLACED_KEY, ChatSession, Message

logger = logging.getLogger(__name__)

TRUNCATE_TAIL_SHARE = 0.2  # share of a truncated message's budget kept from its end


def _section(header: str, lines: list[str]) -> str:
    return header + "\n" + "\n".join(f"- {ln}" for ln in lines)


def _fit_lines(header: str, lines: list[str], budget: int) -> list[str]:
    """The longest prefix of `lines` whose section fits `budget` tokens (a too-long line is cut)."""
    kept: list[str] = []
    for line in lines:
        candidate = kept + [line]
        if token_count(_section(header, candidate)) + MESSAGE_OVERHEAD <= budget:
            kept = candidate
            continue
        room = budget - MESSAGE_OVERHEAD - token_count(_section(header, kept + [""]))
        if room > 8:
            kept.append(token_truncate(line, room - 2) + "…")
        break
    return kept


def _early_still_true(early: Future | None, hook_results: list[dict]) -> Future | None:
    """The recall started before the turn's hooks, unless a hook forgot, replaced or settled a note: that recall
    would bring back what the turn just changed, so it is dropped and the memories are recalled again."""
    for result in hook_results:
        data = result.get("data") or {}
        if result.get("section") == "memory" and (data.get("forgotten") or data.get("places") or "settled" in data):
            if early is not None:
                early.cancel()
            return None
    return early


def _recall(*, tenant, session, text: str, budget: int, policy: MemoryPolicy, early: Future | None = None) -> list:
    try:
        from memory.services.recall.recall import memory_recall

        if early is not None:  # started before the message was stored (assistants.services.recall_early)
            found = recall_early_result(early, budget)
            if found is not None:
                return found

        # counted as recalled after the reply (chat_turn_stream), not while the user waits for it
        return list(
            memory_recall(
                tenant=tenant,
                end_user=session.end_user,
                query=text,
                budget_tokens=budget,
                exclude_session_id=session.id,
                touch=False,
                for_context=True,
                policy=policy,
            )
            or []
        )
    except Exception:
        logger.exception("memory_recall failed; continuing without long-term memories")
        return []


def _user_turn(message: Message, budget: int) -> tuple[dict, bool]:
    """(the user's message as sent to the model, whether it was cut): whole, or its head and tail with a note
    when over `budget`."""
    text = message.content
    if token_count(text) + MESSAGE_OVERHEAD <= budget:
        return {"role": "user", "content": text}, False
    template = sections.TRUNCATED_NOTE_ZH if mostly_chinese(text[:2000]) else sections.TRUNCATED_NOTE_EN
    note = template.format(chars=f"{len(text):,}")
    room = max(16, budget - MESSAGE_OVERHEAD - token_count(note) - 4)
    content = token_truncate(text, room, keep_tail_tokens=int(room * TRUNCATE_TAIL_SHARE)) + "\n" + note
    return {"role": "user", "content": content}, True


def context_build(
    *,
    tenant,
    session: ChatSession,
    user_message: Message,
    policy: MemoryPolicy,
    hook_results: list[dict] | None = None,
    recall: bool = True,
    early_recall: Future | None = None,
) -> TurnContext:
    """Assemble the TurnContext for `user_message` (already stored) in `session`. `recall=False` (a temporary chat,
    memory off): no long-term memories. `early_recall`: the turn's recall, started early (services.recall_early)."""
    hook_results = hook_results or []
    total_budget = policy.context_limit_tokens - policy.reply_reserve_tokens
    system = {"role": "system", "content": session.assistant.system_prompt}
    remaining = total_budget - token_count_messages([system])  # includes the reply priming once

    # The new user message first: it must be sent whatever else is cut.
    user, truncated = _user_turn(user_message, min(policy.budget_window_tokens, max(remaining, 0)))
    remaining -= token_count(user["content"]) + MESSAGE_OVERHEAD

    # 2. Pinned facts, 4. task state and reply hints
    pinned_msg, hooks, remaining = _fixed_sections(session, user_message, hook_results, policy, remaining)

    # 6. and 5. The conversation so far: the window and the summary, leaving memories their share.
    history = _history(
        tenant=tenant, session=session, user_message=user_message, policy=policy, remaining=remaining, user=user
    )

    # 3. Long-term memories, within what is left, from the state this turn's hooks left.
    memories, memories_msg = _memories_section(
        tenant=tenant,
        session=session,
        text=user_message.content[:4000],
        budget=min(policy.budget_memories_tokens, max(history.remaining, 0)),
        policy=policy,
        recall=recall,
        early=_early_still_true(early_recall, hook_results),
    )

    sections_in_order = [system, pinned_msg, memories_msg, hooks.task_msg, hooks.hints_msg, *history.summary_msgs]
    messages, count = _messages_counted(sections_in_order, history.window, user, total_budget, session=session)
    return TurnContext(
        messages=messages,
        summary=history.summary,
        pinned_facts=dict(session.pinned_facts or {}),
        memories=memories,
        task=hooks.task,
        hints=hooks.hints,
        hint_sections=hooks.hint_sections,
        experience_ids=hooks.experience_ids,
        token_count=count,
        window_message_ids=[r["id"] for r in history.window],
        truncated=truncated,
        unsummarised_before=history.unsummarised,
    )


def _fixed_sections(
    session: ChatSession, user_message: Message, hook_results: list[dict], policy: MemoryPolicy, remaining: int
) -> tuple[dict | None, _HookSections, int]:
    """(pinned message, hook sections, tokens left): the sections the turn sends whatever the history's length,
    each within its own budget and taken before the history, since they state what the reply must respect. The
    pinned facts are labelled in the user's language; the hints are fitted before the task state."""
    chinese = mostly_chinese(user_message.content[:2000])
    pinned_msg = _pinned_section(session, chinese=chinese, budget=min(policy.budget_pinned_tokens, remaining))
    remaining -= token_count_messages([pinned_msg]) - REPLY_PRIMING if pinned_msg else 0
    hooks = _hook_sections(hook_results, min(policy.budget_task_tokens, remaining))
    remaining -= sum(token_count(m["content"]) + MESSAGE_OVERHEAD for m in (hooks.hints_msg, hooks.task_msg) if m)
    return pinned_msg, hooks, remaining


@dataclass
class _History:
    """The conversation before the new message as it goes to the model: the verbatim window (oldest first), the
    summary section, how many messages were unsummarised, and the tokens left after both."""

    window: list[dict]
    summary: str
    summary_msgs: list[dict]
    unsummarised: int
    remaining: int


def _history(
    *, tenant, session: ChatSession, user_message: Message, policy: MemoryPolicy, remaining: int, user: dict
) -> _History:
    """The window and the summary within `remaining` tokens. The window is sized first, after setting aside the
    summary's and the memories' budgets, so that a long conversation cannot crowd recall out; the summary then
    takes what the window left, and carries a digest of the messages the window could not hold (no gap)."""
    user_tokens = token_count(user["content"]) + MESSAGE_OVERHEAD
    unsummarised = _unsummarised_rows(tenant=tenant, session=session, user_message=user_message)
    summary_budget = min(policy.budget_summary_tokens, max(remaining, 0))
    memories_budget = min(policy.budget_memories_tokens, max(remaining - summary_budget, 0))
    window_budget = min(policy.budget_window_tokens - user_tokens, max(remaining - summary_budget - memories_budget, 0))
    window, overflow, used = _window(unsummarised, window_budget)
    remaining -= used
    summary_text = session.summary or ""
    summary_msgs = _summary_messages(session, overflow, min(policy.budget_summary_tokens, max(remaining, 0)))
    remaining -= sum(token_count(m["content"]) + MESSAGE_OVERHEAD for m in summary_msgs)
    return _History(window, summary_text, summary_msgs, len(unsummarised), remaining)


def _messages_counted(
    sections_in_order: list[dict | None], window: list[dict], user: dict, total_budget: int, *, session: ChatSession
) -> tuple[list[dict], int]:
    """(the messages sent, their token count): the system sections present, then the window as plain
    role/content messages, then the new user message. Each section was cut to its budget already, so going over
    the total only means an estimate was off: it is logged, never raised, and the turn goes on."""
    messages = [m for m in sections_in_order if m]
    messages += [{"role": r["role"], "content": r["content"]} for r in window]
    messages.append(user)
    count = token_count_messages(messages)
    if count > total_budget and len(messages) > 2:
        logger.warning("context over budget (%s > %s) for session %s", count, total_budget, session.pk)
    return messages, count


def _pinned_section(session: ChatSession, *, chinese: bool, budget: int) -> dict | None:
    """The session's pinned facts as a system message within `budget` tokens (None when there are none), labelled
    in the user's language."""
    pinned = _fit_lines(sections.PINNED, pinned_lines(session.pinned_facts, chinese=chinese), budget)
    return {"role": "system", "content": _section(sections.PINNED, pinned)} if pinned else None


def _memories_section(
    *, tenant, session: ChatSession, text: str, budget: int, policy: MemoryPolicy, recall: bool, early: Future | None
) -> tuple[list, dict | None]:
    """(the recalled memories shown, their system message or None): recalled for `text` within `budget` tokens,
    only when `recall` is on and the budget leaves room for one (over 32 tokens); cut to the lines that fit."""
    memories = (
        _recall(tenant=tenant, session=session, text=text, budget=budget, policy=policy, early=early)
        if recall and budget > MIN_BUDGET
        else []
    )
    memories = _not_changed_now(text, memories)
    memory_lines = _fit_lines(sections.MEMORIES, [m.content for m in memories], budget)
    memories = memories[: len(memory_lines)]
    memories_msg = {"role": "system", "content": _section(sections.MEMORIES, memory_lines)} if memory_lines else None
    return memories, memories_msg


def _not_changed_now(text: str, memories: list) -> list:
    """The recalled memories without the note this very message changes ("I moved to Berlin" against "The user
    lives in Paris": memory.reading.changes): the reply answers from the new state, and extraction replaces the
    note after the turn."""
    from memory.reading.changes import change_read, says_change

    notes = [m for m in memories if m.type == "note"]
    if not notes or not says_change(text):
        return memories
    change = change_read(text, [_AsNote(m) for m in notes])
    return [m for m in memories if change is None or m is not change.note.item]


@dataclass
class _AsNote:
    """A recalled note as memory.reading.changes compares notes (content, slot key, id)."""

    item: object

    @property
    def content(self) -> str:
        return self.item.content  # type: ignore[attr-defined]

    @property
    def pk(self) -> int:
        return self.item.id  # type: ignore[attr-defined]

    key = ""


@dataclass
class _HookSections:
    """What the pre-turn hooks put in context: the task state and the reply hints, as system messages (None when
    empty), and the data TurnContext reports about them."""

    task: dict | None
    hints: list[str]
    hint_sections: list[str]
    experience_ids: list[int]
    hints_msg: dict | None
    task_msg: dict | None


def _hook_sections(hook_results: list[dict], task_budget: int) -> _HookSections:
    """The hooks' task and hint sections within `task_budget` tokens; the hints are fitted first, since the reply
    must say them, and the task state gets what they leave."""
    task = next((h.get("data") for h in hook_results if h.get("section") == "task"), None)
    hinted = [h for h in hook_results if h.get("reply_hint")]
    hints = [h["reply_hint"] for h in hinted]
    hint_sections = [h.get("section") or "" for h in hinted]
    experience_ids = [
        i
        for h in hook_results
        if h.get("section") == "experience"
        for i in (h.get("data") or {}).get("experience_ids", [])
    ]
    hint_lines = _fit_lines(sections.HINTS, hints, task_budget)
    hints_msg = {"role": "system", "content": _section(sections.HINTS, hint_lines)} if hint_lines else None
    task_budget -= token_count(hints_msg["content"]) + MESSAGE_OVERHEAD if hints_msg else 0
    task_msg = None
    if task:
        task_text = json.dumps(task, ensure_ascii=False, default=str)
        task_lines = _fit_lines(sections.TASK, [task_text], task_budget)
        task_msg = {"role": "system", "content": _section(sections.TASK, task_lines)} if task_lines else None
    return _HookSections(task, hints, hint_sections, experience_ids, hints_msg, task_msg)


def _unsummarised_rows(*, tenant, session: ChatSession, user_message: Message) -> list[dict]:
    """The session's messages before `user_message` and after summary_through, newest first. A reply regenerated
    or a message edited since (assistants.services.alternatives) is an earlier version: kept for the person to
    see, never sent again."""
    unsummarised = (
        Message.objects.for_tenant(tenant)
        .filter(session=session, id__lt=user_message.id)
        .exclude(metadata__has_key=MESSAGE_REPLACED_KEY)
    )
    if session.summary_through_id:
        unsummarised = unsummarised.filter(id__gt=session.summary_through_id)
    # of the metadata only the model is read (whether a reply was the offline model's): a reply's metadata holds
    # what it was built from, and decoding all of it for every unsummarised message was a third of this read
    return list(
        unsummarised.order_by("-id").values("id", "role", "content", "token_count", model=KT("metadata__model"))
    )


def _window(unsummarised: list[dict], window_budget: int) -> tuple[list[dict], list[dict], int]:
    """(window, overflow, tokens used), both oldest first: the newest messages that fit `window_budget` in a row,
    and every older one (overflow), so the window has no gap and the summary digest covers the rest."""
    window: list[dict] = []
    overflow: list[dict] = []
    used = 0
    for row in unsummarised:
        cost = (row["token_count"] or token_count(row["content"])) + MESSAGE_OVERHEAD
        if not overflow and used + cost <= window_budget:
            window.append(row)
            used += cost
        else:
            overflow.append(row)
    window.reverse()
    overflow.reverse()
    return window, overflow, used


def _summary_messages(session: ChatSession, overflow: list[dict], summary_budget: int) -> list[dict]:
    """The summary section within `summary_budget`: the session's summary, plus an offline digest of the
    unsummarised messages that did not fit the window (no gap, no overlap). Empty when there is neither."""
    summary_text = session.summary or ""
    summary_msgs: list[dict] = []
    if not (summary_text or overflow):
        return summary_msgs
    body = summary_text
    if overflow:
        digest = offline_summary_merge(
            old_summary="",
            messages=[
                {
                    "role": r["role"],
                    "content": r["content"],
                    "offline": r["model"] == "offline",
                }
                for r in overflow
            ],
            max_tokens=max(summary_budget // 2, 16),
            pinned_facts=session.pinned_facts,
        )
        if digest:
            body_budget = summary_budget - token_count(sections.UNCOMPACTED) - MESSAGE_OVERHEAD - 8
            body = (summary_text + "\n" if summary_text else "") + sections.UNCOMPACTED + "\n" + digest
            body = token_truncate(body, max(body_budget, 0))
    if body:
        content = token_truncate(sections.SUMMARY + "\n" + body, max(summary_budget - MESSAGE_OVERHEAD, 0))
        if content.strip() and content.strip() != sections.SUMMARY:
            summary_msgs.append({"role": "system", "content": content})
    return summary_msgs
