"""A clause read with its neighbours: what it says depends on the clause or sentence beside it.

- "sommelier at a wine bar, that's my job": the pointer clause says what the one before it is (one fact);
- "We got a puppy! A beagle called Scout.": the second sentence only names what the first told of;
- "I'm a night owl" said alone is what kind of person the user is; "I'm knackered" is how they are right now.
"""

from __future__ import annotations

import re
from dataclasses import replace

from memory.services.writing.rules.candidate import Candidate
from memory.services.writing.rules.clauses import content_terms, span
from memory.services.writing.rules.patterns import SUBJECT_EN, SUBJECT_ZH, kind_of
from memory.services.writing.rules.slots import place_in

# a sentence that only names what the one before it told of: "We got a puppy! A beagle called Scout."
NAMED_THING = re.compile(
    r"^(?:an?|the|my)\s+(?:[\w-]+\s+){0,3}?(?:called|named)\s+[A-Z][\w'-]+[.!~]*$|"
    r"^(?:一[只条个头])?[\u4e00-\u9fff]{1,6}?[，,]?\s*(?:叫|名叫|名字叫)[\u4e00-\u9fff]{1,4}[。！!~]*$",
    re.IGNORECASE,
)


def apposed(candidate: Candidate, sentence: str, chinese: bool) -> Candidate:
    """The candidate of the sentence before, with the name the next sentence gives to its thing."""
    said = sentence.rstrip("。.!！~ ")
    content = candidate.content.rstrip("。.!！ ")
    content = f"{content}，{said}。" if chinese else f"{content}, {said[0].lower()}{said[1:]}."
    return replace(candidate, content=content)


# a clause that only gives a name to what the one before it told of ("…, called Peanut", "…，叫阿呆")
_NAME_ONLY = re.compile(
    r"^\W*(?:called|named)\s+[A-Z][\w'-]+\W*$|^\W*(?:叫|名叫|名字叫)[\u4e00-\u9fff]{1,4}\W*$", re.IGNORECASE
)


# a clause that only says what the one before it is: "sommelier at a wine bar, that's my job", "画画，那是我的爱好"
_POINTER = re.compile(
    r"^\W*(?:that'?s|that is|this is|it'?s)\s+(?:my|our)\s+(?P<en>[a-z][a-z ]{1,20}?)\W*$|"
    r"^\W*(?:这|那)(?:就)?是我的(?P<zh>[\u4e00-\u9fff]{1,4})\W*$",
    re.IGNORECASE,
)


def pointed_at(statements: list[str], *, sentence: str, chinese: bool, quotes: dict[str, str]) -> list[str]:
    """The statements with a pointer clause folded into the clause it points at ("my job is sommelier at a wine
    bar"), so that neither is read alone; the user's own words stay its quote (written to `quotes`)."""
    out: list[str] = []
    for clause in statements:
        if _NAME_ONLY.match(clause) and out:  # "we got a hamster, called Peanut": the name of what was just said
            before = out.pop()
            joined = f"{before.rstrip(' ,，')}{'，' if chinese else ', '}{clause.strip(' ,，')}"
            quotes[joined] = span(sentence, [before, clause]) or sentence
            out.append(joined)
            continue
        m = _POINTER.match(clause)
        if m and out and (SUBJECT_ZH if chinese else SUBJECT_EN).search(out[-1]):
            continue  # "I teach yoga, that's my main income": the clause before says it with its own subject
        if m and out:
            before = out.pop()
            said = before.strip(" ,，")
            folded = f"我的{m.group('zh')}是{said}" if m.group("zh") else f"my {m.group('en').strip()} is {said}"
            quotes[folded] = span(sentence, [before, clause]) or sentence
            out.append(folded)
        else:
            out.append(clause)
    return out


_SHORT_STATE = re.compile(r"^(?:I'm|I am|I have|I've got|I've)\b", re.IGNORECASE)
# "I'm a night owl", "I'm a morning person": what kind of person one is, not how one is right now ("I'm a bit tired")
_A_KIND_OF_PERSON = re.compile(
    r"^\W*(?:i'm|i am)\s+an?\s+(?!(?:bit|little|lot|tad|mess|wreck|sec|minute|moment)\b)[a-z-]+"
    r"(?!.*\b(?:today|tonight|right now|at the moment|this week)\b)",
    re.IGNORECASE,
)


def short_state(clause: str) -> bool:
    """ "I'm knackered", "I have a quick question": "I'm / I have" and at most two words more, no number, no place
    and no plan ("I'm moving to Berlin in September" is a plan, "I'm around 5'10"" a height)."""
    return bool(
        _SHORT_STATE.match(clause)
        and len(content_terms(clause)) <= 2
        and not re.search(r"\d", clause)
        and not place_in(clause)
        and kind_of(clause) in (None, "profile")
    )


def lasting(clause: str, *, chinese: bool, alone: bool, whim: bool) -> bool:
    """Whether a short "I'm / I have" statement is a lasting fact about the user: the rules cannot tell a trade
    from a mood by one or two words, the encoder can (memory.reading.durable). `alone`: the sentence's only
    clause ("I'm a night owl"; beside another clause, "I do my best work after midnight", the other says it)."""
    from memory.reading.durable import is_lasting

    if chinese or len(content_terms(clause)) > 3 or not SUBJECT_EN.search(clause) or whim:
        return False
    return bool(alone and _A_KIND_OF_PERSON.search(clause)) or is_lasting(clause)
