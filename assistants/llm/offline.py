"""The offline provider: deterministic, rule-based, no network. It exists so that `make run` works on a machine
with no model, and it says so in every reply.

- OfflineChatModel answers from the context it is sent (and nothing else): it repeats every reply hint verbatim,
  lists the pinned facts, recalled notes, task state and summary it was given, answers in the user's language,
  and, when the user asks for a calculation with their budget, splits the budget by the limits they set.
- offline_summary_merge() is the extractive summariser used by compaction: it merges the sentences of the dropped
  messages into the existing summary, keeps facts (amounts, places, sizes, categories, dates, decisions,
  constraints), drops greetings, marks values the user later changed, and caps the length.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from django.utils.translation import gettext, pgettext

from assistants.llm import sections

# `... as`: callers (compaction, context, tests) import the summary from here; it lives in offline_summary.
from assistants.llm.offline_summary import offline_summary_merge as offline_summary_merge
from assistants.llm.offline_summary import summary_lines as summary_lines
from assistants.llm.offline_tools import offline_tool_calls, offline_tool_lines
from core.i18n import user_language
from core.text import cn_number, mostly_chinese, share_of


def parse_money(text: str) -> tuple[float, str] | None:
    """("40 万" -> (400000, "zh")), ("$50,000" -> (50000, "$")), ("60k" -> (60000, "$")). None if no amount."""
    m = re.search(r"(\d+(?:[.,]\d+)*|[零一二两三四五六七八九十百千]+)\s*(百万|千万|万|千|亿|w|W)", text)
    if m:
        number = cn_number(m.group(1))
        scale = {"百万": 1e6, "千万": 1e7, "万": 1e4, "千": 1e3, "亿": 1e8, "w": 1e4, "W": 1e4}[m.group(2)]
        return (number * scale, "zh") if number is not None else None
    m = re.search(r"(\$|€|£|¥)?\s?(\d[\d,]*(?:\.\d+)?)\s*(k|K|m|M|million|thousand|grand)?", text)
    if m:
        number = float(m.group(2).replace(",", ""))
        scale = {"k": 1e3, "K": 1e3, "thousand": 1e3, "grand": 1e3, "m": 1e6, "M": 1e6, "million": 1e6}.get(
            m.group(3), 1
        )
        # the currency as written: "20,000 euros" stays euros, never "$20,000"
        word = next(
            (
                sym
                for sym, rx in (("€", r"euros?\b|eur\b|欧元"), ("£", r"pounds?\b|gbp\b|英镑"), ("¥", r"元|块|rmb|yuan"))
                if re.search(rx, text, re.I)
            ),
            "$",
        )
        return number * scale, m.group(1) or word
    return None


parse_ratio = share_of  # "两成", "20%", "三分之一", "a fifth": the toolkit's reader, the one memory's rules use


def format_money(amount: float, unit: str) -> str:
    if unit == "zh":
        return f"{amount / 1e4:g} 万"
    if unit == "¥":
        return f"{amount:g} 元"
    return f"{unit}{amount:,.0f}"


def parse_context(messages: list[dict]) -> dict:
    """The sections of an assembled context, read back from the messages (see assistants.llm.sections)."""
    found: dict[str, Any] = {  # str for system and user, a list of lines (history: of messages) for the others
        "system": "",
        "pinned": [],
        "memories": [],
        "task": [],
        "hints": [],
        "summary": [],
        "user": "",
        "history": [],
    }
    keyed = {
        sections.PINNED: "pinned",
        sections.MEMORIES: "memories",
        sections.TASK: "task",
        sections.HINTS: "hints",
        sections.SUMMARY: "summary",
        sections.UNCOMPACTED: "summary",
    }
    for i, message in enumerate(messages):
        content = message.get("content") or ""
        if message["role"] == "system":
            first, _, rest = content.partition("\n")
            if first.strip() in keyed:
                lines = [ln.strip() for ln in rest.splitlines() if ln.strip()]
                found[keyed[first.strip()]].extend(ln[2:] if ln.startswith("- ") else ln for ln in lines)
            elif i == 0:
                found["system"] = content
        else:
            found["history"].append(message)
    users = [m for m in found["history"] if m["role"] == "user"]
    found["user"] = users[-1]["content"] if users else ""
    return found


_ASKS_NUMBERS = re.compile(
    r"预算|算算|算一下|怎么分|分配|多少钱|花多少|budget|calculat|afford|split|allocate|"
    r"how much|cost|spend",
    re.I,
)


def _budget_plan(pinned: list[str], chinese: bool) -> str:
    with user_language(chinese):
        return _budget_plan_text(pinned, chinese)


def _budget_plan_text(pinned: list[str], chinese: bool) -> str:
    budget_line = next((ln for ln in pinned if re.match(r"^(预算|Budget)\s*[:：]", ln)), None)
    if not budget_line:
        return ""
    budget = parse_money(budget_line.split(":", 1)[-1].split("：", 1)[-1])
    if not budget:
        return ""
    amount, unit = budget
    parts, used = [], 0.0
    for line in pinned:
        m = re.match(r"^(.+?)上限\s*[:：]\s*(.+)$|^Limit on (.+?)\s*:\s*(.+)$", line)
        if not m:
            continue
        subject, value = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        ratio = parse_ratio(value)
        money = None if ratio else parse_money(value)
        cap = amount * ratio if ratio else (money[0] if money else None)
        if cap is None or cap > amount:
            continue
        used += cap
        parts.append(
            gettext("%(subject)s: at most %(cap)s (%(value)s)")
            % {"subject": subject, "cap": format_money(cap, unit), "value": value}
        )
    total = format_money(amount, unit)
    if parts:
        return gettext(
            "Working from your budget of %(total)s: %(parts)s; the remaining %(rest)s covers rent and deposit, "
            "equipment, first stock and working capital."
        ) % {
            "total": total,
            "parts": ("；" if chinese else "; ").join(parts),
            "rest": format_money(amount - used, unit),
        }
    return gettext(
        "Working from your budget of %(total)s: list every expense item by item, keep the total within %(total)s, "
        "and hold some back for surprises."
    ) % {"total": total}


def _task_line(lines: list[str], chinese: bool) -> str:
    """The task state as a sentence for a person: its name, progress and what is still missing. The context
    carries it as JSON (assistants.services.context); the raw JSON, ids and versions are never shown."""
    try:
        task = json.loads(" ".join(lines))
    except ValueError:
        return ""
    if not isinstance(task, dict):
        return ""

    def label(item) -> str:
        if isinstance(item, dict):
            return str(item.get("label") or item.get("name") or item.get("field") or "")
        return str(item)

    name = str(task.get("task") or task.get("task_name") or task.get("name") or task.get("type") or "").strip()
    progress = str(task.get("progress") or "").strip()
    missing = [label(f) for f in (task.get("pending") or task.get("pending_fields") or task.get("missing") or [])]
    missing = [m for m in missing if m][:6]
    collected = task.get("collected")
    if not isinstance(collected, dict):
        collected = {}
    known = [f"{k}: {v.get('value') if isinstance(v, dict) else v}" for k, v in list(collected.items())[:6]]
    sep = "；" if chinese else "; "
    parts = [p for p in (name, progress) if p]
    with user_language(chinese):
        if known:
            parts.append(pgettext("offline task line", "known: %(values)s") % {"values": sep.join(known)})
        if missing:
            parts.append(
                pgettext("offline task line", "still missing: %(fields)s")
                % {"fields": ("、" if chinese else ", ").join(missing)}
            )
    return (sep if chinese else ", ").join(parts)[:400]


def offline_reply(messages: list[dict]) -> str:
    ctx = parse_context(messages)
    user = ctx["user"]
    chinese = mostly_chinese(user) if user.strip() else mostly_chinese(ctx["system"])
    with user_language(chinese):
        return "\n".join(_reply_lines(ctx, chinese))


def _reply_lines(ctx: dict, chinese: bool) -> list[str]:
    """The reply's lines, in the language active (the user's: offline_reply)."""
    user = ctx["user"]
    sep = "；" if chinese else "; "
    out = [gettext("(offline model)"), *ctx["hints"]]
    if ctx["pinned"]:
        out.append(
            gettext("What we have settled: %(facts)s")
            % {"facts": sep.join(ln.replace("\n", " ") for ln in ctx["pinned"])}
        )
    if _ASKS_NUMBERS.search(user):
        plan = _budget_plan(ctx["pinned"], chinese)
        if plan:
            out.append(plan)
    if ctx["memories"]:
        out.append(gettext("I remember: %(notes)s") % {"notes": sep.join(ctx["memories"][:5])})
    if ctx["task"]:
        task_line = _task_line(ctx["task"], chinese)
        if task_line:
            out.append(gettext("Task in progress: %(task)s") % {"task": task_line})
    if ctx["summary"]:
        out.append(gettext("Earlier we discussed: %(summary)s") % {"summary": " ".join(ctx["summary"][-4:])[:400]})
    quoted = re.sub(r"\s+", " ", user).strip()
    quoted = quoted[:120] + ("…" if len(quoted) > 120 else "")
    # End users are not administrators: say that no model is connected, never how to configure one (README).
    out.append(
        gettext('About "%(quoted)s": no language model is connected, so I can only answer from the information above.')
        % {"quoted": quoted}
    )
    return out


class OfflineChatModel:
    """Deterministic replies built from the assembled context, for machines with no model."""

    name = "offline"
    offline = True

    def complete(self, messages: list[dict], **kwargs) -> str:
        return offline_reply(messages)

    def stream(self, messages: list[dict]) -> Iterator[str]:
        text = self.complete(messages)
        for i in range(0, len(text), 16):
            yield text[i : i + 16]

    def stream_round(self, messages: list[dict], *, tools: list[dict], tool_choice, calls: list[dict]) -> Iterator[str]:
        """One round of a turn that offers tools (assistants.llm.offline_tools): calls, or the reply with the
        results of this turn's calls in it."""
        asked = offline_tool_calls(messages, tools, tool_choice)
        if asked:
            calls.extend(asked)
            return
        lines = self.complete(messages).split("\n")
        text = "\n".join([lines[0], *offline_tool_lines(messages), *lines[1:]])
        for i in range(0, len(text), 16):
            yield text[i : i + 16]
