"""Offline extraction of a task's field values from one user message, in Chinese and English.

General rules per kind of field, never lookups of example sentences:
- name:   labelled ("项目名称是X", "项目叫X", "the project is called X", "name: X") or quoted (「X」, "X", 《X》);
- date:   deadlines and dates ("9月底", "2025年10月1日", "下周五", "三周后", "end of September", "in 3 weeks",
          "next Friday", "Q3", "2025-09-30");
- count:  team sizes and head counts ("5个人", "五名工程师", "团队8人", "team of 5", "five people");
- amount: money ("20万", "预算三十万元", "5000块", "¥8000", "$50k", "50,000 dollars", "budget is 20k");
- place:  "在深圳", "南山区", "in Shanghai";
- text:   anything, when labelled by the field's name or one of its aliases ("目标：拉新 1 万用户").
A field's kind is its "kind" key, or inferred from its name, aliases and description.
Any field can also be given with its label and a change verb ("预算改成30万", "budget is now 40k").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text import (
    EN_NUMBER_WORDS,
    cn_number,
    has_chinese,
    language_of,  # noqa: F401 - working memory reads the language from here too
)

KINDS = ("name", "date", "count", "amount", "place", "text")

_CN_NUM = "零〇一二两三四五六七八九十百千万亿"
_NUM = rf"(?:\d[\d,]*(?:\.\d+)?|[{_CN_NUM}]+)"
# the shared number words, and the vague counts a task field may be given in ("a team of a few people")
_EN_NUMBERS = {**EN_NUMBER_WORDS, "a couple of": 2, "a few": 3}
_EN_NUM = r"(?:\d[\d,]*(?:\.\d+)?|" + "|".join(sorted(_EN_NUMBERS, key=len, reverse=True)) + ")"
_PUNCT_END = r"(?=[，,。.;；!！?？\n]|$|\s+(?:and|with|but)\s)"


@dataclass(frozen=True)
class Extracted:
    value: str
    normalized: object = None


_QUESTION_EN = re.compile(
    r"^\s*(?:do|does|did|is|are|was|were|can|could|will|would|should|shall|may|what|how|why|when|where|who|which|"
    r"have|has)\b",
    re.IGNORECASE,
)
_QUESTION_ZH = re.compile(r"(吗|呢|么|什么|怎么|为什么|为何|是否|如何|哪|多久|几点|能不能|可不可以|有没有|是不是)")


def is_question(text: str) -> bool:
    text = (text or "").strip()
    return text.endswith(("?", "？")) or bool(_QUESTION_EN.match(text)) or bool(_QUESTION_ZH.search(text))


def number_value(token: str) -> float | None:
    """'5', '1,000', '2.5', '五', '二十', '两' -> a number; None when it is not one."""
    token = (token or "").strip().replace(",", "")
    if not token:
        return None
    try:
        return float(token)
    except ValueError:
        pass
    low = token.lower()
    if low in _EN_NUMBERS:
        return float(_EN_NUMBERS[low])
    return cn_number(token)


def _clean(value: str) -> str:
    return value.strip().strip("：:，,。.;；!！ \"'“”「」《》『』")


# --- kind: name -------------------------------------------------------------------------------------------------
_QUOTED = re.compile(r"[「“\"《『']([^」”\"》』']{1,60})[」”\"》』']")
_NAME_ZH = re.compile(r"(?:名称|名字|名)\s*(?:是|为|叫|定为|就叫|改成|改为|换成|[:：])\s*([^，,。；;！!？?\n]{1,40})")
_NAME_CALLED_ZH = re.compile(r"(?:叫做|叫作|就叫|名叫|叫)\s*([^，,。；;！!？?\n]{1,40})")
_NAME_EN = re.compile(
    r"(?:\bname\s*(?:is|:|=|will be|should be)|\b(?:called|named|titled)(?:\s+it)?|\b(?:call|name)\s+it)\s+[\"']?([^,.;!?\"'\n]{1,60})",
    re.IGNORECASE,
)


def _extract_name(text: str) -> Extracted | None:
    for pattern in (_NAME_ZH, _NAME_EN, _QUOTED, _NAME_CALLED_ZH):
        m = pattern.search(text)
        if m:
            value = _clean(m.group(1))
            value = re.split(r"\s+(?:and|with|due|by|for)\s", value)[0].strip()
            if value and not is_question(value):
                return Extracted(value)
    return None


# --- kind: date -------------------------------------------------------------------------------------------------
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec"
)
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_DATE_PATTERNS = [
    re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}"),
    re.compile(
        rf"(?:\d{{4}}|今|明|后|去)年(?:[{_CN_NUM}\d]{{1,3}}月(?:[{_CN_NUM}\d]{{1,3}}[日号]|底|初|中旬|中|上旬|下旬|末)?|底|末|初|年中)?"
    ),
    re.compile(
        rf"[{_CN_NUM}\d]{{1,3}}月(?:份)?(?:[{_CN_NUM}\d]{{1,3}}[日号]|底|初|中旬|中|上旬|下旬|末)?(?:之前|前|以前)?"
    ),
    re.compile(
        r"(?:下|这|本|上)(?:个)?(?:周|星期|礼拜)[一二三四五六日天]?|(?:下|这|本)个?月(?:底|初|中)?|"
        r"月底|年底|年末|季度末|明天|后天|大后天|今天"
    ),
    re.compile(rf"[{_CN_NUM}\d]+\s*(?:个)?(?:天|日|周|星期|礼拜|月|年)(?:后|内|之内|以内|以后|之后)"),
    re.compile(r"\bQ[1-4](?:\s*\d{4})?\b", re.IGNORECASE),
    re.compile(
        rf"\b(?:(?:the\s+)?(?:end|middle|beginning|start)\s+of\s+|mid[-\s]|early\s+|late\s+)?(?:{_MONTHS})\b\.?"
        rf"(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?(?:,?\s+\d{{4}})?",
        re.IGNORECASE,
    ),
    re.compile(rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b(?:,?\s+\d{{4}})?", re.IGNORECASE),
    re.compile(rf"\b(?:next|this|coming)\s+(?:week|month|year|quarter|{_WEEKDAYS})\b", re.IGNORECASE),
    re.compile(r"\b(?:by\s+)?(?:the\s+)?end\s+of\s+(?:the\s+)?(?:week|month|year|quarter)\b", re.IGNORECASE),
    re.compile(rf"\b(?:in|within)\s+{_EN_NUM}\s+(?:days?|weeks?|months?|years?)\b", re.IGNORECASE),
    re.compile(r"\b(?:tomorrow|today|tonight)\b", re.IGNORECASE),
    re.compile(r"\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"),
]


def _extract_date(text: str) -> Extracted | None:
    for pattern in _DATE_PATTERNS:
        m = pattern.search(text)
        if m:
            value = m.group(0).strip()
            if value:
                return Extracted(value)
    return None


# --- kind: count ------------------------------------------------------------------------------------------------
_PEOPLE_EN = (
    r"people|persons?|engineers?|developers?|devs|members?|staff|employees?|designers?|folks|"
    r"heads?|testers?|volunteers?|participants?|guests?|attendees?|students?|workers?"
)
_COUNT_PATTERNS = [
    re.compile(rf"({_NUM})\s*(?:个|位|名)?\s*(?:人|成员|同事|员工|工程师|开发|研发|设计师|伙伴|队员|学生|客人|嘉宾)"),
    re.compile(
        rf"(?:团队|小组|组|人数|规模|人手)\s*(?:是|有|为|共|一共|总共|大概|大约|约|[:：])*\s*({_NUM})\s*(?:个|位|名)?"
    ),
    re.compile(rf"\bteam\s+of\s+({_EN_NUM})\b", re.IGNORECASE),
    re.compile(rf"\b({_EN_NUM})[-\s](?:person|people|member|man)\s+team\b", re.IGNORECASE),
    re.compile(rf"\b({_EN_NUM})\s+(?:{_PEOPLE_EN})\b", re.IGNORECASE),
    re.compile(
        rf"\b(?:team\s+size|headcount|team)\s*(?:is|of|:|=|will be|would be)?\s*(?:about|around|roughly)?\s*"
        rf"({_EN_NUM})\b",
        re.IGNORECASE,
    ),
]


def _extract_count(text: str) -> Extracted | None:
    for pattern in _COUNT_PATTERNS:
        for m in pattern.finditer(text):
            number = number_value(m.group(1))
            if number is not None and number > 0:
                return Extracted(_clean(m.group(0)) if has_chinese(m.group(0)) else m.group(0).strip(), int(number))
    return None


# --- kind: amount -----------------------------------------------------------------------------------------------
_AMOUNT_PATTERNS = [
    re.compile(r"[¥￥$€£]\s*\d[\d,]*(?:\.\d+)?\s*(?:万|千|亿|k|m|million|thousand|bn|billion)?\b", re.IGNORECASE),
    re.compile(rf"({_NUM})\s*(?:多)?\s*(?:万|千|百万|亿)\s*(?:元|块|人民币|美元|美金|欧元|rmb)?"),
    re.compile(rf"({_NUM})\s*(?:元|块钱|块|人民币|美元|美金|欧元)"),
    re.compile(
        r"\b\d[\d,]*(?:\.\d+)?\s*(?:k|m|million|thousand|bn|billion)?\s*(?:dollars|usd|euros?|eur|rmb|yuan|"
        r"pounds|gbp|cny|bucks)\b",
        re.IGNORECASE,
    ),
    re.compile(r"\b\d[\d,]*(?:\.\d+)?\s*(?:k|million|thousand|bn|billion)\b", re.IGNORECASE),
]
_AMOUNT_MULT = {
    "万": 1e4,
    "千": 1e3,
    "百万": 1e6,
    "亿": 1e8,
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "million": 1e6,
    "bn": 1e9,
    "billion": 1e9,
}


def _amount_number(text: str) -> float | None:
    m = re.search(rf"({_NUM})\s*(百万|万|千|亿|k|thousand|million|bn|billion|m)?", text, re.IGNORECASE)
    if not m:
        return None
    base = number_value(m.group(1))
    if base is None:
        return None
    return base * _AMOUNT_MULT.get((m.group(2) or "").lower(), 1)


def _extract_amount(text: str) -> Extracted | None:
    for pattern in _AMOUNT_PATTERNS:
        m = pattern.search(text)
        if m:
            value = m.group(0).strip()
            return Extracted(value, _amount_number(re.sub(r"[¥￥$€£]", "", value)))
    return None


# --- kind: place ------------------------------------------------------------------------------------------------
_PLACE_PATTERNS = [
    re.compile(r"[\u4e00-\u9fff]{1,6}(?:省|市|区|县|镇|路|街|商圈|广场|园区)"),
    re.compile(
        r"(?:在|去|到|位于|地点是|地点[:：])\s*([\u4e00-\u9fff]{2,6}?)(?=[，,。；;！!？?\s]|开|办|做|举办|举行|的|$)"
    ),
    re.compile(r"\b(?:in|at|to|near)\s+((?:[A-Z][a-z]+)(?:\s+[A-Z][a-z]+){0,2})"),
]


def _extract_place(text: str) -> Extracted | None:
    for pattern in _PLACE_PATTERNS:
        m = pattern.search(text)
        if m:
            return Extracted(_clean(m.group(m.lastindex or 0)))
    return None


_EXTRACTORS = {
    "name": _extract_name,
    "date": _extract_date,
    "count": _extract_count,
    "amount": _extract_amount,
    "place": _extract_place,
}

_KIND_HINTS = [
    ("amount", r"预算|经费|费用|花费|开销|金额|价格|成本|资金|薪|budget|cost|price|amount|fund|spend|salary|fee"),
    ("date", r"时间|日期|截止|期限|deadline|date|due|when|上线|交付|完成于|时候"),
    ("count", r"人数|规模|数量|多少人|人手|team size|headcount|size|count|number of|people|guests|participants"),
    ("place", r"地点|城市|地址|位置|地区|place|city|location|venue|where|address"),
    ("name", r"名称|名字|标题|name|title"),
]


def field_kind(field: dict) -> str:
    """The field's declared kind, or one inferred from its name, aliases and description."""
    kind = field.get("kind")
    if kind in KINDS:
        return kind
    blob = " ".join([field.get("name", ""), *field.get("aliases", []), field.get("description", "")]).lower()
    for kind, pattern in _KIND_HINTS:
        if re.search(pattern, blob):
            return kind
    return "text"


