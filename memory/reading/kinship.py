"""The people of a user's life a text names (a spouse, a child, a friend, a boss), each group by one name in either
language: a request or a change that names one relative is not about a note of another."""

from __future__ import annotations

import re

# Relatives and other people, each group with the words that name it in either language
_KIN = {
    "spouse": r"wife|husband|spouse|partner|missus|missis|wifey|hubby|other half|老婆|妻子|太太|爱人|老公|丈夫|先生|媳妇",
    "date": r"girlfriend|boyfriend|dating|男朋友|女朋友|对象",
    "child": r"son|daughter|kids?|child(?:ren)?|(?<!\ba )baby|儿子|女儿|孩子|娃|宝宝|闺女",  # "trying for a baby": no one yet
    "parent": r"mum|mom|mother|dad|father|parents?|folks|妈|爸|母亲|父亲|父母",
    "sibling": r"brother|sister|sibling|哥|姐|弟|妹",
    "grand": r"grandma|grandmother|nan|granny|grandpa|grandfather|奶奶|爷爷|外婆|姥姥|外公|姥爷",
    "cousin": r"cousin|aunt|uncle|nephew|niece|表|堂|姑|姨|叔|舅|侄|甥",
    "friend": r"friend|mate|buddy|朋友|闺蜜|哥们|兄弟",
    "work": r"boss|colleague|coworker|manager|老板|同事|领导|上司",
    "ex": r"\bex\b|ex-|前任|前男友|前女友|前妻|前夫",
}
_KIN_RX = {k: re.compile(rf"(?:{v})", re.I) for k, v in _KIN.items()}


def kin(text: str) -> set[str]:
    return {k for k, rx in _KIN_RX.items() if rx.search(text or "")}


def kin_mismatch(phrase: str, content: str) -> bool:
    """The phrase names a relative and the note speaks of other relatives only ("my wife" / "the user's sister")."""
    mine, theirs = kin(phrase), kin(content)
    return bool(mine and theirs and not mine & theirs)
