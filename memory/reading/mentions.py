"""What a text mentions that ties notes together: the names it gives a person, a pet or a thing, and where the user
lives now."""

from __future__ import annotations

import re

# where one comes from is no place one lives ("grew up in Cork", "老家在湖南")
_ORIGIN = re.compile(r"\b(?:grew up|born|raised|originally|from)\b|老家|出生|长大|来自", re.IGNORECASE)


_TEMPLATE = re.compile(r"^(?:用户在|The user is in )([\u4e00-\u9fff]{2,6}|[A-Z][\w' -]+)[。.]$")


_DOING = re.compile(r"上班|工作|上学|读|学|做|开|当|打工|实习|玩|吃|看|练|住|家")


def residence(text: str) -> set[str]:
    """{"location"} when the text says where the user lives now ("lives in Manchester", "we've relocated to
    Sheffield"), not where they come from."""
    from memory.services.writing.rules.slots import place_in

    template = _TEMPLATE.match(text or "")  # the location note as the rules write it: "用户在福州。"
    place = template.group(1) if template and not _DOING.search(template.group(1)) else ""
    said = place_in(text) or (
        place and place_in(f"I live in {place}" if place.isascii() else f"我住在{place}") == place
    )
    return {"location"} if said and not _ORIGIN.search(text) else set()


# a name given to a pet, a person or a thing ("a corgi called Doudou", "养了一只狗叫黑豹", "my brother Sam")
NAMED = re.compile(
    r"(?:\b(?:named|called)\s+|叫(?:做)?|名叫|名字(?:是|叫))([A-Z][\w'-]+|[\u4e00-\u9fff]{2,3}?)(?=的|[哦啊呀哈呢吧了啦]|[，。,.!！~～\s]|$)"
)
_CAPITAL = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]{2,}\b")


def names_in(text: str) -> set[str]:
    """The names a note gives ("Doudou", "豆豆"): what ties its other notes to it."""
    return set(NAMED.findall(text or "")) | (set(_CAPITAL.findall(text or "")) - {"The", "User"})
