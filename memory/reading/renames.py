"""A name put right or given anew: "it's Kaitlyn, not Caitlin", "是旺崽，不是旺仔", "日字旁那个昕", "we renamed the
parrot Mango", "狗子改名了 现在叫可乐". The note that holds the old name (and no other note) is rewritten with the new
one; memory.reading.changes reads these before any other change."""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from core.text import split_sentences
from memory.reading.mentions import names_in


@dataclass(frozen=True)
class Change:
    """`sentence` (the user's words) says that `note` no longer holds."""

    note: Any  # a MemoryNote
    sentence: str
    score: float
    rewritten: str = ""  # the note with a name put right ("Jon" -> "John"), when that is all the change says
    measured: bool = False  # said by a new amount of what the note measures ("瘦到58公斤了哈哈哈": no passing whim)


# "it's Kaitlyn, not Caitlin", "John with an h, not Jon", "Mocha not Mochi", "是旺崽，不是旺仔", "不是旺仔，是旺崽"
RENAMED = (
    re.compile(
        r"\b(?P<new>[A-Z][\w'-]+)\b(?:\s+(?:[a-z][a-z']*|\d+|[A-Z]s)(?=[\s,])){0,4}?,?\s+(?:not|rather than|instead of)\s+"
        r"(?P<old>[A-Z][\w'-]+)\b"
    ),
    re.compile(r"\bnot\s+(?P<old>[A-Z][\w'-]+)\s*[,;]?\s*(?:it'?s|but|rather)\s+(?P<new>[A-Z][\w'-]+)\b"),
    re.compile(
        r"(?:叫|是)(?P<new>[\u4e00-\u9fff]{2,3}?)[，,\s]*(?:不是|而不是)(?P<old>[\u4e00-\u9fff]{2,3}?)(?=[。！!，,\s]|$)"
    ),
    re.compile(
        r"不是(?:叫)?(?P<old>[\u4e00-\u9fff]{2,3}?)[，,\s]*(?:是|而是|叫)(?P<new>[\u4e00-\u9fff]{2,3}?)(?=[。！!，,\s]|$)"
    ),
)


PUT_RIGHT = re.compile(
    r"\b(?:wrong|typo|typed|autocorrect|spell(?:ed|t|ing)?|misspel\w*|with an? [a-z]\b|i meant|correction)\b|"
    r"写错|打错|记错|错了|字旁|的那个|更正",
    re.IGNORECASE,
)


def _spelt_alike(a: str, b: str) -> bool:
    return SequenceMatcher(None, a.lower(), b.lower()).ratio() >= 0.5


def renamed(text: str, notes: list) -> Change | None:
    """A name put right: the old name is in exactly one note, which is rewritten with the new one."""
    for sentence in split_sentences(text):
        for rx in RENAMED:
            m = rx.search(sentence)
            if not m or m.group("new") == m.group("old"):
                continue
            old = m.group("old")
            if not (_spelt_alike(old, m.group("new")) or PUT_RIGHT.search(text)):
                continue  # "I prefer Paris, not London": another choice, not a name put right
            word = re.compile(rf"(?<![\w]){re.escape(old)}(?![\w])" if old.isascii() else re.escape(old))
            holding = [n for n in notes if word.search(n.content)]
            if len(holding) == 1:
                note = holding[0]
                return Change(note, sentence.strip(), 1.0, rewritten=word.sub(m.group("new"), note.content))
    return _respelt(text, notes) if PUT_RIGHT.search(text) else _given_new_name(text, notes)


# a new name given on purpose: "we renamed the parrot Mango", "狗子改名了 现在叫可乐", "she goes by Sasha now"
_NEW_NAME = re.compile(
    r"\brenamed (?:\w+ ){0,3}?(?P<en>[A-Z][\w'-]+)|\b(?:now called|goes by|new name is) (?P<en2>[A-Z][\w'-]+)|"
    r"(?:改名|改叫|改成)了?[，,\s]*(?:现在)?叫?(?P<zh>[\u4e00-\u9fff]{2,3}?)(?=[，。,.!！\s哈啦了]|$)|"
    r"改名了?[，,\s]*现在叫(?P<zh2>[\u4e00-\u9fff]{2,3}?)(?=[，。,.!！\s哈啦了]|$)"
)


def _given_new_name(text: str, notes: list) -> Change | None:
    """A note's name replaced by the new one a message gives, when exactly one note holds a name the message
    also says (the old one: "he never answered to Kiwi anyway", "旺财太土了")."""
    m = _NEW_NAME.search(text)
    new = m and next((g for g in m.groups() if g), None)
    if not new:
        return None
    old = [(n, name) for n in notes for name in names_in(n.content) if name != new and name in text]
    if len({id(n) for n, _ in old}) != 1:
        return None
    note, name = old[0]
    return Change(note, text.strip(), 1.0, rewritten=note.content.replace(name, new))


def _respelt(text: str, notes: list) -> Change | None:
    """ "I typed it wrong, my dog is 旺崽" / "you've got her name wrong, it's Kaitlyn": a name said after a word that
    puts something right, spelt like the name one note holds (and no other)."""
    said = names_in(text) | set(re.findall(r"\b[A-Z][a-z]{2,}\b", text))
    for new in said:
        alike = [(n, old) for n in notes for old in names_in(n.content) if old != new and _spelt_alike(old, new)]
        if len({id(n) for n, _ in alike}) == 1:
            note, old = alike[0]
            return Change(note, text.strip(), 1.0, rewritten=note.content.replace(old, new))
    return _one_character_put_right(text, notes)


def _one_character_put_right(text: str, notes: list) -> Change | None:
    """ "是刘昕怡，日字旁那个昕" after "用户的女儿叫刘欣怡": a Chinese name of a note said with one character
    changed (the first such run of the message), held by that note only."""
    found = []
    for note in notes:
        for old in (o for o in names_in(note.content) if re.fullmatch(r"[\u4e00-\u9fff]{2,4}", o)):
            width = len(old)
            runs = (text[i : i + width] for i in range(len(text) - width + 1))
            new = next(
                (
                    r
                    for r in runs
                    if re.fullmatch(r"[\u4e00-\u9fff]+", r) and sum(a != b for a, b in zip(r, old, strict=True)) == 1
                ),
                None,
            )
            if new:
                found.append((note, old, new))
    if len({id(n) for n, _, _ in found}) != 1:
        return None
    note, old, new = found[0]
    return Change(note, text.strip(), 1.0, rewritten=note.content.replace(old, new))