_LABEL_LINK = (
    r"\s*(?:是|为|有|定为|定在|大概|大约|约|差不多|控制在|在|改成|改为|换成|变成|调整为|调到|:|：|=|"
    r"is|are|of|will be|would be|should be|about|around|roughly|changed to|change to|is now|now)*\s*"
)


def _labelled_value(text: str, field: dict) -> str | None:
    """The words after the field's own label: '预算：20万', 'deadline is end of May', '目标改成拉新'."""
    labels = [field.get("name", ""), *field.get("aliases", [])]
    for label in sorted((label for label in labels if label), key=len, reverse=True):
        boundary = r"\b" if re.match(r"[A-Za-z]", label) else ""
        m = re.search(
            rf"{boundary}{re.escape(label)}{boundary}{_LABEL_LINK}([^，,。；;！!？?\n]{{1,60}})", text, re.IGNORECASE
        )
        if m:
            value = _clean(re.split(r"\s+(?:and|with|but)\s", m.group(1))[0])
            if value and not is_question(value):
                return value
    return None


def field_extract(text: str, field: dict) -> Extracted | None:
    """The value of one field in `text`, or None. A labelled value is checked against the field's kind."""
    kind = field_kind(field)
    labelled = _labelled_value(text, field)
    extractor = _EXTRACTORS.get(kind)
    if labelled is not None:
        if extractor is None:
            return Extracted(labelled)
        typed = extractor(labelled)
        if typed is not None:
            return typed
        if kind == "name":
            return Extracted(labelled)
    if extractor is None:
        return None
    return extractor(text)


