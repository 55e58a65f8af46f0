"""What a forget request names, with the request's own words taken out: "please wipe what you saved about my pet"
-> "my pet", "我过敏那个就别记了" -> "我过敏". Also the topic of any sentence with cue words (memory.reading.intents
explains the topic away when it compares a sentence with the labelled bank)."""

from __future__ import annotations

import re

from memory.reading import cues

_POLITE = re.compile(
    r"^(?:(?:please|pls|hey|ok(?:ay)?|so|and|also|oh|actually|can you|could you|would you|will you|i want you to|"
    r"i'd like you to|you can|you should|just|kindly|stop)\s+)+|^(?:请你?|麻烦你?|帮我|你就?|就|那你|还是|算了|好吧|嗯|把)+",
    re.IGNORECASE,
)
_REQUEST_WORDS = re.compile(
    rf"(?:{cues.FORGET.pattern})|\b(?:what|whatever|everything|anything|all|the stuff|the things?|the info(?:rmation)?|"
    r"the notes?|the memor(?:y|ies)|the records?|the details?|the bit|the part)\s+(?:you|that you)\s+(?:know|saved|"
    r"stored|remember(?:ed)?|noted|wrote down|have|kept|learned|got)(?:\s+(?:on|of))?\b|\b(?:about|regarding|"
    r"re|on|of|out|that|everything|anything|all|from your memory|from memory|for me|anymore|any more|now|please|thanks|thank you)\b|"
    r"(?:你)?(?:记|存|保存|记住|记下)(?:的|着的|下的|住的)|关于|有关|那条|这条|那些|这些|那件事|这件事|那个事|这个事|"
    r"那个|这个|的事情?|的内容|的信息|的记录|的记忆|的资料|记录|记忆|从记忆里|吧|了|啊|哈|呀|就|都|也",
    re.IGNORECASE,
)


_WISH_WORDS = re.compile(
    r"\b(?:i'?d (?:rather|prefer)(?: you)?(?: (?:didn'?t|not|to not))?|i would (?:rather|prefer)(?: you)?|"
    r"i (?:don'?t|do not) (?:want|need)(?: you to)?|i'?m not comfortable with(?: you)?(?: keeping)?|would you mind|"
    r"you (?:don'?t|do not) need to|(?:there'?s )?no need (?:for you )?to|not needed|needn'?t|on record|on file|anywhere|"
    r"the (?:note|thing|fact|bit|part|info|one|entry|memory)(?: (?:with|about|on|that|where))?|that one|this one|"
    r"stuff|it|them|right now|pls|any ?more|saved|kept|stor(?:ed|ing)|keep(?:ing)?|remember(?:ing)?|honestly|just|"
    r"(?:hang|hold)(?:ing)? on ?to|un-?remember|pretend i never (?:told you|said|mentioned)|never happened|"
    r"i told you|i said|i mentioned|you have|you know|you'?ve got|got)\b|"
    r"一下|先|以后|着|能不能|可不可以|给我|你知道就行|你知道就好|其实|无所谓|这种事|这块|那块|不想被提醒|不想再看到|"
    r"我不想让人知道|(?:我)?不想让?(?:你)?|不需要你|不用你|(?:就)?当我没(?:说|讲)过?|你那儿|你那边|你这儿|你|"
    # what points back at the turn before ("刚才那个", "what you just saved"): it names nothing by itself
    r"删掉|删除|删了|忘掉|忘了|忘记|清掉|去掉|清一下|清理掉|处理掉|拿掉|划掉|帮我|看着|(?:再)?在(?:你)?(?:这儿?|那儿?|这里|那里)?(?:看到|出现)|"
    r"\btake (?:it|that|them|this) out\b|"
    r"刚才|刚刚|刚|上面|上一条|前面|撤回|想了想|呃|嗯|哦|还是|行不行?|好不好|可以吗|行吗|回滚|就?当没(?:发生|说|讲)过?|"
    r"别(?:搁|放|往)心里记|中不中|删脱|"
    r"\b(?:just now|just|what you (?:just )?(?:saved|noted|stored|wrote down|added)|nah|hmm+|um+|uh+|never ?mind|"
    r"on second thought|undo)\b",
    re.IGNORECASE,
)
_CLAUSES = re.compile(r"[，,;；:：—]|\s-\s|\b(?:but|so|and then)\b", re.IGNORECASE)
_SPACED = re.compile(r"(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])")  # a space between Chinese words: a comma in chat


def _without_after(sentence: str) -> str:
    """A Chinese request without the spaced clauses after it ("跟我工作沾边的都删了吧 下班了不想看到" -> its first
    part): what follows the request is the reason, not what it names."""
    parts = _SPACED.split(sentence)
    asking = [i for i, p in enumerate(parts) if cues.FORGET.search(p) or cues.FORGET_WISH.search(p)]
    return " ".join(parts[: asking[-1] + 1]) if asking and asking[-1] < len(parts) - 1 else sentence


