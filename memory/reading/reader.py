"""One reader of a user's message, offline: sentence by sentence, its intent (memory.reading.intents) and what may
be kept of it.

- a sentence with a secret's value (memory.reading.secrets) is a Secret act and is never read for facts;
- a forget request is a Forget act (its phrase is what memory.reading.targets looks for in the user's notes);
- an off-the-record marker takes its own sentence out, and when the marker stands alone ("Don't save this."), the
  sentence it points at: the one before it at the end of a message, the one after it otherwise;
- an attack on the assistant's rules makes the whole message unkeepable (a message that tries to change the rules
  is no source of facts about its author); a style instruction is kept (the rules store it as a preference);
- a hypothetical is a NoFact act.
What is left (`Reading.keep`) is what memory.services.writing.rules reads for facts; the connected model reads it too.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from core.text import spelled_out, split_sentences
from memory.reading import cues
from memory.reading.acts import Forget, Instruction, NoFact, OffRecord, Reading, Secret
from memory.reading.intents import Intent, sentence_intent
from memory.reading.ordinals import position_request
from memory.reading.phrases import forget_phrase, points_back, quoted_phrase
from memory.reading.secrets import mentions_secret, secret_free_parts, secret_spans
from memory.reading.sparing import spare_clauses

_MARKER_ONLY = 12  # a marker sentence with fewer content characters than this points at a neighbour


def _marker_only(sentence: str) -> bool:
    rest = cues.OFF_RECORD.sub("", sentence)
    rest = re.sub(
        r"\b(?:please|ok|okay|but|and|this|that|it|one|just|so|though|haha|lol)\b|[啊哈呀哦吧呢了的这个那个哈]",
        "",
        rest,
        flags=re.I,
    )
    content = re.sub(r"[\W_]", "", rest)
    return len(content) + len(re.findall(r"[\u4e00-\u9fff]", content)) < _MARKER_ONLY  # a Chinese character says more


_CLAUSE = re.compile(r"(?<=[，,;；])|\s+(?=(?:and|but|so|plus|also)\s)", re.IGNORECASE)
_POINTS_BACK = re.compile(
    r"^(?:that|this|it)(?:'s| is| was)\b|^(?:这|那)(?:是|个是|就是)|\b(?:that|this|it)(?:'s| is)\b", re.I
)


_MASK = "▇▇"  # a secret's value, taken out before the message is read (no act or kept text carries it)


def _secrets_masked(text: str) -> str:
    """`text` with each secret value (memory.reading.secrets, read over the whole message: "my Spotify password?
    It's m0ondust_radio") replaced by _MASK."""
    out, at = [], 0
    for start, end in secret_spans(text):
        out += [text[at:start], _MASK]
        at = end
    return "".join(out) + text[at:]


def _without_secrets(sentence: str) -> str:
    """The sentence without the clauses that carry a secret's label or value ("My wifi password is …, and I work
    from home on Fridays" -> "and I work from home on Fridays")."""
    chinese = bool(re.search(r"[\u4e00-\u9fff]", sentence))
    parts = [
        " ".join(
            c.strip()
            for c in _CLAUSE.split(p)
            if c.strip() and not (_MASK in c or secret_spans(c) or mentions_secret(c))
        )
        for p in secret_free_parts(sentence, _MASK)
    ]
    text = ("，" if chinese else ", ").join(p.strip(" ,，;；") for p in parts if p.strip(" ,，;；"))
    end = "。" if chinese else "."
    return text + (end if text and not re.search(r"[.!?。！？]$", text) else "")  # a sentence of its own


def _about_now(sentence: str, sentences: list[str]) -> bool:
    """A "don't write this down" beside what the message says is about this message, not about what is kept: "I'm
    allergic to penicillin. The rest, about last night, don't save it." (An erase verb, "forget", is about what is
    kept; a message that is only the request may point at the turn before.)"""
    if len(sentences) < 2 or not cues.NOT_RECORDING.search(sentence) or cues.ERASING.search(sentence):
        return False
    return any(s is not sentence and not cues.cues_in(s) for s in sentences)


# a request for a text to be written, translated or corrected: what it holds is the text's, not the user's
_TASK = re.compile(
    r"^(?:(?:please|pls|hey|ok(?:ay)?|can you|could you|would you|will you|help me)[\s,]+)*(?:translate|"
    r"write(?! (?:it |that |this )?down)|draft|compose|rewrite|proofread|polish|paraphrase|fix (?:the |my )?"
    r"(?:grammar|spelling|wording)|turn (?:this|that|it) into)\b|"
    r"^(?:请|麻烦|帮忙|你)?(?:帮我|给我)?(?:写|翻译|译成|润色|校对|起草|改写|编一?[个段首篇]|把这[句段篇](?:话)?(?:翻译|译|改|润色))",
    re.IGNORECASE,
)
# a quoted phrase ("'My name is Anna, I'm 32 …'", “我叫李明，今年25岁”): someone's text, not the user's statement
_QUOTED = re.compile(
    r"(?<![A-Za-z])'(?=[^']*\s)[^']{8,}'(?![A-Za-z])|\"(?=[^\"]*\s)[^\"]{8,}\"|“[^”]{4,}”|‘[^’]{4,}’|「[^」]{4,}」|『[^』]{4,}』|"
    r"'[^'\sA-Za-z]{4,}'"
)
_ASKS = re.compile(r"[?？]|\b(?:what|how|which|should|would)\b|什么|怎么|哪|吗|呢|该不该|还是", re.IGNORECASE)


# a sentence about a security question holds its answer, whatever the clause ("For my bank's security question, my
# first pet's name is Mr Whiskers.")
_SECURITY_QUESTION = re.compile(r"\b(?:security|secret|verification) questions?\b|密保|安全问题|验证问题", re.I)
# a premise ("If the rent ever went up to £1100 …", "要是月薪能涨到2万，我就…"): it and what follows from it are
# no fact; a polite "if you don't mind" is no premise
_PREMISE = re.compile(
    r"^\W*(?:(?:and|but|so)\s+)?(?:if|even if|unless|suppose|supposing)\b(?!\s+(?:you|u)\s+(?:don'?t mind|could|can|"
    r"would|please|want|like|need))|^\W*(?:要是|如果|假如|假设|万一|倘若|假使)(?!你)",
    re.IGNORECASE,
)


# what was said before, named as such: what a "don't keep that" beside it asks to forget, not to leave out
_NAMES_KNOWN = re.compile(
    r"^\W*(?:the (?:thing|stuff|bit|part|news) about|what i (?:said|told you|mentioned) about|about)\b|"
    r"^\W*(?:the|that|my)\s+[\w' -]{1,40}?\s(?:thing|stuff|business|bit|news)\W*$|"
    r"^[^，,。]{1,12}?(?:那个|那事|那件事|那条|那些事)|之前说的|刚才说的|上次说的",
    re.IGNORECASE,
)


# a style instruction speaks to the assistant about its answers; "I'm on nights, always have been" does not
_TO_THE_ASSISTANT = re.compile(
    r"\b(?:you|your|me|answers?|repl(?:y|ies)|respon(?:d|ses?)|explain\w*|emojis?|bullet|tables?|format\w*|"
    r"jargon|examples?|words|sentences|short|brief|concise|formal|casual|language|english|chinese|spanish|french|"
    r"german)\b|你|我|回答|回复|叫|称呼|说|讲|"
    r"用|别|不要|简短|简洁|例子|表格|中文|英文",
    re.IGNORECASE,
)
_SHORT = 40  # "can you not keep that?": a sentence this short that ends on "that" points at the one before
_POINTS_AT = re.compile(r"\b(?:that|this|it)\s*[?.!。？！]*\s*$", re.IGNORECASE)
# "Chloe is ancient history. No need for you to keep her around.": the one a pronoun stands for was named just before
_PRONOUN_ONLY = re.compile(
    r"^(?:\W|[那这](?:儿|边)|也|没必要|不必|用不着|[存记留着再跟和与]|关于|\b(?:with|about|involving|of)\b)*"
    r"(?:her|him|them|it|he|she|that|this|他|她|它|他们|她们)"
    r"(?:\s+(?:around|anymore|any more|either|too|in(?: it)?|(?:is|are|was|were) in))?(?:有关|相关)?\W*$",
    re.I,
)  # "anything with her in it", "跟她有关的": who was just named


_THAT_THING = re.compile(r"\b(?:that|those) (?!one\b|ones\b)[a-z]+\b", re.IGNORECASE)


def _says(phrase: str) -> bool:
    return len(re.sub(r"[\W_]", "", phrase)) >= 2


def _clause_before(sentence: str) -> str:
    """What a sentence said before its last clause ("小凯都是过去式了，你那儿也没必要存着他" -> "小凯都是过去式了")."""
    clauses = [c for c in re.split(r"[，,;；]|\s[-–—]+\s", sentence) if c.strip()]
    return "，".join(clauses[:-1]) if len(clauses) > 1 else ""


def _before_premise(sentence: str) -> str | None:
    """The sentence up to its premise ("在准备考公，要是考上了可能就不当老师了" -> "在准备考公"), or None when it
    has none."""
    clauses = [c for c in _CLAUSE.split(sentence) if c.strip()]
    at = next((i for i, c in enumerate(clauses) if _PREMISE.search(c)), None)
    if at is None:
        return None
    return " ".join(c.strip() for c in clauses[:at]).strip(" ,，;；")


def _taken_out(i: int, sentences: list[str], *, reading: Reading, dropped: set[int], partial: dict[int, str]) -> bool:
    """Whether sentence `i` is taken out before its intent is read, recording its act in `reading` and what is left
    of it in `dropped`/`partial`: a secret's value (only its clauses without one stay), a secret's label pointing
    back at the value before it, a security question, or a request for a text to be written (what follows a colon
    is that text)."""
    sentence = sentences[i]
    if _MASK in sentence or secret_spans(sentence):
        reading.acts.append(Secret(sentence))
        partial[i] = _without_secrets(sentence)
        return True
    if mentions_secret(sentence) and i > 0 and _POINTS_BACK.search(sentence):
        # "My first car was a Fiesta. That's the answer to my security question.": the value came first
        reading.acts.append(Secret(sentences[i - 1]))
        dropped.update({i - 1, i})
        return True
    if _SECURITY_QUESTION.search(sentence):
        reading.acts.append(Secret(sentence))
        dropped.add(i)
        return True
    if _TASK.search(sentence.strip()):
        reading.acts.append(NoFact("request", sentence))
        dropped.update(range(i, len(sentences)) if re.search(r"[:：]", sentence) else {i})
        return True
    return False


def _intent_of(core: str, sentence: str, sentences: list[str]) -> Intent:
    """The intent of a sentence (of `core`, its part a forget request names), corrected by the message around it: a
    question on a premise is hypothetical, and a "don't write this down" beside what the message says is off the
    record, not a forget request."""
    intent = sentence_intent(core)
    if intent.label == "plain" and "hypothetical" in cues.cues_in(sentence) and _ASKS.search(sentence):
        intent = replace(intent, label="hypothetical")  # "如果我中了五百万，你觉得该先买房吗？": a premise
    if intent.label == "forget" and _about_now(sentence, sentences):
        intent = replace(intent, label="off_record")
    return intent


def _off_record_read(i: int, sentences: list[str], *, reading: Reading, dropped: set[int]) -> None:
    """Record an off-the-record sentence `i` in `reading` and `dropped`; a marker standing alone, or a short one
    ending on "that", points at a neighbour, which goes too (as a forget request when it names what was said
    before)."""
    sentence = sentences[i]
    reading.acts.append(OffRecord(sentence))
    dropped.add(i)
    points_back = i > 0 and len(sentence) <= _SHORT and bool(_POINTS_AT.search(sentence))
    if (_marker_only(sentence) or points_back) and len(sentences) > 1:
        neighbour = i - 1 if i == len(sentences) - 1 or points_back else i + 1
        dropped.add(neighbour)
        if _NAMES_KNOWN.search(sentences[neighbour]):  # "The thing about my therapy... can you not keep that?"
            told = sentences[neighbour]
            reading.acts.append(Forget(forget_phrase(told), f"{told} {sentence}"))
        else:
            reading.acts.append(OffRecord(sentences[neighbour]))


@lru_cache(maxsize=512)
def message_read(text: str) -> Reading:
    """The acts of one user message and the text whose facts may be kept. Kept per text (a turn's hooks, its
    pinned facts and its extraction read the same message): treat the result as read-only."""
    reading = Reading(text=text)
    said = split_sentences(_QUOTED.sub(" ", _secrets_masked(text)))
    sentences = [spelled_out(s) for s in said]  # read as spelled out ("can u remove …"), kept as said
    dropped: set[int] = set()
    partial: dict[int, str] = {}  # a sentence of which only some clauses may be kept
    spares = [spare_clauses(s) for s in sentences]  # "…, keep the rest", "Jess can stay.": what a forget spares
    for i, sentence in enumerate(sentences):
        core = spares[i][0] if spares[i][1] and spares[i][0] and cues.cues_in(spares[i][0]) else sentence
        if core is not sentence and not forget_phrase(core):
            # "不吃葱那个其实无所谓，删了吧": the "doesn't matter" clause is what the request names, not what stays
            core, spares[i] = sentence, (sentence, [])
        if _taken_out(i, sentences, reading=reading, dropped=dropped, partial=partial):
            continue
        if positions := position_request(sentence):  # "the last one can go": the list just given says which
            reading.acts.append(Forget(positions, sentence))
            dropped.add(i)
            continue
        intent = _intent_of(core, sentence, sentences)
        if intent.label == "forget":
            phrase = forget_phrase(core)
            if _PRONOUN_ONLY.match(phrase) or points_back(core) or (not phrase.strip() and _POINTS_AT.search(core)):
                # "Med school didn't work out. Forget all of that.": "that" is the sentence (or clause) before
                told = sentences[i - 1] if i > 0 else _clause_before(core)
                named = forget_phrase(told) if 0 < len(told) <= _SHORT * 2 and not cues.cues_in(told) else ""
                phrase = named if _says(named) else ""  # nothing named before it: the turn before
                if named and i > 0:
                    dropped.add(i - 1)
            elif i > 0 and _THAT_THING.search(core) and len(phrase.split()) <= 2:
                # "Atlassian didn't pan out. Remove everything about that application.": that one, said just before
                told = sentences[i - 1]
                if len(told) <= _SHORT * 2 and not cues.cues_in(told) and _says(forget_phrase(told)):
                    phrase = f"{forget_phrase(told)} {phrase}"
                    dropped.add(i - 1)
            phrase = (len(sentences) == 1 and quoted_phrase(text)) or phrase  # quoted words, left out above, name it
            reading.acts.append(Forget(phrase, core, topic_wide=bool(cues.TOPIC_WIDE.search(core))))
            dropped.add(i)
        elif intent.label == "off_record":
            _off_record_read(i, sentences, reading=reading, dropped=dropped)
        elif intent.label == "attack":
            reading.acts.append(Instruction("attack", sentence))
        elif intent.label == "style" and _TO_THE_ASSISTANT.search(sentence):
            reading.acts.append(Instruction("style", sentence))
        elif intent.label == "hypothetical":
            reading.acts.append(NoFact("hypothetical", sentence))
            dropped.add(i)
        elif intent.label == "plain" and (before := _before_premise(sentence)) is not None:
            reading.acts.append(NoFact("hypothetical", sentence))
            partial[i] = before
    if reading.attack:
        return reading  # nothing of it is kept
    if reading.forget is not None:
        spared = tuple(p for _core, found in spares for p in found if p)
        reading.acts = [replace(a, spared=spared) if isinstance(a, Forget) else a for a in reading.acts]
        dropped.update(i for i, (core, found) in enumerate(spares) if found and not core)  # no fact of its own
    kept = [partial.get(i, s) for i, s in enumerate(said) if i not in dropped]
    reading.keep = " ".join(s for s in kept if s)
    return reading
