"""The answer to "Do you mean X or Y?", the question the turn asks when a forget fits two notes about equally
(memory.reading.targets): both, the first, the second, one of them named again, or neither."""

from __future__ import annotations

import re

from memory.reading.targets import MARGIN, THRESHOLD, notes_scored

_BOTH = re.compile(r"\b(?:both|all of them|either|the two)\b|两个都|两条都|都(?:忘|删|不要|别记)|全部|都行|都是", re.I)
_FIRST = re.compile(r"\b(?:first|former|the 1st|number one|no\.? ?1)\b|第一|前一|前者|上面", re.I)
_SECOND = re.compile(r"\b(?:second|latter|the 2nd|number two|no\.? ?2)\b|第二|后一|后者|下面", re.I)
_NEITHER = re.compile(r"\b(?:neither|none|never ?mind|cancel|no)\b|都不|算了|不用了|不是", re.I)


def ask_answered(answer: str, asked: list) -> list | None:
    """The notes an answer to "Do you mean X or Y?" picks from `asked` (the two notes, in the order asked): both,
    the first, the second, [] for neither, or None when the message is no answer to the question."""
    text = (answer or "").strip()
    if not text or len(text) > 120:
        return None
    if _BOTH.search(text):
        return list(asked)
    first, second = bool(_FIRST.search(text)), bool(_SECOND.search(text))
    if first != second:
        return [asked[0]] if first else [asked[1]]
    scored = notes_scored(text, list(asked))
    if scored and scored[0][1] >= THRESHOLD and (len(scored) < 2 or scored[0][1] - scored[1][1] >= MARGIN):
        return [scored[0][0]]
    if _NEITHER.search(text):
        return []
    return None
