"""A message into sentences and clauses, and the words around a statement that are not part of it ("as I said",
"你觉得呢").
"""

from __future__ import annotations

import re

from core.text import has_chinese
from memory.services.writing.rules.patterns import CHANGE, FIRST_PERSON, QUESTION

_CLAUSE_SPLIT = re.compile(r"(?<=[，、；;：])|(?<=[,:])(?!\d)|(?<=[。！!？?\n])")
# "I'm vegetarian and my budget is ...": a conjunction followed by a new subject starts a new statement. "and" inside
# one statement ("cats and dogs", "I sleep and eat well") has no subject after it and stays.
_SUBJECT_JOIN = re.compile(
    r"\s*,?\s+\b(?:and|but|plus|also|while|whereas)\s+(?=(?:also\s+)?(?:I|I'm|I've|I'd|I'll|my|we|"
    r"we're|we've|our|she|she's|he|he's|they|they're|her|his|their)\b)"
    r"|(?<=[\u4e00-\u9fff])(?:而且|并且|另外|同时|还有|但是?|不过)(?=我|我们|咱|俺)"
)
# Words that tell the listener "I said this before", not facts: stripped so a restatement reads as its fact.
DISCOURSE = re.compile(
    r"^\s*(?:(?:like|as) i (?:said|mentioned|told you)(?: before| earlier)?|as mentioned|"
    r"i told you(?: before)?|just to remind you|(?:just a )?reminder|remember|again|by the way|"
    r"you know|to repeat|once more|for the record|"
    r"我(?:之前|前面|刚才|早就|上次)?(?:说过|说了|讲过|提过)的?|(?:之前|前面|上次|早就)(?:说过|说了|讲过|提过)|"
    r"(?:再)?提醒(?:你)?一下|顺便说一下|顺便一提|记住|记得|再说一遍|重复一下|还是老样子|对了|对啦|哦对|话说|笑死|哈哈+|绝了|服了)"
    r"(?:\s*[,，:：.。!！]\s*|\s+|$|(?=[\u4e00-\u9fff]))",
    re.IGNORECASE,
)
_DISCOURSE_TAIL = re.compile(
    r"\s*[,，]?\s*(?:(?:like|as) i (?:said|mentioned|told you)(?: before| earlier)?|"
    r"as i've said|remember|again|"
    r"(?:我)?(?:之前|前面|上次)?(?:说过|讲过|提过)(?:的|了)?|(?<=[\u4e00-\u9fff])\s+(?:活久见|笑死|哈哈+))\s*[.!。！]?\s*$",
    re.IGNORECASE,
)


# "Is this Chinese" for the rules: any Chinese character (core.text.has_chinese). The name stays for callers.
is_chinese = has_chinese


def split_clauses(sentence: str) -> list[str]:
    """Clauses of one sentence: at punctuation, and at a conjunction that starts a new subject; the "as I said"
    around a restatement is left out."""
    out = []
    for part in _CLAUSE_SPLIT.split(sentence):
        for clause in _SUBJECT_JOIN.split(part or ""):
            clause = strip_discourse(clause or "")
            if clause:
                out.append(clause)
    return out


def strip_discourse(clause: str) -> str:
    """ "Like I said, I work as ..." -> "I work as ...": reminders are not facts."""
    clause = clause.strip(" ，,、；;：:")
    while True:
        stripped = DISCOURSE.sub("", clause, count=1).strip(" ，,、；;：:")
        stripped = _DISCOURSE_TAIL.sub("", stripped).strip(" ，,、；;：:")
        if stripped == clause:
            return clause
        clause = stripped


_ASK_TAIL = re.compile(r"(?:你|您)(?:觉得|看|说|认为|怎么看).*$|(?:do you think|what do you think).*$", re.I)


def is_question(clause: str) -> bool:
    return bool(QUESTION.search(clause.strip()))


def strip_ask_tail(clause: str) -> str:
    """ "我下一步想加外卖你觉得呢" -> "我下一步想加外卖": the statement before a tag question still counts."""
    return _ASK_TAIL.sub("", clause).strip(" ，,")


def span(sentence: str, clauses: list[str]) -> str:
    """The user's own words from the first of `clauses` to the last, as they stand in the sentence (a quote must be
    the user's words; joining clauses with a comma would not be)."""
    start = sentence.find(clauses[0])
    end = sentence.find(clauses[-1], max(start, 0))
    if start < 0 or end < 0:
        return ""
    return sentence[start : end + len(clauses[-1])].strip()


def content_terms(clause: str) -> list[str]:
    """What a clause says beyond who says it and that it changed: "Actually." and "我说过" have nothing left."""
    from memory.services.vectors.embeddings import search_terms

    bare = CHANGE.sub(" ", FIRST_PERSON.sub(" ", clause))
    bare = re.sub(r"\b(?:not|no|now|just|also|still|really|so|then|too)\b|不是|不|了|吧|啊|呢", " ", bare, flags=re.I)
    return search_terms(bare)
