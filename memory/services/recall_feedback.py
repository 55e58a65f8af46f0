"""Relevance feedback for explicit recall (memory.services.recall): the query vector moved towards the vectors of
the past messages among the best few items of a first ranking (Rocchio's feedback, without negatives), then the
list ranked again.

Why: a question and the remark that answers it are often worded apart ("Which tournament did Nate win?" and "I
was in the final of a big Valorant tournament last Saturday, and I won!"); the turns that already rank first are
about the answer's topic, and a query that leans towards them finds their neighbours by meaning. Only past
messages lend their vectors: with notes lending too, the notes sets lost (the best notes are other facts of the
same user, and leaning towards them pulls in their neighbours). Measured on LoCoMo, all ten conversations, and
on the held-out-style sets (docs/benchmarks.md "Relevance feedback"). The chat turn's context does not use it: it
keeps only the few items above its relevance floor, where feedback changes little, and a turn should not wait
for a second ranking.
"""

from __future__ import annotations

import json

import numpy as np
from django.db import connection

from memory.services.recall_types import RecalledItem

# The vectors of the best messages, tenant and user filtered in the statement: each message's first chunk (embedded
# with the tail of the turn before it), of the query's model only.
_FEEDBACK_SQL = (
    "SELECT embedding::text FROM memory_messagevector WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s "
    "AND embedding_model = %(model)s AND chunk = 0 AND message_id = ANY(%(messages)s)"
)


def feedback_vector(
    *, tenant_id: int, end_user_id: int, vector: list[float], items: list[RecalledItem], model: str, share: float
) -> list[float] | None:
    """`vector` plus `share` x the mean vector of the messages among `items`, normalised; None when none of them
    has a vector of `model` (notes are skipped: see the module docstring)."""
    messages = [i.id for i in items if i.type == "message"]
    if not messages:
        return None
    with connection.cursor() as cur:
        cur.execute(
            _FEEDBACK_SQL,
            {
                "tenant": tenant_id,
                "user": end_user_id,
                "model": model,
                "messages": messages,
            },
        )
        found = [json.loads(row[0]) for row in cur.fetchall()]
    if not found:
        return None
    moved = np.asarray(vector, dtype=np.float64) + share * np.mean(np.asarray(found, dtype=np.float64), axis=0)
    norm = float(np.linalg.norm(moved))
    return (moved / norm).tolist() if norm else None
