"""The values recall works with (memory.services.recall.recall): how its signals are weighted, how time weighs on them,
and what it returns."""

from __future__ import annotations

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

    def as_dict(self) -> dict:
        return {
            "type": self.type,
            "id": self.id,
            "kind": self.kind,
            "content": self.content,
            "score": round(self.score, 4),
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
