"""The offline provider's summary (assistants.llm.offline): extractive, deterministic, no network. Facts and
decisions outrank other statements, which outrank questions and small talk; an old summary is merged, never
rewritten."""

from __future__ import annotations

import re

from core.text import mostly_chinese

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
    # Not gettext: the speaker labels and the "changed to" note are the summary's stored format, which
    # line_priority() and _line_facts() read back with fixed patterns; a translation must not change them.
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
    estimate = sum(costs)  # the lines' own counts; the joined text's exact count is taken only near the cap
    exact: int | None = None

    def over() -> bool:
        nonlocal exact
        if estimate > max_tokens + _TRIM_SLACK:
            return True
        if exact is None:
            exact = total(lines)
        return exact > max_tokens

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
                estimate -= costs.pop(i)
                exact = None
            else:
                i += 1
