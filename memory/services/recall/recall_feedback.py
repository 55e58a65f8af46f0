"""Relevance feedback for explicit recall (memory.services.recall.recall): the query vector moved towards the vectors of
the past messages among the best few items of a first ranking (Rocchio's feedback, without negatives), then the
list ranked again.

Why: a question and the remark that answers it are often worded apart ("Which tournament did Nate win?" and "I
was in the final of a big Valorant tournament last Saturday, and I won!"); the turns that already rank first are
about the answer's topic, and a query that leans towards them finds their neighbours by meaning. Only past
messages lend their vectors: with notes lending too, the notes sets lost (the best notes are other facts of the
same user, and leaning towards them pulls in their neighbours). Measured on LoCoMo, all ten conversations, and
on the held-out-style sets (docs/benchmarks-history.md "Relevance feedback"). The chat turn's context does not use it: it
keeps only the few items above its relevance floor, where feedback changes little, and a turn should not wait
for a second ranking.

The second ranking scores the candidates the first one read (notes, messages and the turns next to them) with the
moved vector's cosines, one small statement (FirstReading.remeasured), instead of searching the user's store again:
the moved vector leans towards the best of them, so its nearest are among them, and a search reads every keyword
match of the question a second time (a LoCoMo user of 629 turns: 30 ms per ranking, docs/benchmarks-history.md "Long
histories").
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
from django.db import connection

from memory.services.recall.recall_messages import MessageEvidence
from memory.services.recall.recall_sql import vector_literal
from memory.services.recall.recall_types import RecalledItem

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


# The cosines of given notes and messages (a message's best row: its chunks and sentences, on their half-precision
# copies, which are stored in the row where the full vectors are not) with one vector, tenant and user filtered in
# the statement.
_COSINES_SQL = (
    "SELECT 'n', id, 1 - (embedding <=> %(vector)s::vector) FROM memory_memorynote WHERE tenant_id = %(tenant)s "
    "AND end_user_id = %(user)s AND id = ANY(%(notes)s::bigint[]) AND embedding_model = %(model)s "
    "AND embedding IS NOT NULL UNION ALL "
    "SELECT 'm', message_id, 1 - min(embedding_half <=> %(vector)s::halfvec) FROM memory_messagevector "
    "WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s AND embedding_model = %(model)s "
    "AND message_id = ANY(%(messages)s::bigint[]) GROUP BY message_id"
)


@dataclass
class FirstReading:
    """What the first ranking of a question read: the user's active note count, whether they have past messages,
    the candidate notes' rows (recall._note_rows; the cosine is column 10) and the messages side's evidence."""

    count: int
    has_messages: bool
    note_rows: list[tuple]
    messages: MessageEvidence | None = None

    def remeasured(self, *, tenant_id: int, end_user_id: int, vector: list[float], model: str) -> FirstReading:
        """The same candidates with their cosines to `vector` (None for one without a vector of `model`)."""
        messages = self.messages.message_ids() if self.messages else []
        with connection.cursor() as cur:
            cur.execute(
                _COSINES_SQL,
                {
                    "tenant": tenant_id,
                    "user": end_user_id,
                    "model": model,
                    "vector": vector_literal(vector),
                    "notes": [row[0] for row in self.note_rows],
                    "messages": messages,
                },
            )
            cosines: dict[str, dict[int, float]] = {"n": {}, "m": {}}
            for kind, item_id, cosine in cur.fetchall():
                cosines[kind][item_id] = float(cosine)
        return FirstReading(
            count=self.count,
            has_messages=self.has_messages,
            note_rows=[(*row[:10], cosines["n"].get(row[0]), *row[11:]) for row in self.note_rows],
            messages=self.messages.with_cosines(cosines["m"]) if self.messages else None,
        )
