"""Experience memory's generalisation (tasks.services.experience): a liked procedure turned into what may be
shared, by rules in both languages. Quantities, amounts and dates become their order of magnitude, specific
material its general kind; a reply is cut into steps clause by clause, keeping only the clauses
tasks.services.experience_privacy finds nothing of the user in; a finished task is described by its kind and
bucketed values, never the user's own."""

from __future__ import annotations

import hashlib
import re

from core.text import CJK, language_of
from tasks.models import TaskState
from tasks.selectors import task_state_completion_prompt
from tasks.services.experience_privacy import clause_private_reason
from tasks.services.field_extraction import field_kind, number_value

_QUANTITY = re.compile(
    r"(\d[\d,]*(?:\.\d+)?|[零〇一二两三四五六七八九十百千万]+)\s*(?:多)?\s*(万|千|百)?\s*"
    r"(条|个|份|篇|张|件|次|封|行|段|本|位|名|家|单|笔|(?:[a-z]+\s+){0,2}?(?:items?|records?|rows?|messages?|"
    r"conversations?|chats?|emails?|tickets?|reviews?|comments?|documents?|files?|images?|"
    r"photos?|orders?|customers?|users?|people|lines?|pages?))",
    re.IGNORECASE,
)
_MONEY = re.compile(
    r"[¥￥$€£]\s*\d[\d,]*(?:\.\d+)?\s*(?:万|千|k|m|million|thousand)?|"
    r"(?:\d[\d,]*(?:\.\d+)?|[零一二两三四五六七八九十百千]+)\s*(?:万|千|亿)?\s*(?:元|块|人民币|美元)|"
    r"\d[\d,]*(?:\.\d+)?\s*(?:万|亿)|\b\d[\d,]*(?:\.\d+)?\s*(?:k|million|thousand)?\s*"
    r"(?:dollars|usd|euros?|rmb|yuan)\b|\b\d+(?:\.\d+)?k\b",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"\d{4}[-/.年]\d{1,2}(?:[-/.月]\d{1,2}[日号]?)?|\d{1,2}月(?:\d{1,2}[日号]|底|初|中旬|下旬|上旬)?|"
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december)"
    r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+\d{4})?",
    re.IGNORECASE,
)
_GENERIC_NOUNS = [  # specific material -> the general kind of task it is (rules, both languages)
    (re.compile(r"客服对话|聊天记录|对话记录|用户评论|评论|留言|工单|邮件|反馈|问卷回答|文章|新闻"), "文本"),
    (re.compile(r"照片|图片|截图|图像"), "图像"),
    (
        re.compile(
            r"\b(?:customer[- ]service conversations?|support tickets?|chat logs?|reviews?|comments?|emails?|"
            r"feedback|articles?|tickets?|conversations?)\b",
            re.IGNORECASE,
        ),
        "texts",
    ),
    (re.compile(r"\b(?:photos?|pictures?|screenshots?|images?)\b", re.IGNORECASE), "images"),
]


def _magnitude(number: float, zh: bool) -> str:
    if number >= 1000:
        return "大批量" if zh else "large batches of"
    if number >= 50:
        return "批量" if zh else "batches of"
    return "少量" if zh else "a few"


def _count_bucket(number: float, zh: bool) -> str:
    if number <= 10:
        return "小团队（10 人以内）" if zh else "a small team (up to 10)"
    if number <= 50:
        return "中等团队（11-50 人）" if zh else "a mid-size team (11-50)"
    return "大团队（50 人以上）" if zh else "a large team (over 50)"


def _amount_bucket(number: float, zh: bool) -> str:
    if number >= 1e6:
        return "百万级" if zh else "millions"
    if number >= 1e5:
        return "十万级" if zh else "hundreds of thousands"
    if number >= 1e4:
        return "万级" if zh else "tens of thousands"
    return "万以下" if zh else "under ten thousand"


_TASK_KINDS = [  # what is being done, in general terms (rules, both languages)
    (
        re.compile(
            r"分类|归类|分成几类|分成.{0,4}类|打标签|贴标签|\bclassif|\bcategori[sz]|\bsort\w* .{0,20}(?:into|by)|"
            r"\blabel",
            re.IGNORECASE,
        ),
        "分类",
        "classification",
    ),
    (re.compile(r"摘要|总结|概括|\bsummar", re.IGNORECASE), "摘要", "summarisation"),
    (re.compile(r"翻译|\btranslat", re.IGNORECASE), "翻译", "translation"),
    (re.compile(r"提取|抽取|\bextract", re.IGNORECASE), "信息抽取", "extraction"),
    (re.compile(r"清洗|去重|\bclean|\bdedup", re.IGNORECASE), "清洗", "cleaning"),
    (re.compile(r"统计|分析|\banaly[sz]", re.IGNORECASE), "分析", "analysis"),
]
_MATERIAL = re.compile(r"(文本|图像|texts|images)", re.IGNORECASE)


