"""The values recall works with (memory.services.recall): how its signals are weighted, and what it returns."""

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
