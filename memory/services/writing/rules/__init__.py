"""The offline, rule-based reading of a user's message: which clauses state durable facts about the user, of what
kind and slot, with what value, hedged or not, changed or not, a passing whim or not.

General patterns in Chinese and English (amounts with Chinese numerals and 万/千/k, sizes, durations and
periods, places, "我是/I am", "我喜欢/I prefer", "我不喜欢/I don't like", changes "改成/换成/not X anymore",
plans, constraints), not lookups of example sentences. The model-backed extractor goes through the same code
checks afterwards (memory.services.writing.extraction), so these helpers are also the judges of a model's candidates.

One module per concern: `patterns` (what a clause is: hedge, change, whim, question, kind), `clauses` (sentences
and clauses), `numbers` (Chinese numerals, shares), `slots` (structured slots and their values), `render` (the
note's sentence), `injection` (requests, claims, markup: not facts), `candidate`, and `reading` (one message,
sentence by sentence). The names below are the package's public surface; import them from here.
"""

from __future__ import annotations

from core.text import CJK, split_sentences
from memory.services.writing.rules.candidate import Candidate
from memory.services.writing.rules.clauses import (
    DISCOURSE,
    is_chinese,
    is_question,
    split_clauses,
    strip_ask_tail,
    strip_discourse,
)
from memory.services.writing.rules.injection import CLAIM, MARKUP, REQUEST, injection_kind, is_request
from memory.services.writing.rules.numbers import ratio_of, share_limit, to_digits
from memory.services.writing.rules.patterns import (
    CHANGE,
    FIRST_PERSON,
    HEDGE,
    KIND_MARKERS,
    QUESTION,
    REASON,
    STANDING,
    WHIM,
    generic_kind,
    kind_of,
)
from memory.services.writing.rules.reading import read_message
from memory.services.writing.rules.render import render, third_person
from memory.services.writing.rules.slots import NUMERIC_SLOTS, has_slot_word, period_of, place_in

__all__ = [
    "CHANGE",
    "CJK",
    "CLAIM",
    "DISCOURSE",
    "FIRST_PERSON",
    "HEDGE",
    "KIND_MARKERS",
    "MARKUP",
    "NUMERIC_SLOTS",
    "QUESTION",
    "REASON",
    "REQUEST",
    "STANDING",
    "WHIM",
    "Candidate",
    "generic_kind",
    "has_slot_word",
    "injection_kind",
    "is_chinese",
    "is_question",
    "is_request",
    "kind_of",
    "period_of",
    "place_in",
    "ratio_of",
    "read_message",
    "render",
    "share_limit",
    "split_clauses",
    "split_sentences",
    "strip_ask_tail",
    "strip_discourse",
    "third_person",
    "to_digits",
]
