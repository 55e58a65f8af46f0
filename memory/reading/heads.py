"""The head of a forget's phrase, the thing it names ("allergy" in "my peanut allergy", "过敏" in "花生过敏"), and
whether a note holds only a word before it: such a note shares a modifier, not the thing."""

from __future__ import annotations

import re

from core.text import has_chinese

# the words that head a phrase without naming a thing ("my shift pattern", "婚姻状况", "the coffee one")
_ABSTRACT_HEADS = {
    "pattern", "schedul", "status", "situat", "name", "detail", "info", "stuff", "thing", "one", "bit", "part",
    "histori", "condit", "plan", "issu", "problem", "note", "record", "entri", "fact", "memori", "life", "situation",
    "状况", "情况", "名字", "问题", "事情", "东西", "信息", "资料", "记录", "计划", "那条", "这条", "相关", "那事", "这事",
    "的事", "那个", "这个",
}  # fmt: skip
_ZH_LOOSE_HEADS = {"打算", "想法", "经历", "安排", "数字", "细节", "内容", "经过", "部分", "方面", "时候"}
_ZH_FUNCTION = re.compile(r"[在的是了我你他她有去做和跟把被也都就还又很]")
_VERB_FORM = re.compile(r"\b\w{3,}(?:ing|ed)\b|\b(?:am|is|are|was|were|do|does|did|have|has|go|goes|get|gets)\b", re.I)


def head_missing(phrase: str, note) -> bool:
    """The phrase's head is not in the note though a word before it is ("my peanut allergy" / "loves peanut butter",
    "my home address" / "works from home"): the note shares a modifier, not the thing named."""
    from memory.services.vectors.embeddings import search_terms

    terms = search_terms(phrase)
    words = phrase.split()
    if terms and words and not has_chinese(phrase) and _only_in_a_name(words[-1], note.content):
        return True  # "my cat" / "listens to Cat Stevens": the word is part of a name there, not the thing
    if has_chinese(phrase):
        return _head_missing_zh(phrase, note.content)
    if len(terms) < 2 or terms[-1] in _ABSTRACT_HEADS or _VERB_FORM.search(phrase):
        # "us trying for a baby": what is done, not a thing
        return False
    held = set(search_terms(note.content))  # its own words: a slot's topic terms ("address") are no thing it holds
    return terms[-1] not in held and any(t in held for t in terms[:-1])


_ZH_FRAME = re.compile(
    r"^(?:我的?|把|关于)|(?:那条|这条|的事情?|那事|这事|那个|这个|相关|的|事|是?(?:哪里?|哪儿|什么|啥|多少|几)|是|在)+$"
)


def _head_missing_zh(phrase: str, content: str) -> bool:
    """ "花生过敏" / "用户喜欢吃花生酱": the note holds a pair of characters before the phrase's last two and
    none of those two ("近视度数" / "近视600度" keeps its 度)."""
    core = _ZH_FRAME.sub("", _ZH_FRAME.sub("", phrase.strip()))
    if len(core) < 4 or not re.fullmatch(r"[\u4e00-\u9fff]+", core):
        return False
    head, before = core[-2:], core[:-2]
    if head in _ABSTRACT_HEADS or head in _ZH_LOOSE_HEADS:
        return False  # "小儿子的情况", "跑马拉松的打算": the thing is what comes before
    pairs = [before[i : i + 2] for i in range(len(before) - 1)]
    shared = [p for p in pairs if p in content and not _ZH_FUNCTION.search(p)]  # "姐在" names no thing
    return not any(c in content for c in head) and bool(shared)


def _only_in_a_name(word: str, content: str) -> bool:
    """Whether `word` stands in `content` only capitalised inside a sentence, as part of a name."""
    if not word.islower():
        return False
    found = list(re.finditer(rf"\b{re.escape(word)}\b", content, re.IGNORECASE))
    return bool(found) and all(m.start() > 0 and m.group()[0].isupper() for m in found)
