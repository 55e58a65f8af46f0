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

from assistants.llm import sections
from core.text import cn_number, mostly_chinese

PREFIX_ZH = "（离线模型）"
PREFIX_EN = "(offline model) "


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


def parse_ratio(text: str) -> float | None:
    """ "两成" -> 0.2, "20%" -> 0.2, "三分之一" -> 1/3, "a fifth" -> 0.2."""
    m = re.search(r"(\d+(?:\.\d+)?)\s*(?:%|％|percent)", text)
    if m:
        return float(m.group(1)) / 100
    m = re.search(r"百分之([\d零一二两三四五六七八九十]+)", text)
    if m and cn_number(m.group(1)) is not None:
        return cn_number(m.group(1)) / 100
    m = re.search(r"([\d一二两三四五六七八九]+)\s*成", text)
    if m and cn_number(m.group(1)) is not None:
        return cn_number(m.group(1)) / 10
    m = re.search(r"([\d一二三四五六七八九十]+)分之([\d一二三四五六七八九]+)", text)
    if m:
        a, b = cn_number(m.group(1)), cn_number(m.group(2))
        return b / a if a and b is not None else None
    words = {"half": 0.5, "a third": 1 / 3, "a quarter": 0.25, "a fifth": 0.2, "a tenth": 0.1}
    for word, value in words.items():
        if word in text.lower():
            return value
    return None


def format_money(amount: float, unit: str) -> str:
    if unit == "zh":
        return f"{amount / 1e4:g} 万"
    if unit == "¥":
        return f"{amount:g} 元"
    return f"{unit}{amount:,.0f}"


def parse_context(messages: list[dict]) -> dict:
    """The sections of an assembled context, read back from the messages (see assistants.llm.sections)."""
    found = {
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
            f"{subject}最多 {format_money(cap, unit)}（{value}）"
            if chinese
            else f"{subject}: at most {format_money(cap, unit)} ({value})"
        )
    total = format_money(amount, unit)
    if chinese:
        text = f"按你的预算 {total} 来算："
        if parts:
            text += (
                "；".join(parts)
                + f"；其余 {format_money(amount - used, unit)} 留给租金押金、设备、首批物料和流动资金。"
            )
        else:
            text += f"先把各项开支逐项列出来，合计控制在 {total} 以内，并留出一部分应急。"
        return text
    text = f"Working from your budget of {total}: "
    if parts:
        text += (
            "; ".join(parts) + f"; the remaining {format_money(amount - used, unit)} covers rent and deposit, "
            "equipment, first stock and working capital."
        )
    else:
        text += f"list every expense item by item, keep the total within {total}, and hold some back for surprises."
    return text


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
    collected = task.get("collected") if isinstance(task.get("collected"), dict) else {}
    known = [f"{k}: {v.get('value') if isinstance(v, dict) else v}" for k, v in list(collected.items())[:6]]
    sep = "；" if chinese else "; "
    parts = [p for p in (name, progress) if p]
    if known:
        parts.append(("已知 " if chinese else "known: ") + sep.join(known))
    if missing:
        parts.append(("还差 " if chinese else "still missing: ") + ("、" if chinese else ", ").join(missing))
    return (sep if chinese else ", ").join(parts)[:400]


def offline_reply(messages: list[dict]) -> str:
    ctx = parse_context(messages)
    user = ctx["user"]
    chinese = mostly_chinese(user) if user.strip() else mostly_chinese(ctx["system"])
    out = [PREFIX_ZH if chinese else PREFIX_EN.strip()]
    out.extend(ctx["hints"])
    if ctx["pinned"]:
        out.append(
            ("已确认的关键信息：" if chinese else "What we have settled: ")
            + ("；" if chinese else "; ").join(ln.replace("\n", " ") for ln in ctx["pinned"])
        )
    if _ASKS_NUMBERS.search(user):
        plan = _budget_plan(ctx["pinned"], chinese)
        if plan:
            out.append(plan)
    if ctx["memories"]:
        out.append(("我记得：" if chinese else "I remember: ") + ("；" if chinese else "; ").join(ctx["memories"][:5]))
    if ctx["task"]:
        task_line = _task_line(ctx["task"], chinese)
        if task_line:
            out.append(("当前任务：" if chinese else "Task in progress: ") + task_line)
    if ctx["summary"]:
        out.append(("之前聊到：" if chinese else "Earlier we discussed: ") + " ".join(ctx["summary"][-4:])[:400])
    quoted = re.sub(r"\s+", " ", user).strip()
    quoted = quoted[:120] + ("…" if len(quoted) > 120 else "")
    # End users are not administrators: say that no model is connected, never how to configure one (README).
    if chinese:
        out.append(f"关于你刚才说的「{quoted}」：目前没有连接语言模型，我只能根据以上信息作答。")
    else:
        out.append(
            f'About "{quoted}": no language model is connected, so I can only answer from the information above.'
        )
    return "\n".join(out)


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


