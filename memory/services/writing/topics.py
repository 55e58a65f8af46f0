"""Topics (slots) of long-term notes, in Chinese and English: how a statement is recognised as being about a
slot, what canonical options a slot has, and the topic words added to a note's search features.

This is a general lexicon of what people tell a consultant about themselves (how they commute, what they drink,
their budget, shop, revenue, job, family ...), not a list of example sentences. It serves three purposes:
- extraction: a clause about "地铁/subway ... 上班/to work" belongs to the slot `commute`, whatever the phrasing;
- supersede: two statements about the same slot are the same fact or a change of it;
- recall: a note carries its slot's topic words, so "介绍一下我的通勤习惯" finds "我平时上下班都是坐地铁" even
  though the offline embedder is lexical (it shares no word with the note, but shares the topic `commute`).
"""

from __future__ import annotations

import re
from functools import lru_cache

# `... as`: callers import the lexicon from topics (extraction, rules, recall, tests); it lives in topic_lexicon.
from memory.services.writing.topic_lexicon import TOPIC_BY_SLOT as TOPIC_BY_SLOT
from memory.services.writing.topic_lexicon import TOPICS as TOPICS
from memory.services.writing.topic_lexicon import Topic as Topic

_LATIN = re.compile(r"[a-z]")


def _whole_words(*terms: str) -> re.Pattern:
    """Any of `terms` as a whole English word (no latin letter right before or after it)."""
    return re.compile(rf"(?<![a-z])(?:{'|'.join(map(re.escape, terms))})(?![a-z])")


@lru_cache(maxsize=4096)
def _word_rx(term: str) -> re.Pattern:
    return _whole_words(term)


@lru_cache(maxsize=4096)
def _form_rx(form: str) -> re.Pattern:
    return _word_rx(form) if _LATIN.match(form) else re.compile(re.escape(form))


@lru_cache(maxsize=64)
def _exclude_rx(pattern: str) -> re.Pattern:
    return re.compile(pattern)


def term_hits(text: str, term: str) -> int:
    """Position of `term` in lower-cased `text` (-1 if absent); English terms match whole words only."""
    if _LATIN.match(term):
        m = _word_rx(term).search(text)
        return m.start() if m else -1
    return text.find(term)


def find_option(topic: Topic, text: str, after: int = -1) -> tuple[str, bool] | None:
    """The option of `topic` named in `text`: the first one after position `after` (a change marker) if given,
    else the last one that is not negated. Returns (option, negated)."""
    low = text.lower()
    hits = []
    for option, forms in topic.options.items():
        for form in forms:
            for m in _form_rx(form).finditer(low):
                hits.append((m.start(), option, _negated(low, m.start())))
    if not hits:
        return None
    hits.sort()
    # prefer the most specific option at the same place (拿铁 over 咖啡 in "拿铁咖啡")
    if after >= 0:
        later = [h for h in hits if h[0] > after and not h[2]]
        if later:
            generic = [h for h in later if h[1] != "coffee"]
            return ((generic or later)[0][1], False)
    positive = [h for h in hits if not h[2]]
    specific = [h for h in positive if h[1] != "coffee"] or positive
    if specific:
        return (specific[-1][1], False)
    return (hits[-1][1], True)


_NEG_ZH = ("不", "没", "别", "不再", "戒", "怕")
_NEG_EN = re.compile(
    r"\b(?:don't|do not|doesn't|does not|never|no longer|not|stopped|quit|no|can't|cannot|can not|"
    r"won't|avoid|unable to|hate|dislike|can't stand)\s+(?:[\w'-]+\s+){0,3}$"
)


def _negated(low: str, pos: int) -> bool:
    before = low[max(0, pos - 4) : pos]
    if any(n in before for n in _NEG_ZH):
        return True
    return bool(_NEG_EN.search(low[max(0, pos - 40) : pos]))


def topics_in(text: str) -> list[Topic]:
    """Topics a text is about, in lexicon order. Topics that need an option only count when one is named."""
    found = []
    for topic in TOPICS:
        low = (text or "").lower()
        if topic.exclude:
            low = _exclude_rx(topic.exclude).sub(" ", low)
        if any(term_hits(low, term) >= 0 for term in topic.terms):
            if topic.requires and not _exclude_rx(topic.requires).search(low):
                continue
            if topic.needs_option and find_option(topic, low) is None:
                continue
            found.append(topic)
        elif topic.needs_option is False and topic.options and find_option(topic, low) and topic.slot == "drink":
            found.append(topic)
    return found


def query_topics(text: str) -> set[str]:
    """Slots a question mentions (by their terms or their topic words): "我的通勤习惯" -> {"commute"}."""
    low = (text or "").lower()
    return {
        slot for slot, latin, cjk in _query_matchers() if any(w in low for w in cjk) or (latin and latin.search(low))
    }


@lru_cache(maxsize=1)
def _query_matchers() -> tuple[tuple[str, re.Pattern | None, tuple[str, ...]], ...]:
    """Per topic, what query_topics looks for, built once: its English words (whole words, one alternation: one
    regex search per topic instead of one per word, which was a millisecond of every recall) and its Chinese
    words (substrings). One-letter English words are left out."""
    out = []
    for topic in TOPICS:
        words = topic.terms + topic.topic_words + tuple(f for forms in topic.options.values() for f in forms)
        words = tuple(dict.fromkeys(w.lower() for w in words if len(w) >= 2 or not _LATIN.match(w)))
        latin = [w for w in words if _LATIN.match(w)]
        out.append((topic.slot, _whole_words(*latin) if latin else None, tuple(w for w in words if w not in latin)))
    return tuple(out)


def topic_words_for(slot: str) -> str:
    topic = TOPIC_BY_SLOT.get(slot)
    return " ".join(topic.topic_words) if topic else ""
