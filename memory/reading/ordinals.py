"""A forget that points at an item of the list the assistant just gave ("第二条删掉", "drop the second one", "forget
number 3", "最后那条不要记了"): the item it points at, read from that reply, is what the user names."""

from __future__ import annotations

import re

_EN_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8}
_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_LAST = 0  # the position of "the last one"

# What may stand beside the ordinal: the item's name ("one", "条", "point"), "the", "那", "把" ...
_FILLER = re.compile(
    r"\b(?:the|one|ones|item|entry|thing|point|note|memory|bit|line|on the list|in the list|from the list|you listed|"
    r"please|that|number|no)\b|[把那这个条项点句的了吧呢啊#.\s]",
    re.IGNORECASE,
)
_EN = re.compile(r"\b(first|second|third|fourth|fifth|sixth|seventh|eighth|last|(\d)(?:st|nd|rd|th)?)\b", re.I)
_NUMBERED = re.compile(r"\b(?:number|no\.?|#)\s*(\d)\b", re.IGNORECASE)
_ZH = re.compile(r"(倒数)?第([一二两三四五六七八九十]|\d)|最后")


def ordinal_of(phrase: str) -> int | None:
    """The position a forget phrase names and nothing else (1-based; 0 for the last; -n for the n-th from the
    end), or None when the phrase names anything more than a position ("the second dog")."""
    text = (phrase or "").strip()
    m = _NUMBERED.search(text) or _ZH.search(text) or _EN.search(text)
    if m is None or _FILLER.sub("", text.replace(m.group(0), " ")).strip():
        return None
    if m.re is _NUMBERED:
        return int(m.group(1))
    if m.re is _ZH:
        if m.group(0) == "最后":
            return _LAST
        n = int(m.group(2)) if m.group(2).isdigit() else _ZH_DIGITS[m.group(2)]
        return -n if m.group(1) else n
    word = m.group(1).lower()
    if word == "last":
        return _LAST
    return int(m.group(2)) if m.group(2) else _EN_ORDINALS[word]


_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)、]|[（(]?\d{1,2}[）)])\s*(.+)$")
_AFTER_COLON = re.compile(r"[:：]\s*(.+)$", re.DOTALL)
_ITEM_SEP = re.compile(r"[，、；;]|,\s*(?:and\s+)?|\s+and\s+|以及|还有")


def listed_items(reply: str) -> list[str]:
    """The items of the list a reply gives: its bulleted or numbered lines, else what follows its colon, split at
    commas and "and"."""
    lines = [m.group(1).strip() for m in map(_BULLET.match, (reply or "").splitlines()) if m]
    if len(lines) >= 2:
        return lines
    m = _AFTER_COLON.search(reply or "")
    if m is None:
        return []
    items = [i.strip(" 。.!！") for i in _ITEM_SEP.split(m.group(1).split("\n")[0])]
    items = [i for i in items if i]
    return items if len(items) >= 2 else []


def listed_item(phrase: str, reply: str) -> str | None:
    """The item of `reply`'s list that a forget `phrase` points at by position, if it does and the list has it."""
    position = ordinal_of(phrase)
    if position is None:
        return None
    items = listed_items(reply)
    index = len(items) - 1 if position == _LAST else position - 1 if position > 0 else len(items) + position
    return items[index] if items and 0 <= index < len(items) else None