def _strip(clause: str) -> str:
    text = _POLITE.sub("", clause.strip().rstrip("。.!！?？~～ "))
    text = _WISH_WORDS.sub(" ", text)
    text = _REQUEST_WORDS.sub(" ", text)
    text = re.sub(
        r"(?<![\u4e00-\u9fff])[掉录除](?![\u4e00-\u9fff])|^[掉录除]|[掉录除]$", " ", text
    )  # the tail of 删掉, 记录
    text = _FILLER.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip(" ，,。.:：;；'\"")


# words that are left around the named thing and name nothing: "what", "don't", "可以", "全部"
_FILLER = re.compile(
    r"\b(?:what|whatever|don'?t|do|not|note|notes|please|can|could|would|will|all|everything|anything|about|me|"
    r"one|go|let'?s|let us|yeah|yea|yep|nah|mate|lol|haha|innit|eh|ok|okay|right|cheers|thx|thanks|honestly|wait|hmm)\b|可以|全部|所有|一切|知道就行|知道就好|知道|就行|就好|那些|这些|那边|这边|那儿|这儿|都|全|^[跟和与]|的$",
    re.IGNORECASE,
)


DEICTIC = re.compile(
    r"^(?:that|this|it|that one|this one|那个|这个|这条|那条|这|那|哎|唉|嗯|啊|actually|oh|well|\s)*$", re.I
)


_REFERS_BACK = re.compile(
    r"刚才|刚刚|你刚|上面|上一条|前面那|\b(?:just now|just (?:saved|said|noted|stored|added)|that last|undo)\b", re.I
)


def _says_something(text: str) -> bool:
    """Two characters of content, or one Chinese character that is a word ("钱的事别记了": 钱)."""
    content = re.sub(r"[\W_]", "", text)
    if re.search(r"[①-⑳]", text):
        return True  # "③删了吧": the item of the list just given
    return len(content) >= 2 or bool(re.fullmatch(r"[\u4e00-\u9fff]", content) and content not in "的了吧呢啊哦这那个")


# the request's object is a pronoun ("… about that, yeah?", "hang on to that one mate", "forget it")
_OBJECT_PRONOUN = re.compile(
    r"\b(?:that|this|it|them)(?: one)?\b[\W\s]*(?:\b(?:mate|yeah|ok|okay|please|lol|thanks)\b\W*)*$", re.I
)


def points_back(sentence: str) -> bool:
    """The request's own clause names nothing but a pronoun ("so let's just pretend I never told you about that,
    yeah?", "no need to hang on to that one mate"): it asks to forget what was said before it."""
    asking = [
        c for c in _CLAUSES.split(sentence or "") if c.strip() and (cues.FORGET.search(c) or cues.FORGET_WISH.search(c))
    ]
    if not asking or not _OBJECT_PRONOUN.search(asking[0]):
        return False
    text = _strip(asking[0])
    return not _says_something(text) or bool(DEICTIC.match(text))


# a quoted note of several words ("'lives on another continent'", "“在考公”那条")
_QUOTED = re.compile(
    r"(?<![A-Za-z])['‘“\"「『]([^'’”\"」』]{2,60}?(?:\s[^'’”\"」』]{1,60}?){2,}|[\u4e00-\u9fff][^'’”\"」』]{1,30})['’”\"」』]"
)


def quoted_phrase(text: str) -> str:
    """The words a forget request quotes ("the whole 'boyfriend lives on another continent' note, bin it"), if any."""
    quoted = _QUOTED.search(text or "")
    return quoted.group(1).strip() if quoted else ""


def forget_phrase(sentence: str) -> str:
    """What a forget request names, with the request's own words taken out ("my peanut thing", "我过敏"): the
    clause that asks, or, when it only asks ("…，删了吧"), the clause before it."""
    clauses = [c for c in _CLAUSES.split(_without_after(sentence or "")) if c and c.strip()]
    asking = [i for i, c in enumerate(clauses) if cues.FORGET.search(c) or cues.FORGET_WISH.search(c)]
    order = (
        ([asking[0]] + [i for i in range(asking[0] - 1, -1, -1)] + list(range(asking[0] + 1, len(clauses))))
        if asking
        else list(range(len(clauses)))
    )
    if asking and _REFERS_BACK.search(clauses[asking[0]]) and not _strip(clauses[asking[0]]):
        return ""  # "上面那条别存了", "forget what you just saved": the turn before, whatever came before it
    for i in order:
        text = _strip(clauses[i])
        if _says_something(text) and not DEICTIC.match(text):
            return text
    return ""  # "actually, forget that": it names nothing but what was just said


def forget_gist(sentence: str) -> str:
    """The whole request without its request words, when its clause-by-clause phrase names nothing the user has
    ("我家里那摊子破事儿（婚姻那块），你就别记了行不" -> "我家里那摊子破事儿 婚姻")."""
    text = _strip(re.sub(r"[（）()【】\[\]…]+", " ", sentence or ""))
    return text if len(re.sub(r"[\W_]", "", text)) >= 2 and not DEICTIC.match(text) else ""
