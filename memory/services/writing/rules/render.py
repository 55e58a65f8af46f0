"""A candidate's sentence in the user's language: templated for structured slots, else the user's own words in
the third person.
"""

from __future__ import annotations

import re

from lemminflect import getAllLemmas, getInflection

from memory.services.writing.quantities import money_text
from memory.services.writing.rules.numbers import num_str

_NOT_VERBS = {
    "in",
    "on",
    "at",
    "to",
    "for",
    "with",
    "and",
    "or",
    "of",
    "a",
    "an",
    "the",
    "from",
    "by",
    "about",
    "as",
    "that",
    "this",
    "so",
    "but",
    "if",
    "when",
    "whenever",
    "anytime",
    "again",
    "too",
    "here",
    "there",
}


_MODALS = {"can", "could", "will", "would", "shall", "should", "may", "might", "must"}
# "the user" and the (up to) three words after it: adverbs ("really", "kind of") may stand before its verb
_AFTER_SUBJECT = re.compile(r"(the user )((?:[a-z]+ ){0,2}[a-z]+)\b")


# adverbs that the lexicon also knows as verbs ("to still", "to even")
_ADVERBS_TOO = {"still", "even", "only", "ever", "further"}


def _only_adverb(word: str) -> bool:
    if word in _ADVERBS_TOO:
        return True
    lemmas = getAllLemmas(word)
    return "ADV" in lemmas and "VERB" not in lemmas and "AUX" not in lemmas


def _third_person_verb(word: str) -> str | None:
    """`word` in the third person singular when it is a verb in its base form ("agree" -> "agrees", "go" ->
    "goes", "have" -> "has"); None for a modal, a past form ("had", "won", "came"), an unknown word ("gotta") or
    a word that is no verb."""
    if word in _NOT_VERBS or word in _MODALS:
        return None
    lemmas = getAllLemmas(word)
    if (lemmas.get("VERB") or lemmas.get("AUX") or ("",))[0] != word:
        return None
    forms = getInflection(word, "VBZ")
    return forms[0] if forms else None


def _agree(m: re.Match) -> str:
    """The verb after "the user", past the adverbs before it, in the third person (lemminflect's lexicon tells a
    base form from a past one and an adverb from a verb, and knows irregular endings): "the user totally agree"
    -> "the user totally agrees"; anything else stays as the user said it."""
    words = m.group(2).split(" ")
    i = 0
    while i < len(words) - 1 and (_only_adverb(words[i]) or (words[i] in {"kind", "sort"} and words[i + 1] == "of")):
        i += 2 if words[i] in {"kind", "sort"} else 1
    verb = _third_person_verb(words[i]) if i < len(words) else None
    if verb:
        words[i] = verb
    return m.group(1) + " ".join(words)


# what comes before the statement and says nothing ("and btw I just adopted a beagle", "所以说我…")
_FILLER = re.compile(
    r"^(?:(?:and|but|so|also|btw|fyi|heads up|psa|quick update|just so you know|oh|well|anyway|plus|ok|okay)\b\W*)+",
    re.IGNORECASE,
)
_SUBJECTLESS = re.compile(r"^(?:planning|going|hoping|trying|learning|working|living|thinking) ", re.IGNORECASE)
# a clause that leaves its subject out, as people do in chat: "originally from Belfast", "born in Lagos", "never
# learned to drive", "got promoted to senior": the user is its subject
_SUBJECTLESS_IS = re.compile(
    r"^(?:(?:originally|also|actually) )?(?:from|based|married|divorced|retired|allergic)\b", re.I
)
_SUBJECTLESS_WAS = re.compile(r"^(?:born|raised|brought up)\b", re.IGNORECASE)
_SUBJECTLESS_HAS = re.compile(r"^been\b", re.IGNORECASE)
_SUBJECTLESS_DID = re.compile(
    r"^(?:never|always|usually|just|finally|recently|still|often|rarely|mostly|got|went|moved|started|stopped|"
    r"quit|left|finished|lost|bought|sold|adopted|took|had|have|can'?t|cannot|don'?t|[a-z]+ed)\b",
    re.IGNORECASE,
)

