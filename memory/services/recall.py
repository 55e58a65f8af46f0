"""Recall: what the chat turn puts in context from long-term memory. (Interface fixed; issue 4 fills it.)"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


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
            "type": self.type, "id": self.id, "kind": self.kind, "content": self.content,
            "score": round(self.score, 4), "session": self.session_id, "message_ids": self.message_ids,
            "created_at": self.created_at.isoformat() if self.created_at else None,
        }


def memory_recall(*, tenant, end_user, query: str, k: int | None = None, budget_tokens: int | None = None,
                  include_messages: bool = True, exclude_session_id: int | None = None,
                  touch: bool = True) -> list[RecalledItem]:
    """The user's notes (and past messages) most relevant to `query`, best first, within `budget_tokens`.

    Filters by tenant and end user inside the SQL. `touch` updates last_recalled_at/recall_count.
    `exclude_session_id` leaves out messages of the current session (they are in the window already)."""
    return []
