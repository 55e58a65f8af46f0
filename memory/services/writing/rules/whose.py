"""Whose fact a clause states: the user's, or one of their people's ("my wife works as a nurse": her job)."""

from __future__ import annotations

import re

from memory.services.writing.rules.patterns import RELATIVE_SUBJECT

# the words that name one of the user's people, in either language
FAMILY = re.compile(
    r"\b(?:wife|husband|son|daughter|kids?|children|partner|mother(?! tongue)|father|mom|mum|dad|brother|sister|parents?|cousin|"
    r"aunt|uncle|nephew|niece|grand\w+|in-laws?|\w+-in-law|lads?|lass)\b|老婆|老公|妻子|丈夫|爱人|儿子|女儿|孩子|闺女|"
    r"爸|妈|父|母|哥|姐|弟|妹|表|堂|姑|姨|舅|叔|婶|侄|甥|爷|奶|外公|外婆|姥|婆婆|公公|岳",
    re.IGNORECASE,
)
_WITH_ME = re.compile(r"\b(?:and|&) (?:I|me)\b|和我|跟我|我们俩|我们两", re.IGNORECASE)


def theirs(clause: str) -> bool:
    """The clause's subject is one of the user's people ("my cousin Priya …", "我表姐…"), not the user with them
    ("my partner and I …")."""
    from memory.reading.about import SUBJECT_KIN

    return bool(RELATIVE_SUBJECT.search(clause) or SUBJECT_KIN.search(clause)) and not _WITH_ME.search(clause)