def experience_generalise_offline(text: str) -> str:
    """Rules: quantities become magnitudes ("1000 条客服对话" -> "大批量文本"), amounts and dates become
    placeholders, specific material becomes its general kind, and a recognised kind of work names the task
    ("大批量文本分类任务"); otherwise the rewritten request is kept."""
    zh = language_of(text) == "zh"

    def quantity(m):
        base = number_value(m.group(1)) or 0
        base *= {"万": 1e4, "千": 1e3, "百": 1e2}.get(m.group(2) or "", 1)
        unit = m.group(3)
        if base < 2:
            return m.group(0)  # "一个", "one file": not a quantity worth generalising
        return _magnitude(base, zh) + ("" if CJK.match(unit) else " " + unit)

    out = _MONEY.sub("[金额]" if zh else "[amount]", text)
    out = _DATE.sub("[日期]" if zh else "[date]", out)
    out = _QUANTITY.sub(quantity, out)
    for pattern, generic in _GENERIC_NOUNS:
        out = pattern.sub(generic, out)
    out = re.sub(r"\d[\d,.]*", "若干" if zh else "some", out)
    out = re.sub(r"批量(?:处理)?\s*(大批量|批量|少量)", r"\1", out)
    out = re.sub(r"(大批量|批量|少量)处理", r"\1", out)
    magnitude = re.search(r"大批量|批量|少量|large batches of|batches of|a few", out)
    material = _MATERIAL.search(out)
    kind = next((k for k in _TASK_KINDS if k[0].search(text)), None)
    if kind is not None and material is not None:
        if zh:
            return f"{magnitude.group(0) if magnitude else ''}{material.group(1)}{kind[1]}任务"
        size = {"large batches of": "large-batch ", "batches of": "batch ", "a few": "small "}.get(
            magnitude.group(0) if magnitude else "", ""
        )
        return f"{size}{material.group(1).lower().rstrip('s')} {kind[2]} task"
    out = re.sub(r"^(?:请|帮我|帮忙|麻烦你?|我想|我要|我需要|能不能|可以)+", "", out.strip())
    out = re.sub(
        r"^(?:please\s+|can you\s+|could you\s+|help me\s+|i want to\s+|i need to\s+)+", "", out, flags=re.IGNORECASE
    )
    out = re.sub(r"\s+", "" if zh else " ", out).strip(" ，,。.!！?？")
    if zh:
        return out if out.endswith("任务") else out + "任务"
    return out if out.lower().endswith("task") else "task: " + out


def experience_embedding_text(text: str) -> str:
    """What is embedded for similarity: the generalised form without the words every summary shares."""
    previous = None
    while previous != text:  # drop (nested) parenthesised details
        previous, text = text, re.sub(r"（[^（）]*）|\([^()]*\)", "", text)
    core = experience_generalise_offline(text)
    core = re.sub(r"任务$|^task:\s*|\s*task$", "", core, flags=re.IGNORECASE)
    core = re.sub(r"^(?:我想|我要|我需要|想|要)?(?:做|搞|弄|写|定|制定|出|整)(?:一个|一份|一下|个|份)?", "", core)
    core = re.sub(
        r"^(?:make|do|create|write|draw up|put together|prepare|build)\s+(?:me\s+)?(?:a|an|the|some)?\s*",
        "",
        core,
        flags=re.IGNORECASE,
    )
    return core.strip() or text