# --- extractive summary --------------------------------------------------------------------------------------
_GREETING = re.compile(
    r"^(?:(?:你好|您好|哈喽|嗨|在吗|谢谢|多谢|感谢|好的|好吧|嗯+|哈+|收到|明白|了解|辛苦了?|麻烦你了?|"
    r"再见|拜拜|早上好|晚上好|勇哥|老师|hi|hello|hey|thanks|thank you|ok|okay|great|cool|bye|"
    r"good (?:morning|evening|night)|sure|got it)(?![a-z])[\s,，.。!！~～]*)+",
    re.I,
)
_FACT = re.compile(
    r"\d|[零一二两三四五六七八九十百千]+\s*(?:万|千|成|个|人|天|月|年|平)|万|元|平米|㎡|预算|面积|品类|城市|区|"
    r"决定|定了|确定|就按|改成|换成|砍到|改到|提到|降到|不超|别超|必须|一定|不要|不能|只能|过敏|截止|之前|叫|"
    r"是|要|想|打算|准备|喜欢|不喜欢|住在|来自|"
    r"\bdecid|\bsettled|\bwill\b|\bmust\b|\bgoing with\b|\binstead\b|\bchange|\bbudget|\ballerg|\bdeadline|"
    r"\bnamed?\b|\bcalled\b|\bprefer|\bplan|\bneed|\bwant|\bam\b|\bis\b|\bare\b|\$|%",
    re.I,
)
_UNIT = (
    r"(?:\d+(?:[.,]\d+)?|[零一二两三四五六七八九十百千]+)\s*(?:万|千|百|元|块|成|平|㎡|%|％|个?人|名|位|员工|天|周|个月|月|年|号|日|"
    r"岁|公里|米|公斤|斤|小时|分钟|点|k\b|K\b|sq|square|people|persons|employees|staff|guests|days?\b|weeks?\b|"
    r"months?\b|years?\b|hours?\b|dollars|euros|pounds|yuan|percent|am\b|pm\b)"
)
_STRONG = re.compile(
    _UNIT + r"|[$€£¥]\s?\d|\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}|预算|面积|品类|决定|定了|定为|确定|就按|改成|"
    r"换成|砍到|不超|别超|必须|一定要|过敏|截止|叫做|名字|店名|\bdecid|\bsettled|\bmust\b|\binstead\b|"
    r"\bbudget|\ballerg|\bdeadline|\bnamed?\b|\bcalled\b|"
    # who the user is and what they like: 我是/我叫/我喜欢/I am a/I prefer ...
    r"我是|我叫|我姓|我喜欢|我不喜欢|我爱|我讨厌|我不吃|我只吃|我住在|我来自|我在.{1,8}工作|我的.{1,8}是|"
    r"\bI(?:'m| am) an? |\bI (?:prefer|like|love|hate|don't eat|never|always|live|work)\b|"
    r"\bmy \w+(?: \w+)? (?:is|are)\b",
    re.I,
)
_QUESTION = re.compile(
    r"[?？]$|吗[?？。]?$|^(?:what|how|why|when|where|which|who|can|could|should|do|does|is|are)\b", re.I
)
_SENTENCE_SPLIT = re.compile(r"(?<=[。！？!?；;\n])|(?<=\.)\s+")
MAX_LINE_TOKENS = 80


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_SPLIT.split(text) if s and s.strip()]


def line_priority(line: str) -> int:
    """2: a fact or decision; 1: another statement; 0: a question or small talk."""
    body = re.sub(r"^(?:用户|助手|User|Assistant)[:：]\s*", "", line)
    body = re.sub(r"（[^）]*已改为[^）]*）|\((?:[^)]*later changed to[^)]*)\)", "", body)
    if _STRONG.search(body):
        return 2
    if _QUESTION.search(body.strip()) or len(body) < 6:
        return 0
    return 1 if _FACT.search(body) else 0


def _speaker(role: str, chinese: bool) -> str:
    if role == "assistant":
        return "助手：" if chinese else "Assistant: "
    return "用户：" if chinese else "User: "


def summary_lines(summary: str) -> list[str]:
    return [ln[2:].strip() if ln.startswith("- ") else ln.strip() for ln in (summary or "").splitlines() if ln.strip()]


