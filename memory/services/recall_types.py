"""The values recall works with (memory.services.recall): how its signals are weighted, how time weighs on them,
and what it returns."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class RecallWeights:
    """How the two signals and time combine (see the module docstring; bench/ablation measures them)."""

    vector: float = 1.0
    keyword: float = 1.0
    context: float = 0.5  # the share of the previous user message's keyword evidence a message inherits
    topic: float = 0.1
    note: float = 1.0
    message: float = 0.9  # a past message is evidence, a note is a checked fact
    decay: float = 0.3  # the share of the score that time decay can take away
    neighbour: float = 0.5  # the share of the best adjacent user turn's relevance a message gets (recall_context)
    distinct: bool = True  # an item whose evidence a better item already shows waits for the others
    feedback: float = 0.5  # explicit lists: the share of the best messages' mean vector added to the query's (0: off)
    feedback_items: int = 3  # the best items of the first ranking whose messages lend their vectors (recall_feedback)


WEIGHTS = RecallWeights()


@dataclass
class RecalledItem:
    """One recalled note or past message, with the provenance a caller can show."""

    type: str  # "note" or "message"
    id: int
    content: str
    score: float
    kind: str = ""  # the note's kind; "" for messages
    session_id: int | None = None
    message_ids: list[int] = field(default_factory=list)
    created_at: datetime | None = None
    relevance: float = 0.0  # how likely it answers the query, 0..1 (calibrated_relevance), set by the ranking

    def as_dict(self) -> dict:
        return {
            "type": self.type,
            "id": self.id,
            "kind": self.kind,
            "content": self.content,
            "score": round(self.score, 4),
            "relevance": round(self.relevance, 3),
            "session": self.session_id,
            "message_ids": self.message_ids,
            "created_at": self.created_at.isoformat() if self.created_at else None,
        }


@dataclass
class Candidate:
    """A recalled item while it is ranked: its score, and the relevance the context's floor is checked against."""

    item: RecalledItem
    relevance: float


def _decay(policy, when, now) -> float:
    days = max(0.0, (now - when).total_seconds() / 86400) if when else 0.0
    return max(policy.decay_floor, policy.decay_rate_per_day**days)


def time_factor(policy, when, now, weights: RecallWeights) -> float:
    """The share of an item's score left after time decay (the formula in memory.services.recall's docstring)."""
    return 1.0 - weights.decay * (1.0 - _decay(policy, when, now))


# How likely an item is to hold the answer, from its relevance (cosine + keyword evidence, + topic for notes):
# a logistic per type, fitted on the top-10 lists of LoCoMo's 1,536 questions over all ten conversations (15,360
# items: 5,014 notes, 10,346 messages; an item is relevant when it is, or was learnt from, an evidence turn). Fitted
# on five conversations, the other five's observed rates follow it (notes predicted 0.14 / 0.24 / 0.38 / 0.57,
# observed 0.11 / 0.26 / 0.36 / 0.61; messages 0.04 / 0.14 / 0.24, observed 0.04 / 0.15 / 0.29). Checked on
# LongMemEval, which it was not fitted on (docs/benchmarks.md "Long histories").
CALIBRATION = {"note": (2.673, -5.235), "message": (2.395, -6.095)}
# Below this, an item is a weak match: on LoCoMo, 70% of the questions whose evidence is in the top 10 keep it
# above 0.1, and 14% of all questions have nothing above it.
RELEVANT_MIN = 0.1


def calibrated_relevance(item_type: str, relevance: float) -> float:
    slope, intercept = CALIBRATION.get(item_type, CALIBRATION["message"])
    return 1.0 / (1.0 + math.exp(-(slope * relevance + intercept)))


def recall_listing(query: str, items: list[RecalledItem], *, k: int, min_relevance: float | None = None) -> dict:
    """Explicit recall's answer (REST, MCP): the first k items, only those at least `min_relevance` relevant when it
    is given, and `nothing_relevant` when no item reaches it (RELEVANT_MIN when not given), so that a caller can
    leave weak matches out of a prompt."""
    floor = RELEVANT_MIN if min_relevance is None else min_relevance
    kept = [i for i in items if min_relevance is None or i.relevance >= min_relevance][:k]
    return {
        "query": query,
        "results": [item.as_dict() for item in kept],
        "nothing_relevant": not any(i.relevance >= floor for i in items[:k]),
    }