def experience_task_generalised(state: TaskState, zh_hint: bool) -> tuple[str, str]:
    """A finished task described by its kind and generalised field values (never the user's values)."""
    zh = language_of(state.task_name) == "zh" or zh_hint
    parts = []
    for f in state.required_fields:
        item = state.collected.get(f["name"])
        if not item:
            continue
        kind = field_kind(f)
        normalized = item.get("normalized")
        if kind == "count" and normalized:
            parts.append(
                f"{f['name']}：{_count_bucket(float(normalized), zh)}"
                if zh
                else f"{f['name']}: {_count_bucket(float(normalized), zh)}"
            )
        elif kind == "amount" and normalized:
            parts.append(
                f"{f['name']}：{_amount_bucket(float(normalized), zh)}"
                if zh
                else f"{f['name']}: {_amount_bucket(float(normalized), zh)}"
            )
    summary = state.task_name + (
        ("（" + "，".join(parts) + "）") if zh and parts else (" (" + ", ".join(parts) + ")") if parts else ""
    )
    completion = task_state_completion_prompt(state)
    fields = ("、" if zh else ", ").join(f["name"] for f in state.required_fields)
    if zh:
        solution = f"先收集{fields}，信息齐全后{completion or '生成结果'}，请用户确认后执行。"
    else:
        solution = (
            f"Collect the {fields} first; once complete, {completion or 'produce the result'}; ask the user to confirm."
        )
    return summary, solution


_STEP_SPLIT = re.compile(r"(?<=[。！？!?；;\n])|(?<=[.])\s+")
_CLAUSE_SPLIT = re.compile(r"(?<=[，,])\s*")
_PERCENT = re.compile(r"\d+(?:\.\d+)?\s*[%％]|百分之[零一二两三四五六七八九十\d]+")


def _generalise_clause(clause: str, zh: bool) -> str:
    """Figures in one step become words: shares, amounts, dates, counts (to magnitudes), any other number."""

    def quantity(m):
        base = number_value(m.group(1)) or 0
        base *= {"万": 1e4, "千": 1e3, "百": 1e2}.get(m.group(2) or "", 1)
        if base < 2:
            return m.group(0)
        return _magnitude(base, zh) + ("" if CJK.match(m.group(3)) else " " + m.group(3))

    out = _PERCENT.sub("一小部分" if zh else "a small share", clause)
    out = _MONEY.sub("一定金额" if zh else "an amount", out)
    out = _DATE.sub("约定的日期" if zh else "the agreed date", out)
    out = _QUANTITY.sub(quantity, out)
    return re.sub(r"\d[\d,.]*", "若干" if zh else "some", out).strip()


def experience_steps(text: str, *, terms, zh: bool, limit: int = 8) -> tuple[str, dict[str, int]]:
    """The generic steps of a reply: each clause generalised, and kept only when nothing in it is specific to the
    user (tasks.services.experience_privacy). Returns the steps and the count of clauses left out per reason."""
    kept: list[str] = []
    dropped: dict[str, int] = {}
    for sentence in _STEP_SPLIT.split(text or ""):
        parts = []
        for clause in _CLAUSE_SPLIT.split(sentence.strip()):
            raw = clause.strip(" ，,;；")
            clause = _generalise_clause(raw, zh)
            if len(clause.strip(" 。.!！?？")) < 2:
                continue
            # quotes and the user's words are looked for as they were written, figures after generalising
            reason = clause_private_reason(raw, terms, figures=False) or clause_private_reason(clause, terms)
            if reason:
                dropped[reason] = dropped.get(reason, 0) + 1
            else:
                parts.append(clause.rstrip("。.!！?？；;"))
        if parts:
            kept.append(("，" if zh else ", ").join(parts))
        if len(kept) >= limit:
            break
    if not kept:
        return "", dropped
    return ("。".join(kept) + "。") if zh else (". ".join(k[0].upper() + k[1:] for k in kept) + "."), dropped


def experience_task_kind_summary(text: str) -> str:
    """The kind of task a request is, when the rules recognise one ("大批量文本分类任务"); else "" (the request's
    own words are never a summary)."""
    summary = experience_generalise_offline(text)
    if re.fullmatch(
        r"(?:大批量|批量|少量)?(?:文本|图像)\S{2,4}任务|(?:large-batch |batch |small )?(?:text|image) "
        r"\w+ task",
        summary,
    ):
        return summary
    return ""


def experience_fingerprint(summary: str, solution: str) -> str:
    """The same kind of task (whatever its size) solved by the same steps is one experience."""
    summary = re.sub(r"大批量|批量|少量|\b(?:large-batch|batch|small)\s", "", summary)
    norm = lambda t: re.sub(r"[\s，,。.;；!！?？、]+", " ", t).strip().lower()  # noqa: E731 - a one-line normaliser used just below
    return hashlib.sha256(f"{norm(summary)}\n{norm(solution)}".encode()).hexdigest()