_DISCOURSE_LEAD = re.compile(
    r"^(?:(?:so|oh|well|ok|okay|anyway|btw|fyi|heads up|psa|and|but|also|yeah|yep|haha|lol)\b[\s,]*)+", re.I
)
_TIME_LEAD = re.compile(
    r"^((?:these days|nowadays|lately|recently|now|currently|at the moment|since (?:\w+ ){0,2}\w+|this year)\s*,?\s*)",
    re.IGNORECASE,
)


def _subject_given(text: str) -> str:
    """ "The user …" for a clause that left its subject out, or "" when the clause is not of that shape."""
    for rx, verb in (
        (_SUBJECTLESS_IS, "is "),
        (_SUBJECTLESS_WAS, "was "),
        (_SUBJECTLESS_HAS, "has "),
        (_SUBJECTLESS_DID, ""),
    ):
        if rx.match(text):
            return "The user " + verb + text[0].lower() + text[1:]
    return ""


def third_person(text: str, chinese: bool) -> str:
    """The user's words as a note about the user: "我平时坐地铁" -> "用户平时坐地铁"."""
    text = _FILLER.sub("", text.strip(" ，,。.!！")) or text.strip(" ，,。.!！")
    if chinese:
        out = re.sub(r"我们|咱们", "用户", text)
        out = re.sub(r"我|俺|本人", "用户", out)
        if "用户" not in out:
            out = "用户" + out
        return out + "。"
    out = re.sub(r"\bI'm\b|\bI am\b", "the user is", text, flags=re.I)
    out = re.sub(r"\bI've\b", "the user has", out, flags=re.I)
    out = re.sub(r"\bI don't\b|\bI do not\b", "the user does not", out, flags=re.I)
    out = re.sub(r"\bI\b", "the user", out)
    out = re.sub(r"\bmy\b|\bour\b", "the user's", out, flags=re.I)
    out = re.sub(r"\bwe're\b", "the user is", out, flags=re.I)
    out = re.sub(r"\bwe've\b", "the user has", out, flags=re.I)
    out = re.sub(r"\bwe\b", "the user", out, flags=re.I)
    out = re.sub(r"\bme\b", "the user", out, flags=re.I)
    out = re.sub(r"^gonna\b", "going to", out, flags=re.I)  # "gonna apply for a master's" -> "the user is going to …"
    out = re.sub(r"^wanna\b", "the user wants to", out, flags=re.I)

    out = _AFTER_SUBJECT.sub(_agree, out)
    out = _SUBJECTLESS.sub(lambda m: "the user is " + m.group().lower(), out)  # "Planning to sell the car"
    out = _DISCOURSE_LEAD.sub("", out) or out
    lead = _TIME_LEAD.match(out)
    if lead and out[lead.end() :].lower().startswith("the user"):  # "these days the user is at HSBC"
        when = lead.group(1).strip(" ,")
        out = f"{out[lead.end() :]} {when[0].lower()}{when[1:]}"
    if not out.lower().startswith("the user"):
        out = _subject_given(out) or "The user: " + out
    return out[0].upper() + out[1:] + "."


# What a slot's template would lose: a plan or an intention ("planning to open", "will hire", "打算开"), what used
# to be so ("I used to live in Toronto", "以前在阿里"), a kind of
# the slot's thing ("wedding budget", "婚礼预算"), people other than staff ("3 cooks", "两个厨师"), a place the user
# does not live in ("born in", "老家"). With any of these the note keeps the user's own predicate and object.
_INTENT = re.compile(
    r"(?:plan(?:s|ning|ned)? to|going to|gonna|will|'ll|intend(?:s|ing)? to|hope to|want to|about to|"
    r"thinking of|considering|aim to|would like to)|打算|准备|计划|想要|将要|预计|考虑|希望|想开|要开|要招|会招|明年|下个月|以后",
    re.IGNORECASE,
)
_STAFF_WORDS = re.compile(r"employees?|staff|people|persons?|workers?|members?|员工|人|店员|伙计|名", re.IGNORECASE)
PAST = re.compile(
    r"\bused to\b|\bformerly\b|\bpreviously\b|\bback then\b|\bbefore [A-Z]\w+|\blived\b|\b(?:for|about) (?:a|\d+) "
    r"(?:years?|months?) (?:before|back)\b|以前|曾经|过去|原来|之前|住过|待过",
    re.IGNORECASE,
)
_NOT_HOME = re.compile(r"\bborn\b|\bgrew up\b|\bhometown\b|\braised\b|\bfrom\b|出生|老家|长大|籍贯|祖籍", re.IGNORECASE)