def offline_summary_merge(
    *, old_summary: str, messages: list[dict], max_tokens: int, pinned_facts: dict | None = None
) -> str:
    """Merge `messages` ({"role", "content", "offline": bool}) into `old_summary`; at most `max_tokens` tokens.

    Never starts from scratch: every line of the old summary is kept unless the cap forces it out, and then the
    least useful go first (small talk, then other statements, then facts the pinned facts already hold, oldest
    first within each group). A line whose value the user later changed is marked "（…已改为…）" so that an old
    value is never presented as current."""
    from assistants.services.pinned import pinned_facts_extract, pinned_label
    from assistants.services.tokens import token_count, token_truncate

    lines = summary_lines(old_summary)
    seen = {re.sub(r"\W", "", ln) for ln in lines}
    parsed: list[tuple[str, dict] | None] = [None] * len(lines)  # each line's facts, read once per merge
    for message in messages:
        if message.get("offline") or message.get("role") not in ("user", "assistant"):
            continue  # the offline model's replies only echo the context: nothing new to keep
        for sentence in _sentences(message["content"]):
            sentence = _GREETING.sub("", sentence).strip(" ，,。.")
            if len(sentence) < 2 or line_priority(sentence) == 0:
                continue
            if message["role"] == "assistant" and line_priority(sentence) < 2:
                continue
            chinese = mostly_chinese(sentence)
            if token_count(sentence) > MAX_LINE_TOKENS:
                sentence = token_truncate(sentence, MAX_LINE_TOKENS) + "…"
            line = _speaker(message["role"], chinese) + sentence
            key = re.sub(r"\W", "", line)
            if key in seen:
                continue
            new_facts, _ = pinned_facts_extract(sentence) if message["role"] == "user" else ({}, set())
            for fact_key, value in new_facts.items():
                if fact_key in ("rules", "allergy"):
                    continue
                for i, old in enumerate(lines):
                    facts_of_line = parsed[i]
                    if facts_of_line is None:
                        facts_of_line = parsed[i] = _line_facts(old)
                    old_body, old_facts = facts_of_line  # a "changed to" note leaves the body, so its facts, alone
                    if fact_key in old_facts and old_facts[fact_key] != value:
                        zh = mostly_chinese(old_body)
                        label = pinned_label(fact_key, chinese=zh)
                        note = f"（{label}已改为 {value}）" if zh else f" ({label} later changed to {value})"
                        lines[i] = old_body + note
            lines.append(line)
            parsed.append(None)
            seen.add(key)

    _summary_trim(lines, max_tokens=max_tokens, pinned_facts=pinned_facts)
    return "\n".join(f"- {ln}" for ln in lines)


_TRIM_SLACK = 16  # tokens: below this far over the cap, the exact count of the joined text decides


def _line_facts(line: str) -> tuple[str, dict]:
    """A summary line without its "changed to" note, and the facts it states."""
    from assistants.services.pinned import pinned_facts_extract

    body = re.sub(r"（[^）]*）$|\([^)]*later changed[^)]*\)$", "", line)
    return body, pinned_facts_extract(re.sub(r"^(?:用户|User)[:：]\s*", "", body))[0]


def _summary_trim(lines: list[str], *, max_tokens: int, pinned_facts: dict | None) -> None:
    """Drop lines (in place) until the summary fits `max_tokens`: small talk first, then other statements, then
    superseded values, then facts the pinned facts already hold, then any, oldest first within each group.

    Linear in the number of lines: each line's tokens are counted once and the running sum decides while the
    summary is clearly over the cap; only near the cap is the joined text counted exactly (and once per change),
    so the result is never over the cap."""
    from assistants.services.tokens import token_count

    def total(ls: list[str]) -> int:
        return token_count("\n".join(f"- {ln}" for ln in ls))

    if total(lines) <= max_tokens:
        return
    pinned_values = [str(v.get("value", "")) for v in (pinned_facts or {}).values()]

    def redundant(line: str) -> bool:
        return line_priority(line) == 2 and any(v and v in line for v in pinned_values)

    def superseded(line: str) -> bool:
        return bool(re.search(r"已改为|later changed to", line))

    costs = [token_count(f"- {ln}\n") for ln in lines]
    state = {"estimate": sum(costs), "exact": None}

    def over() -> bool:
        if state["estimate"] > max_tokens + _TRIM_SLACK:
            return True
        if state["exact"] is None:
            state["exact"] = total(lines)
        return state["exact"] > max_tokens

    for test in (
        lambda ln: line_priority(ln) == 0,
        lambda ln: line_priority(ln) == 1,
        superseded,
        redundant,
        lambda ln: True,
    ):
        i = 0
        while i < len(lines) and over():
            if test(lines[i]):
                lines.pop(i)
                state["estimate"] -= costs.pop(i)
                state["exact"] = None
            else:
                i += 1
