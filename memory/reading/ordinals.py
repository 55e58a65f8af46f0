"""A forget that points at an item of the list the assistant just gave ("第二条删掉", "drop the second one", "forget
number 3", "最后那条不要记了"): the item it points at, read from that reply, is what the user names."""

from __future__ import annotations

import re

_EN_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8}
_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_LAST = 0  # the position of "the last one"
_MIDDLE = -100  # … and of "the middle one", which a list of an odd length has

# What may stand beside the ordinal: the item's name ("one", "条", "point"), "the", "那", "把" ...
_FILLER = re.compile(
    r"\b(?:i|the|one|ones|item|items|entry|entries|thing|things|point|points|note|notes|memory|bit|bits|line|lines|"
    r"bullets?|on the list|in the list|from the list|you listed|please|pls|plz|thanks|that|those|it|number|no)\b|"
    r"[把那这个条项点句的了吧呢啊哈嘛呀啦哦噢都也全#.,，~～\s]|一(?=[个条项点])|就行|就好|去掉|删掉|删了|可以|\bcan go\b",
    re.IGNORECASE,
)
_EN = re.compile(
    r"(?<![A-Za-z0-9])(second[- ](?:to[- ])?last|penultimate|first|second|third|fourth|fifth|sixth|seventh|eighth|"
    r"last|middle|top|bottom|(\d)(?:st|nd|rd|th)?)(?![A-Za-z0-9])",
    re.I,
)
_NUMBERED = re.compile(r"\b(?:number|no\.?|#)\s*(\d)\b", re.IGNORECASE)
_ZH = re.compile(r"(倒数)?第([一二两三四五六七八九十]|\d)|最后|中间|([①-⑩])|头(?=一?[个条项点])|末(?=一?[个条项点])")
# a run of items at either end of the list: "the last two bullets", "first 3", "最后两条", "前两条"
_RUN = re.compile(
    r"\b(?:the\s+)?(first|top|last|bottom)\s+(two|three|four|2|3|4)\b|(前|后|最后|倒数)([两二三四]|\d)(?:条|项|个|点)?",
    re.IGNORECASE,
)
_COUNTS = {"two": 2, "three": 3, "four": 4, "两": 2, "二": 2, "三": 3, "四": 4}
# one position beside another: "最后那条和第一条", "the first and the third"
_PARTS = re.compile(r"\s*(?:和|跟|与|及|以及|还有|、|,|，|\band\b|&)\s*|(?<=[①-⑩])\s*(?=[①-⑩])", re.IGNORECASE)  # "③④"


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
        if m.group(0) in ("最后", "中间", "头", "末"):  # "头一个": the first
            return {"最后": _LAST, "末": _LAST, "中间": _MIDDLE, "头": 1}[m.group(0)]
        if m.group(3):
            return ord(m.group(3)) - ord("①") + 1
        n = int(m.group(2)) if m.group(2).isdigit() else _ZH_DIGITS[m.group(2)]
        return -n if m.group(1) else n
    word = m.group(1).lower()
    if word in ("last", "bottom", "middle", "top"):
        return {"last": _LAST, "bottom": _LAST, "middle": _MIDDLE, "top": 1}[word]
    if word.startswith(("second-", "second ", "penultimate")):
        return -2  # "the second to last", "the penultimate one"
    return int(m.group(2)) if m.group(2) else _EN_ORDINALS[word]


_BULLET = re.compile(r"^\s*(?:[-*•·]|\d{1,2}[.)、]|[（(]?\d{1,2}[）)])\s*(.+)$")
_INLINE = re.compile(r"[①-⑩]|[（(]\d{1,2}[）)]")
_AFTER_COLON = re.compile(r"[:：]\s*(.+)$", re.DOTALL)
_ITEM_SEP = re.compile(r"[，、；;]|,\s*(?:and\s+)?|\s+and\s+|以及|还有")


def listed_items(reply: str) -> list[str]:
    """The items of the list a reply gives: its bulleted or numbered lines, else what follows its colon, split at
    commas and "and"."""
    lines = [m.group(1).strip() for m in map(_BULLET.match, (reply or "").splitlines()) if m]
    if len(lines) >= 2:
        return lines
    inline = _INLINE.split(reply or "")  # "①你在外企做HR ②你喜欢露营", "(1) you play the cello, (2) …"
    if len(inline) >= 3:
        return [i.strip(" ,，;；。.!！\n") for i in inline[1:] if i.strip(" ,，;；。.!！\n")]
    m = _AFTER_COLON.search(reply or "")
    if m is None:
        return []
    items = [i.strip(" 。.!！") for i in _ITEM_SEP.split(m.group(1).split("\n")[0])]
    items = [i for i in items if i]
    return items if len(items) >= 2 else []


def _positions(phrase: str, size: int) -> list[int] | None:
    """The 0-based indexes a phrase names in a list of `size` items: one position, a run at either end ("the last
    two"), or several positions joined ("最后那条和第一条"); None when it names anything else."""
    run = _RUN.search(phrase or "")
    if run and not _FILLER.sub("", phrase.replace(run.group(0), " ")).strip():
        end, count = (run.group(1) or run.group(3)).lower(), run.group(2) or run.group(4)
        n = int(count) if count.isdigit() else _COUNTS[count.lower()]
        return list(range(n)) if end in ("first", "top", "前") else list(range(max(0, size - n), size))
    indexes = []
    for part in [p for p in _PARTS.split(phrase or "") if p.strip()]:
        position = ordinal_of(part)
        if position is None or (position == _MIDDLE and size % 2 == 0):
            return None
        if position == _MIDDLE:
            position = size // 2 + 1
        indexes.append(size - 1 if position == _LAST else position - 1 if position > 0 else size + position)
    return indexes or None


def listed_item(phrase: str, reply: str) -> str | None:
    """The items of `reply`'s list that a forget `phrase` points at by position (joined by " and ", which the
    targeting reads as several requests), if it does and the list has them."""
    items = listed_items(reply)
    indexes = _positions(phrase, len(items)) if items else None
    if not indexes or not all(0 <= i < len(items) for i in indexes):
        return None
    return " and ".join(items[i] for i in dict.fromkeys(indexes))


# a word that drops an item: "the last one can go", "1和3都不要了", "把最后一个去掉"
_DROP = re.compile(
    r"不要了?|去掉|删(?:掉|了|除)?|划掉|拿掉|不用(?:记)?了|没用了|不需要了|"
    r"\b(?:can go|drop|remove|delete|scrap|scratch|ditch|lose|bin|cut|strike|get rid of|(?:don'?t|do not) need|"
    r"take (?:off|out)|cross (?:off|out)|forget|erase|wipe)\b",
    re.IGNORECASE,
)


def position_request(sentence: str) -> str | None:
    """The phrase naming the positions a sentence drops from a list, when the sentence is only those positions and
    a word that drops them ("the last one can go" -> "the last one", "1和3都不要了" -> "1和3都"); None otherwise."""
    m = _DROP.search(sentence or "")
    if m is None:
        return None
    phrase = f"{sentence[: m.start()]} {sentence[m.end() :]}".strip(" ,，。.!！~～?？")
    return phrase if phrase and _positions(phrase, 9) else None  # an odd length: "the middle one" too