def template_keeps_meaning(slot: str, kind: str, quote: str) -> bool:
    """Whether the slot's template says what the user said (else the note is the user's words)."""
    quote = quote or ""
    if not quote.strip() or kind in {"plan", "conclusion"} or _INTENT.search(quote) or PAST.search(quote):
        return not quote.strip()  # a plan or what used to be so is not the slot's present value
    if slot == "budget":
        m = re.search(r"(\S)(?:的)?预算", quote)
        if m and m.group(1) not in "我们总的":
            return False  # "婚礼预算", "装修预算"
        return not re.search(
            r"\bbudget (?:for|on)\b|"  # "my budget for a new bike"
            r"\b(?!my\b|our\b|the\b|a\b|total\b|overall\b|whole\b|entire\b|current\b|new\b|monthly\b)[a-z]+ budget\b",
            quote,
            re.I,
        )
    if slot == "staff":
        words = re.sub(r"[\d\s,.，。]+", " ", quote)
        return bool(_STAFF_WORDS.search(words)) and not re.search(
            r"cooks?|chefs?|drivers?|nurses?|teachers?|厨师|司机|服务员|老师|护士|帮厨", quote, re.I
        )
    if slot == "location":
        return not _NOT_HOME.search(quote)
    return True


_LIVES = re.compile(r"住|\b(?:live|lives|living|lived|based|home)\b", re.IGNORECASE)


def render(slot: str, kind: str, value: dict | None, quote: str, chinese: bool) -> str:
    """One sentence for the note, in the user's language: templated for structured slots when the template says
    what the user said (template_keeps_meaning), else the user's words in the third person."""
    if quote and not template_keeps_meaning(slot, kind, quote):
        return third_person(quote, chinese)
    v = value or {}
    approx_zh = "约 " if v.get("approx") else ""
    approx_en = "about " if v.get("approx") else ""
    amount = v.get("amount")
    currency = v.get("currency", "")
    if slot == "budget" and amount is not None:
        return (
            f"用户的预算{approx_zh or '为 '}{money_text(amount, currency, True)}。"
            if chinese
            else f"The user's budget is {approx_en}{money_text(amount, currency, False)}."
        )
    if slot == "shop_size" and amount is not None:
        feet = v.get("unit") == "sq ft"
        return (
            f"用户的店面面积{approx_zh or ' '}{num_str(amount)} {'平方英尺' if feet else '平米'}。"
            if chinese
            else f"The user's shop is {approx_en}{num_str(amount)} {'square feet' if feet else 'square meters'}."
        )
    if slot == "revenue" and amount is not None:
        period = v.get("period") or ""
        per_zh = {"day": "每天", "month": "每月", "year": "每年"}.get(period, "")
        per_en = {"day": " per day", "month": " per month", "year": " per year"}.get(period, "")
        return (
            f"用户的店{per_zh}流水{approx_zh}{money_text(amount, currency, True)}。"
            if chinese
            else f"The user's revenue is {approx_en}{money_text(amount, currency, False)}{per_en}."
        )
    if slot == "staff" and amount is not None:
        return (
            f"用户的店有{approx_zh or ' '}{num_str(amount)} 名员工。"
            if chinese
            else f"The user has {approx_en}{num_str(amount)} employees."
        )
    if slot == "age" and amount is not None:
        return (
            f"用户{approx_zh or ' '}{num_str(amount)} 岁。"
            if chinese
            else f"The user is {approx_en}{num_str(amount)} years old."
        )
    if slot == "location" and v.get("place"):
        if _LIVES.search(quote or ""):  # the user's own verb: where they live, not only where they are
            return f"用户住在{v['place']}。" if chinese else f"The user lives in {v['place']}."
        return f"用户在{v['place']}。" if chinese else f"The user is in {v['place']}."
    if slot == "business" and v.get("type"):
        place = f"在{v['place']}" if v.get("place") else ""
        return f"用户{place}经营一家{v['type']}。" if chinese else f"The user runs a {v['type']}."
    return third_person(quote, chinese)
