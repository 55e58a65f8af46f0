"""A candidate's sentence in the user's language: templated for structured slots, else the user's own words in
the third person.
"""

from __future__ import annotations

import re

from memory.services.quantities import money_text
from memory.services.rules.numbers import _num_str

_NOT_VERBS = {
    "in",
    "on",
    "at",
    "to",
    "for",
    "with",
    "and",
    "or",
    "of",
    "a",
    "an",
    "the",
    "from",
    "by",
    "about",
    "as",
    "that",
    "this",
    "so",
    "but",
    "if",
    "when",
    "whenever",
    "anytime",
    "again",
    "too",
    "here",
    "there",
}


def third_person(text: str, chinese: bool) -> str:
    """The user's words as a note about the user: "我平时坐地铁" -> "用户平时坐地铁"."""
    text = text.strip(" ，,。.!！")
    if chinese:
        out = re.sub(r"我们|咱们", "用户", text)
        out = re.sub(r"我|俺|本人", "用户", out)
        if "用户" not in out:
            out = "用户" + out
        return out + "。"
    out = re.sub(r"\bI'm\b|\bI am\b", "the user is", text, flags=re.I)
    out = re.sub(r"\bI've\b", "the user has", out, flags=re.I)
    out = re.sub(r"\bI don't\b|\bI do not\b", "the user does not", out, flags=re.I)
    out = re.sub(r"\bI\b", "the user", out)
    out = re.sub(r"\bmy\b|\bour\b", "the user's", out, flags=re.I)
    out = re.sub(r"\bwe're\b", "the user is", out, flags=re.I)
    out = re.sub(r"\bwe've\b", "the user has", out, flags=re.I)
    out = re.sub(r"\bwe\b", "the user", out, flags=re.I)
    out = re.sub(r"\bme\b", "the user", out, flags=re.I)

    def agree(m):
        verb = m.group(3)
        if verb in _NOT_VERBS:
            return m.group(0)
        if verb in {"is", "has", "does", "was", "can", "will", "would", "should", "must", "might"} or verb.endswith(
            "ed"
        ):
            return m.group(0)
        if verb == "have":
            verb = "has"
        elif re.search(r"(?:s|sh|ch|x|o)$", verb):
            verb += "es"
        elif re.search(r"[^aeiou]y$", verb):
            verb = verb[:-1] + "ies"
        else:
            verb += "s"
        return f"{m.group(1)}{m.group(2) or ''}{verb}"

    out = re.sub(
        r"(the user )((?:usually |always |often |never |now |also |still |mostly |really |kind of |sort of )?)([a-z]+)",
        agree,
        out,
    )
    if not out.lower().startswith("the user"):
        out = "The user: " + out
    return out[0].upper() + out[1:] + "."


def render(slot: str, kind: str, value: dict | None, quote: str, chinese: bool) -> str:
    """One sentence for the note, in the user's language: templated for structured slots, else the user's words
    in the third person."""
    v = value or {}
    approx_zh = "约 " if v.get("approx") else ""
    approx_en = "about " if v.get("approx") else ""
    amount = v.get("amount")
    currency = v.get("currency", "")
    if slot == "budget" and amount is not None:
        return (
            f"用户的预算{approx_zh or '为 '}{money_text(amount, currency, True)}。"
            if chinese
            else f"The user's budget is {approx_en}{money_text(amount, currency, False)}."
        )
    if slot == "shop_size" and amount is not None:
        feet = v.get("unit") == "sq ft"
        return (
            f"用户的店面面积{approx_zh or ' '}{_num_str(amount)} {'平方英尺' if feet else '平米'}。"
            if chinese
            else f"The user's shop is {approx_en}{_num_str(amount)} {'square feet' if feet else 'square meters'}."
        )
    if slot == "revenue" and amount is not None:
        period = v.get("period") or ""
        per_zh = {"day": "每天", "month": "每月", "year": "每年"}.get(period, "")
        per_en = {"day": " per day", "month": " per month", "year": " per year"}.get(period, "")
        return (
            f"用户的店{per_zh}流水{approx_zh}{money_text(amount, currency, True)}。"
            if chinese
            else f"The user's revenue is {approx_en}{money_text(amount, currency, False)}{per_en}."
        )
    if slot == "staff" and amount is not None:
        return (
            f"用户的店有{approx_zh or ' '}{_num_str(amount)} 名员工。"
            if chinese
            else f"The user has {approx_en}{_num_str(amount)} employees."
        )
    if slot == "age" and amount is not None:
        return (
            f"用户{approx_zh or ' '}{_num_str(amount)} 岁。"
            if chinese
            else f"The user is {approx_en}{_num_str(amount)} years old."
        )
    if slot == "location" and v.get("place"):
        return f"用户在{v['place']}。" if chinese else f"The user is in {v['place']}."
    if slot == "business" and v.get("type"):
        place = f"在{v['place']}" if v.get("place") else ""
        return f"用户{place}经营一家{v['type']}。" if chinese else f"The user runs a {v['type']}."
    return third_person(quote, chinese)
