"""Slots and their values: which structured slot a clause fills (budget, size, revenue, staff, place, business
...) and the value it gives, read with memory.services.writing.quantities and memory.services.writing.topics.
"""

from __future__ import annotations

import re

from memory.services.writing.quantities import quantities, slot_amount
from memory.services.writing.rules.patterns import FAMILY_CONTEXT
from memory.services.writing.topics import Topic, find_option

NUMERIC_SLOTS = {"budget", "shop_size", "revenue", "staff", "age", "rent", "orders"}
SIZE = re.compile(r"\d\s*(?:平(?![时常均安])|㎡|m2\b|sq\s?m\b|square\s+(?:meter|metre|feet|foot))", re.I)
_PERIOD = (
    ("day", re.compile(r"每天|每日|日流水|日营业|一天|天流水|\bdaily\b|\ba day\b|\bper day\b", re.I)),
    ("week", re.compile(r"每周|每星期|一周|一星期|一个星期|\bweekly\b|\ba week\b|\bper week\b", re.I)),
    ("month", re.compile(r"每月|每个月|月流水|月营业|一个月|月入|\bmonthly\b|\ba month\b|\bper month\b", re.I)),
    ("year", re.compile(r"每年|一年|年营业|年收入|\byearly\b|\bannual|\ba year\b|\bper year\b", re.I)),
)
# where the user lives or has their business; "我在杭州上班" / "I work in Leeds" is where they work and "老家在四川" /
# "I'm from Cork" where they come from, not where they live: those are kept in the user's words and never replace
# their city
# "现在一个人住在昆山": 现在, 正在, 实在 are no "在" of a place
PLACE_ZH = re.compile(
    r"(?:住在|(?<!老家)(?<![现正实存好])在|搬到)([\u4e00-\u9fff]{2,8}?)(?:开了|开|住|生活|做|经营|有|新?租(?:了|的)?(?:个|套|间)?(?:那|这)?(?:房|屋|公寓)|买了?房|安家|定居|落户)"
)
_WORKS_THERE = re.compile(
    r"\b(?:work|works|working|worked|job|office|study|studying|studies|studied|grew up|born|raised)\b\W*(?:\w+\W+){0,3}$",
    re.I,
)
_PLACE_ZH_END = re.compile(
    r"(?:住在|(?<=[我俺])(?:现在|目前|一直|还)?住(?![得的过了着惯在])|搬到了?|搬去了?|"
    r"我家在)([\u4e00-\u9fff]{2,8}?)(?:的|了|啦)?[。！!.]?$"
)
PLACE_EN = re.compile(
    r"\b(?:in|live in|living in|based in|(?:moved|relocated)(?: back| over)? to)\s+((?:[A-Z][a-zA-Z]+)(?:[ ,]+[A-Z][a-zA-Z]+){0,2})"
)
_PLACE_EN_FRONT = re.compile(
    r"^((?:[A-Z][a-zA-Z]+)(?:[ ,]+[A-Z][a-zA-Z]+){0,2}) is (?:where|the city where) (?:I|we) "
    r"(?:live|am based)\b"
)


_NOT_A_PLACE = re.compile(
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july|"
    r"august|september|october|november|december|spring|summer|autumn|fall|winter|q[1-4]|"
    # "reply in French" is a language, not a place
    r"english|french|spanish|german|chinese|mandarin|cantonese|japanese|korean|italian|"
    r"portuguese|russian|arabic|hindi|dutch|bullet points?)\b|"
    r"[一这那](?:家|所|个|间|座)|"  # "在一家药企做质检": a workplace, not where the user lives
    r"^(?:公司|单位|厂里?|学校|医院|店里|家里|这边|那边|这里|那里|外面|网上)|.*是$",  # "我在公司是做运维的": a job
    re.IGNORECASE,
)


def _works_there(rx, text: str, m) -> bool:
    """A place the clause says the user works, studies, grew up or was born in."""
    return rx is PLACE_EN and bool(_WORKS_THERE.search(text[: m.start()]))


def place_in(text: str) -> str | None:
    """The place a clause says the user lives in (or runs a business in), if any."""
    for rx in (PLACE_ZH, _PLACE_ZH_END, PLACE_EN, _PLACE_EN_FRONT):
        # "I work at a bank in Leeds and live in York": a workplace is passed over
        m = next((m for m in rx.finditer(text or "") if not _works_there(rx, text, m)), None)
        if m:
            place = next(g for g in m.groups() if g).strip(" ,")
            if not _NOT_A_PLACE.match(place):
                return place
    return None


BUSINESS_ZH = re.compile(r"(?:开了|开|经营|有|做)(?:一)?[家个间](.{0,14}?(?:店|馆|厅|铺|公司|工作室|超市|摊|坊|吧))")
BUSINESS_EN = re.compile(
    r"\b(?:run|own|opened|have|started|manage)\s+(?:a|an|my)\s+((?:[\w'-]+\s+){0,3}?(?:shop|restaurant|"
    r"store|cafe|café|bakery|business|company|studio|bar|salon|gym|stall|diner))\b",
    re.I,
)


def period_of(text: str) -> str | None:
    return next((name for name, rx in _PERIOD if rx.search(text)), None)


def slot_value(topic: Topic, text: str, change_at: int, *, keyword: bool | None = None) -> dict | None:
    if topic.slot in NUMERIC_SLOTS:
        if keyword is None:
            keyword = has_slot_word(topic, text)
        # the new value follows a change marker ("预算从 10 万改成 15 万"): read from there when it has one
        tail = text[change_at + 1 :] if change_at >= 0 else ""
        found = (
            (slot_amount(topic.slot, tail, keyword=True) if tail and keyword else None)
            or slot_amount(topic.slot, _near(text, topic), keyword=keyword)
            or slot_amount(topic.slot, text, keyword=keyword)
        )
        if found is None:
            return None
        value: dict[str, object] = {"amount": found.amount}
        if found.currency:
            value["currency"] = found.currency
        if topic.slot == "shop_size" and re.search(r"feet|foot|ft\b|平方英尺", text, re.I):
            value["unit"] = "sq ft"
        if topic.slot in {"revenue", "rent", "orders"}:
            period = period_of(text)
            if period:
                value["period"] = period
        return value
    if topic.options:
        option_found = find_option(topic, text, after=change_at)
        if option_found:
            option, negated = option_found
            return {"option": option, "negated": True} if negated else {"option": option}
    return None


def has_slot_word(topic: Topic, text: str) -> bool:
    """The slot's own word is in the text ("预算", "budget", "员工", "staff"), not only a number near it."""
    from memory.services.writing.topics import term_hits

    low = (text or "").lower()
    return any(term_hits(low, term) >= 0 for term in topic.terms)


def _near(text: str, topic: Topic) -> str:
    """The part of `text` from the topic's term on (the amount usually follows it: "预算 40 万", "60 平米" is the
    exception: the number precedes the unit, so the whole clause is kept)."""
    if topic.slot in {"shop_size", "age", "staff"}:
        return text
    low = text.lower()
    positions = [low.find(t) for t in topic.terms if low.find(t) >= 0]
    if not positions:
        return text
    tail = text[min(positions) :]
    return tail if re.search(r"\d|[一二三四五六七八九十两百千万]", tail) else text


def head_count(clause: str) -> bool:
    return any(q.unit == "people" and not q.code for q in quantities(clause)) and not FAMILY_CONTEXT.search(clause)
