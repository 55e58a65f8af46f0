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
moved vector's cosines, one small statement that also moves the vector (FirstReading.moved_towards), instead of
searching the user's store again:
the moved vector leans towards the best of them, so its nearest are among them, and a search reads every keyword
match of the question a second time (a LoCoMo user of 629 turns: 30 ms per ranking, docs/benchmarks-history.md "Long
histories").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.conf import settings
from django.db import connection

from memory.services.recall.recall_messages import MessageEvidence
from memory.services.recall.recall_sql import vector_literal
from memory.services.recall.recall_types import Candidate, RecalledItem

# The second ranking's cosines in one statement (one round trip, no vector read back into Python): the query moved
# towards the mean of the best messages' vectors (each message's first chunk, embedded with the tail of the turn
# before it; the query's model only), then the candidate notes' and messages' cosines with it (a message's best row:
# its chunks and sentences, on their half-precision copies, which are stored in the row where the full vectors are
# not). The query comes divided by the share, so the sum is a plain vector addition: a cosine does not depend on the
# length of either vector. The last row counts the moved vectors: 0 when none of the best messages has a vector of
# the model, and there is nothing to move by. Tenant and user are filtered in every part of the statement.
_MOVED_COSINES_SQL = (
    "WITH f AS MATERIALIZED (SELECT avg(embedding) AS mean FROM memory_messagevector WHERE tenant_id = %(tenant)s "
    "AND end_user_id = %(user)s AND embedding_model = %(model)s AND chunk = 0 AND message_id = ANY(%(best)s::bigint[])), "
    "m AS MATERIALIZED (SELECT moved AS vec, moved::halfvec({dims}) AS half FROM "
    "(SELECT %(scaled)s::vector + mean AS moved FROM f WHERE mean IS NOT NULL) AS sum) "
    "SELECT 'n', id, 1 - (embedding <=> (SELECT vec FROM m)) FROM memory_memorynote WHERE tenant_id = %(tenant)s "
    "AND end_user_id = %(user)s AND id = ANY(%(notes)s::bigint[]) AND embedding_model = %(model)s "
    "AND embedding IS NOT NULL AND EXISTS (SELECT 1 FROM m) UNION ALL "
    "SELECT 'm', message_id, 1 - min(embedding_half <=> (SELECT half FROM m)) FROM memory_messagevector "
    "WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s AND embedding_model = %(model)s "
    "AND message_id = ANY(%(messages)s::bigint[]) AND EXISTS (SELECT 1 FROM m) GROUP BY message_id UNION ALL "
    "SELECT 'f', count(*), NULL FROM m"
)


@dataclass
class FirstReading:
    """What the first ranking of a question read: the user's active note count, whether they have past messages,
    the candidate notes' rows (recall._note_rows; the cosine is column 10) and the messages side's evidence."""

    count: int
    has_messages: bool
    note_rows: list[tuple]
    messages: MessageEvidence | None = None

    def only_best(self, candidates: list[Candidate], n: int) -> FirstReading:
        """What was read about the `n` best of the ranked `candidates` alone (and the messages their notes cite)."""
        best = candidates[:n]
        notes = {c.item.id for c in best if c.item.type == "note"}
        messages = {c.item.id for c in best if c.item.type == "message"}
        messages |= {m for c in best if c.item.type == "note" for m in c.item.message_ids}
        return FirstReading(
            count=self.count,
            has_messages=self.has_messages,
            note_rows=[row for row in self.note_rows if row[0] in notes],
            messages=self.messages.only(messages) if self.messages else None,
        )

    def moved_towards(
        self,
        *,
        tenant_id: int,
        end_user_id: int,
        vector: list[float],
        best: list[RecalledItem],
        model: str,
        share: float,
    ) -> FirstReading | None:
        """The same candidates with their cosines to `vector` plus `share` x the mean vector of the messages among
        `best` (None for a candidate without a vector of `model`); None when none of those messages has a vector of
        `model` (notes are skipped: see the module docstring)."""
        messages = [i.id for i in best if i.type == "message"]
        if not messages or share <= 0:
            return None
        scaled = (np.asarray(vector, dtype=np.float64) / share).tolist()
        with connection.cursor() as cur:
            cur.execute(
                _MOVED_COSINES_SQL.replace("{dims}", str(int(settings.EMBEDDING_DIMENSIONS))),
                {
                    "tenant": tenant_id,
                    "user": end_user_id,
                    "model": model,
                    "best": messages,
                    "scaled": vector_literal(scaled),
                    "notes": [row[0] for row in self.note_rows],
                    "messages": self.messages.message_ids() if self.messages else [],
                },
            )
            rows = cur.fetchall()
        moved = rows[-1][1]  # the 'f' row comes last
        if not moved:
            return None
        cosines: dict[str, dict[int, float]] = {"n": {}, "m": {}}
        for kind, item_id, cosine in rows[:-1]:
            if cosine is not None:
                cosines[kind][item_id] = float(cosine)
        return FirstReading(
            count=self.count,
            has_messages=self.has_messages,
            note_rows=[(*row[:10], cosines["n"].get(row[0]), *row[11:]) for row in self.note_rows],
            messages=self.messages.with_cosines(cosines["m"]) if self.messages else None,
        )
