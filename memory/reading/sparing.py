"""What a forget request spares: "…, my mate Tom stays", "Jess can stay.", "my dad's one is fine to keep", "老家无所谓",
"别的不动". Said beside a forget, such a clause is no fact and no request of its own: it names notes the forget must
leave, and its words must not make the request read as something else ("ditch the second one, keep the rest")."""

from __future__ import annotations

import re

# the clause names what stays, then says so
_STAYS_AFTER = re.compile(
    r"^(?P<x>.{2,60}?)\s*(?:\b(?:stays?|can stay|is staying|are staying|can remain|remains?|is fine|are fine|is ok(?:ay)?|"
    r"are ok(?:ay)?)\b(?:\s+to\s+(?:keep|stay))?|\b(?:is|are|'s)\s+fine\s+to\s+keep\b|\bcan be kept\b|\bkeep (?:it|that|"
    r"them)\b)\s*$|^(?P<zx>[^，,。]{1,20}?)(?:就|你|可以|都|先|倒是)*(?:无所谓|(?<![别不甭要用必])(?:留着|保留着?|可以留)(?!也?(?:没|不|白)|干[嘛吗啥]|有[啥什])|不用删|"
    r"别删|不删|(?<![别不])不动|没关系|不用管|照旧|不用动|别动)",
    re.IGNORECASE,
)
# the clause says so, then names what stays: "keep my dad's one", "but leave the cat alone", "保留老家那条"
_STAYS_BEFORE = re.compile(
    r"^(?:but\s+|and\s+|just\s+)*(?:keep|leave|don'?t touch|do not touch)\s+(?P<x>.{2,60}?)(?:\s+(?:alone|as (?:it|they) "
    r"(?:is|are)|though|please|obviously|tho))?$|^(?:但是?|不过|只)?(?:保留|留下|留着|别删|不要删|不用删)(?P<zx>.{1,20})$",
    re.IGNORECASE,
)
# what stays when nothing in particular is named: "keep the rest", "别的不动"
_THE_REST = re.compile(
    r"^(?:the\s+)?(?:rest|others?|other ones|everything else|all the rest|remaining ones?)$|^(?:别的|其他的?|其它的?|剩下的?|"
    r"其余的?|其他那些|别的那些)$",
    re.IGNORECASE,
)
# clauses end at a comma or a sentence end, and in Chinese also where a space parts two runs ("③④删掉 前面俩留着")
_CLAUSES = re.compile(r"(?<=[，,;；])|(?<=[.!?。！？])\s*|(?<=[\u4e00-\u9fff①-⑳])\s+(?=[\u4e00-\u9fff①-⑳])")
_SOFT = re.compile(
    r"\b(?:obviously|though|tho|please|pls|of course|btw)\b|[。.!！~～😅🙂吧啊哈呀了]+|^(?:but|and|just)\s+", re.I
)


def spared_in(clause: str) -> str | None:
    """What `clause` says stays ("my mate Tom", "老家"), "" when it says only "the rest" stays, or None when it is no
    such clause."""
    text = _SOFT.sub(" ", (clause or "").strip(" ，,;；")).strip()
    m = _STAYS_BEFORE.search(text) or _STAYS_AFTER.search(text)
    if m is None:
        return None
    named = (m.group("x") or m.group("zx") or "").strip(" ，,'\"")
    return "" if not named or _THE_REST.search(named) else named


def spare_clauses(sentence: str) -> tuple[str, list[str]]:
    """The sentence without its sparing clauses, and what those clauses spare (each a phrase; "" for "the rest")."""
    spared, kept = [], []
    for clause in [c for c in _CLAUSES.split(sentence or "") if c.strip()]:
        named = spared_in(clause)
        if named is None:
            kept.append(clause)
        else:
            spared.append(named)
    return "".join(kept).strip(" ，,;；"), spared
