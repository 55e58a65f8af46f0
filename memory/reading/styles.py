"""A style instruction ("please call me Sam", "回答我的时候尽量用表格") is a preference the user may keep: when the
rules read no fact from its sentence, it is kept as a note in the user's own words. An attack on the assistant's
rules never gets here (memory.reading.reader keeps nothing of a message that holds one)."""

from __future__ import annotations

import re

from memory.reading.acts import Instruction, Reading
from memory.reading.cues import STYLE, STYLE_HABIT


def _asks_something_else(said: str) -> bool:
    """The instruction comes with a question of another kind ("简单点说，这个怎么弄？"): it is about this answer."""
    clauses = [c for c in re.split(r"[,，;；]", said) if c.strip()]
    last = clauses[-1].strip()
    return len(clauses) > 1 and last.endswith(("?", "？")) and not STYLE.search(last)


# a task asked for now, with its format ("summarise the plot of Hamlet in 3 sentences", "用表格列一下这三款手机的区别"):
# how to answer this request, not how to answer the user from now on
_ONE_OFF = re.compile(
    r"^(?:(?:please|pls|can you|could you|would you)\s+)*(?:summari[sz]e|explain|list|give me|tell me|show me|describe|"
    r"outline|compare|write|draft|translate|recommend|suggest|rank|plan)\b|"
    r"^(?:请|麻烦)?(?:你)?(?:帮我)?(?:总结|概括|解释|列出|列一下|讲讲|介绍|写|翻译|推荐|对比|比较)|一下|这[个几两三]|\bthis (?:one|time)\b",
    re.IGNORECASE,
)


def with_style(reading: Reading, candidates: list, *, chinese: bool) -> list:
    """The candidates with a preference for each style instruction of `reading` no fact already rests on; a plan
    the rules read from an instruction ("以后叫我老板就行" is no plan of the user's) gives way to it."""
    from memory.models import MemoryNote
    from memory.services.writing.rules import Candidate

    out = []
    for act in reading.of(Instruction):
        said = act.span.strip()
        if act.kind != "style":
            continue
        within = [c for c in candidates if c.quote and (c.quote in said or said in c.quote)]
        # a fact the rules read from the instruction itself stands; the reason said with it ("…from now on, I
        # need the practice") is no fact of its own, and the preference holds it
        if any(c.kind != MemoryNote.Kind.PLAN and STYLE.search(c.quote) for c in within):
            continue
        candidates = [c for c in candidates if not any(c is r for r in within)]
        if _ONE_OFF.search(said) and not STYLE_HABIT.search(said):
            continue
        if _asks_something_else(said):
            continue  # "简单点说，这个怎么弄？": how to answer this question, not a standing preference
        words = said.rstrip("。.!！~～ ")
        content = f"用户对助手的要求：“{words}”。" if chinese else f"The user asked the assistant: “{words}”."
        out.append(
            Candidate(
                kind=MemoryNote.Kind.PREFERENCE,
                key="",
                content=content,
                value=None,
                confidence=0.85,
                source=MemoryNote.Source.USER_STATED,
                quote=said,
                extra={"style": True},
            )
        )
    return candidates + out
