"""What a text mentions that ties notes together: the names it gives a person, a pet or a thing, and where the user
lives now."""

from __future__ import annotations

import re

# where one comes from is no place one lives ("grew up in Cork", "老家在湖南")
_ORIGIN = re.compile(r"\b(?:grew up|born|raised|originally|from)\b|老家|出生|长大|来自", re.IGNORECASE)


def residence(text: str) -> set[str]:
    """{"location"} when the text says where the user lives now ("lives in Manchester", "we've relocated to
    Sheffield"), not where they come from."""
    from memory.services.writing.rules.slots import place_in

    return {"location"} if place_in(text) and not _ORIGIN.search(text) else set()


# a name given to a pet, a person or a thing ("a corgi called Doudou", "养了一只狗叫黑豹", "my brother Sam")
NAMED = re.compile(
    r"(?:\b(?:named|called)\s+|叫(?:做)?|名叫|名字(?:是|叫))([A-Z][\w'-]+|[\u4e00-\u9fff]{2,3}?)(?=的|[哦啊呀哈呢吧了啦]|[，。,.!！~～\s]|$)"
)
_CAPITAL = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]{2,}\b")


def names_in(text: str) -> set[str]:
    """The names a note gives ("Doudou", "豆豆"): what ties its other notes to it."""
    return set(NAMED.findall(text or "")) | (set(_CAPITAL.findall(text or "")) - {"The", "User"})