def fields_extract(*, text: str, fields: list[dict], only: list[str] | None = None) -> dict[str, Extracted]:
    """Every field (of `only`, when given) whose value `text` states. One span never fills two fields of the same
    kind: the first field of a kind takes the unlabelled value, later ones need their label."""
    found: dict[str, Extracted] = {}
    taken_kinds: set[str] = set()
    for field in fields:
        name = field.get("name")
        if not name or (only is not None and name not in only):
            continue
        kind = field_kind(field)
        labelled = _labelled_value(text, field)
        if labelled is None and kind in taken_kinds:
            continue
        value = field_extract(text, field)
        if value is not None:
            found[name] = value
            taken_kinds.add(kind)
    return found


def bare_answer(text: str, field: dict) -> Extracted | None:
    """A short reply that is just the value of the field that was asked for ('星火计划', '20', 'Apollo')."""
    text = (text or "").strip()
    if not text or len(text) > 40 or is_question(text):
        return None
    kind = field_kind(field)
    if kind in ("count", "amount"):
        number = number_value(re.sub(r"[^\d.,\u4e00-\u9fff]", "", text))
        if number is None:
            return None
        return Extracted(text, int(number) if kind == "count" else number)
    if kind == "date":
        return _extract_date(text)
    return Extracted(_clean(text))
