"""The values recall works with (memory.services.recall.recall): how its signals are weighted, how time weighs on them,
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


# How sure a recall is. An item's calibrated relevance is a logistic curve over three things: its relevance (cosine +
# keyword evidence, + the neighbours' share for a past message); how far it lies below the list's best (an item far
# below the best is seldom the answer, however high it scores); and, for the best item, how far it stands above the
# second, times its own relevance (one item that stands out is the answer more often, when it is relevant at all).
# Fitted on labelled recall data of two shapes of user, weighted alike: LoCoMo's transcripts (1,536 questions, k = 25,
# 38,400 items) and the notes sets (bench/data/recall_notes_*.jsonl: 523 questions, k = 10), with questions about
# another person's life as negatives. docs/memory.md ("How sure a recall is") has the reliability tables and what
# RELEVANT_AT, the floor of a `relevant` item, keeps and drops.
CALIBRATION = (0.765, 5.564, 7.804, -2.197)  # relevance, relevance - best, (best - second) x relevance, 1
RELEVANT_AT = 0.13


def calibrated(relevance: float, best: float, second: float) -> float:
    """The chance that an item of this relevance bears on the query, in a list whose best two items have `best` and
    `second`."""
    slope, below_best, stand_out, offset = CALIBRATION
    lead = (best - second) * relevance if relevance >= best else 0.0
    return 1.0 / (1.0 + math.exp(-(slope * relevance + below_best * (relevance - best) + stand_out * lead + offset)))


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
    relevance: float | None = None  # the chance, 0..1, that the item bears on the query (calibrated)

    @property
    def relevant(self) -> bool:
        """Relevant enough to put before a model: at least RELEVANT_AT."""
        return self.relevance is not None and self.relevance >= RELEVANT_AT

    def as_dict(self) -> dict:
        return {
            "type": self.type,
            "id": self.id,
            "kind": self.kind,
            "content": self.content,
            "score": round(self.score, 4),
            "relevance": None if self.relevance is None else round(self.relevance, 3),
            "relevant": self.relevant,
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
    """The share of an item's score left after time decay (the formula in memory.services.recall.recall's docstring)."""
    return 1.0 - weights.decay * (1.0 - _decay(policy, when, now))


def nothing_relevant(items: list[RecalledItem]) -> bool:
    """No item is `relevant`: the user's memory holds nothing that bears on the query (what the REST and MCP recall
    say beside the list, so that a caller can leave weak matches out of a prompt)."""
    return not any(item.relevant for item in items)
