"""Which of a user's notes a message changes: a statement that says something has changed ("I moved to Berlin",
"涨薪了，现在月薪1.8万", "Zoe dropped violin and picked up drums") replaces the note it is about, found by meaning.

A replacement needs more evidence than an addition: the sentence must say that something changed (a change word:
"now", "switched", "搬", "改", "不再"), state it (not ask, not plan, not imagine), and be closer to one note than to
every other by a clear margin. A sentence that only mentions a topic ("climbing tonight, my forearms are crying",
"咖啡店的事我们接着聊") has no change word and replaces nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from core.text import split_sentences
from memory.reading.targets import notes_scored

FLOOR = 0.2  # the note a change is about scores at least this (cosine + words + slot, memory.reading.targets)
MARGIN = 0.1  # … and this much more than the next note
MAX_SENTENCE = 120  # a longer sentence is left to the rules' clauses: one note would hold too much

CHANGE = re.compile(
    r"\b(?:now|these days|nowadays|any ?more|no longer|not \w+ any ?more|instead(?: of)?|actually|switched|"
    r"switching|changed|moved|relocated|dropped|picked up|left|quit|finished|graduated|retired|promoted|joined|"
    r"cancell?ed|stopped|started|became|pushed|postponed|brought forward|overtaken|replaced|up to|down to|"
    r"hiked|raised|cut|went (?:up|down)|turned \d+|miscounted|autocorrect|i meant|not \w+,? (?:but|it'?s)|"
    r"new job|got (?:a |an )?(?:new|promoted|married|engaged|divorced))\b|"
    r"现在|如今|目前|已经|不再|不是.{1,12}[，,]?(?:是|而是)|其实|说错|改(?:成|为|去|学|用|到|了)|换(?:了|成|到)?|搬|"
    r"挪|升|涨|降|转(?:岗|行|到|学|了)|戒|毕业|离职|辞职|跳槽|入职|退休|脱单|结婚|离婚|分手|满\d+岁|满[一二三四五六七八九十]+岁|"
    r"变成|接到|不去了|不学了|不做了|不干了|不吃.{0,6}了|开始",
    re.IGNORECASE,
)
# a plan, a wish or a hypothetical is not yet a change of what is so
NOT_YET = re.compile(
    r"\b(?:plan(?:ning)?|thinking (?:of|about)|might|may|maybe|perhaps|considering|going to|gonna|want to|"
    r"would like|hope|hoping|if|should i)\b|打算|计划|考虑|要不要|也许|可能|或许|如果|假如|想要|准备",
    re.IGNORECASE,
)
_QUESTION = re.compile(r"[?？]\s*$|吗[。.!！]?\s*$|呢[。.!！]?\s*$")


@dataclass(frozen=True)
class Change:
    """`sentence` (the user's words) says that `note` no longer holds."""

    note: Any  # a MemoryNote
    sentence: str
    score: float


def _may_change(sentence: str) -> bool:
    return (
        len(sentence) <= MAX_SENTENCE
        and bool(CHANGE.search(sentence))
        and not NOT_YET.search(sentence)
        and not _QUESTION.search(sentence)
    )


def says_change(text: str) -> bool:
    """Whether a sentence of `text` could state a change (the user's notes are read only then)."""
    return any(_may_change(s) for s in split_sentences(text))


def change_read(text: str, notes: list) -> Change | None:
    """The note `text` changes, with the sentence that says so; None when no sentence states a change of a
    known fact clearly enough (no change word, a question or a plan, or no note clearly closest)."""
    if not notes:
        return None
    best: Change | None = None
    for sentence in split_sentences(text):
        if not _may_change(sentence):
            continue
        scored = notes_scored(sentence, notes)
        top, score = scored[0]
        second = scored[1][1] if len(scored) > 1 else 0.0
        if score >= FLOOR and score - second >= MARGIN and (best is None or score > best.score):
            best = Change(note=top, sentence=sentence.strip(), score=score)
    return best


def change_candidates(candidates: list, change: Change, *, chinese: bool) -> list:
    """The candidates with the change applied: the one that already holds the note's slot with a value (the rules
    read the new value: an amount, a place) is marked as replacing the note; otherwise the sentence's clause-by-clause candidates give way to one
    candidate holding the whole sentence in the user's words ("Zoe dropped violin and picked up drums" is one
    change, not "Zoe dropped violin")."""
    from memory.models import MemoryNote
    from memory.services.rules import Candidate, third_person

    note = change.note
    slot = (note.key or "").split(":")[-1]
    for c in candidates:
        if slot and c.value and (c.key or "").split(":")[-1] == slot:
            c.change, c.unclear = True, False
            c.extra = {**c.extra, "replaces": note.pk}
            return candidates
    rest = [c for c in candidates if not (c.quote and (c.quote in change.sentence or change.sentence in c.quote))]
    return rest + [
        Candidate(
            kind=note.kind,
            key=note.key,
            content=third_person(change.sentence.rstrip("。.!！~～ "), chinese),
            value=None,
            confidence=0.85,
            source=MemoryNote.Source.USER_STATED,
            quote=change.sentence,
            change=True,
            extra={"replaces": note.pk},
        )
    ]
