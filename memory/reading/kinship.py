"""The people (and animals) of a user's life a text names (a spouse, a child, a friend, a boss), each group by one name in either
language: a request or a change that names one relative is not about a note of another."""

from __future__ import annotations

import re

# Relatives and other people, each group with the words that name it: English words whole ("person" names no son,
# "climate" no mate), Chinese ones as written, 表 and 堂 only before the relative they qualify (手表, 教堂)
_KIN = {
    "spouse": (
        r"wife|husband|spouse|partner|missus|missis|wifey|hubby|other half",
        r"老婆|妻子|太太|爱人|老公|丈夫|先生|媳妇",
    ),
    "date": (r"girlfriend|boyfriend|dating", r"男朋友|女朋友|对象"),
    "child": (  # "trying for a baby": no one yet
        r"son|daughter|lads?|lass|kids?|child(?:ren)?|(?<!\ba )baby",
        r"儿子|女儿|孩子|娃|宝宝|闺女",
    ),
    "parent": (
        r"mum|mom|mother(?! tongue)|dad|father|parents?|folks|in-laws?",
        r"妈|爸|母亲|父亲|父母|婆婆|公公|岳父|岳母|丈母娘|老丈人",
    ),
    "sibling": (r"brother|sister|sibling", r"哥|姐|弟|妹"),
    "grand": (
        (
            r"grandma|grandmother|grandmum|grandmom|nana?|nanna|gran|granny|grandpa|grandfather|grand?dad|gramps|grampa|"
            r"grandparents?|grand(?:son|daughter|kids?|child(?:ren)?)"
        ),
        r"奶奶|爷爷|外婆|姥姥|外公|姥爷",
    ),
    "cousin": (r"cousin|aunt|uncle|nephew|niece", r"[表堂](?=[哥姐弟妹兄])|姑|姨|叔|舅|侄|甥"),
    "friend": (r"friend|mate|buddy", r"朋友|闺蜜|哥们|兄弟"),
    "work": (r"boss|colleague|coworker|manager", r"老板|同事|领导|上司"),
    "ex": (r"ex|ex-", r"前任|前男友|前女友|前妻|前夫"),
}
_KIN_RX = {k: re.compile(rf"\b(?:step-?|god)?(?:{en})(?:s|es)?\b|{zh}", re.I) for k, (en, zh) in _KIN.items()}


# Within a group, the one who is a man and the one who is a woman are two people: "闺女转学了" is not about
# "用户的儿子在实验中学", "my sister" not about "the user's brother".
_HE = re.compile(
    r"\b(?:son|boy|brother|dad|father|husband|boyfriend|uncle|nephew|grandpa|grandfather)\b|儿子|哥|弟|爸|父|老公|丈夫|男朋友|叔|舅|爷|外公|姥爷|侄子|外甥(?!女)",
    re.I,
)
_SHE = re.compile(
    r"\b(?:daughter|girl|sister|mum|mom|mother|wife|girlfriend|aunt|niece|grandma|grandmother|nan|granny)\b|女儿|闺女|姐|妹|妈|母|老婆|妻子|女朋友|姑|姨|奶奶|外婆|姥姥|侄女|外甥女",
    re.I,
)


def kin(text: str) -> set[str]:
    return {k for k, rx in _KIN_RX.items() if rx.search(text or "")}


def _sexes(text: str) -> set[str]:
    return {sex for sex, rx in (("he", _HE), ("she", _SHE)) if rx.search(text or "")}


def kin_shared(a: str, b: str) -> set[str]:
    """The groups of people both texts name, unless one names only a man and the other only a woman."""
    shared = kin(a) & kin(b)
    one, other = _sexes(a), _sexes(b)
    return set() if len(one) == 1 and len(other) == 1 and one != other else shared


def kin_mismatch(phrase: str, content: str) -> bool:
    """The phrase names a relative and the note speaks of other relatives only ("my wife" / "the user's sister")."""
    return bool(kin(phrase) and kin(content) and not kin_shared(phrase, content))


# kinds of animal: a forget that names one never means a note about another ("狗子的名字" / "用户想再养一只猫")
_SPECIES = [
    re.compile(r"\b(?:dogs?|pupp(?:y|ies)|pups?|doggos?|pooch)\b|狗|犬", re.IGNORECASE),
    re.compile(r"\b(?:cats?|kittens?|kitty|kitties|moggy)\b|猫|喵", re.IGNORECASE),
    re.compile(r"\b(?:rabbits?|bunn(?:y|ies))\b|兔", re.IGNORECASE),
    re.compile(r"\b(?:horses?|pon(?:y|ies))\b|马(?!上|拉松|路)", re.IGNORECASE),
    re.compile(r"\b(?:birds?|parrots?|budgies?|canar(?:y|ies))\b|鸟|鹦鹉", re.IGNORECASE),
    re.compile(r"\b(?:fish|goldfish)\b|(?<![钓])鱼", re.IGNORECASE),
]


def other_animal(phrase: str, content: str) -> bool:
    """The phrase names one kind of animal and the note only others."""
    said = [rx for rx in _SPECIES if rx.search(phrase)]
    return len(said) == 1 and not said[0].search(content) and any(rx.search(content) for rx in _SPECIES)
