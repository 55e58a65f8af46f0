"""Recall around a match: a past message is credited with the evidence of the turns next to it, and the k slots of
a ranked list go to k different pieces of evidence. Used by memory.services.recall.recall; measured in docs/benchmarks-history.md
("Recall around a match").

Why: the answer to a question is often the turn next to the one that matches it ("Where did you go?" matches, the
reply "Lisbon, with my sister" holds the answer), and a message of which several notes were learnt lends its score
to each of them, so without care one remark fills several slots of the list.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from datetime import datetime

from core.db import prepared_rows
from memory.services.recall.recall_sql import current_version, epoch_us, from_epoch_us
from memory.services.recall.recall_types import Candidate, RecalledItem, RecallWeights, calibrated

# The messages right before and right after each candidate in its session, when they are user messages too (an
# imported transcript of several speakers, a group chat: every turn is a `user` message), with the neighbour's best
# cosine with the query. In a user/assistant chat the turn next to a user message is the assistant's reply, so
# nothing is lent: the user's own next message, across the reply, was measured to be weaker evidence (it cost one
# question of 19 on the English multi-session set, docs/benchmarks-history.md). Tenant and user are filtered for the
# candidates AND the neighbours inside the SQL; the current session stays out like in the rest of episodic recall,
# and so do earlier versions of messages (the turn next to a candidate is the nearest current one).
# `end_user_id + 0` (the filter as exact) leaves the candidates to the primary key and the turns next to them to the
# (session, id) index: a generic plan (the statement is prepared) took the user's btree for both and read every
# message of the user for each candidate (166 ms for 20 candidates of a user with 10,000 messages, 0.7 ms now;
# docs/benchmarks-history.md "Recall, tenth round").
_NEIGHBOURS_SQL = (
    "SELECT c.id, nb.id, nb.session_id, nb.content, " + epoch_us("nb.created_at") + ", "
    "(SELECT 1 - min(v.embedding_half <=> %(vector)s::halfvec) FROM memory_messagevector v "
    "WHERE v.message_id = nb.id AND v.tenant_id = %(tenant)s AND v.end_user_id = %(user)s "
    "AND v.embedding_model = %(model)s) "
    "FROM assistants_message c CROSS JOIN LATERAL ("
    "(SELECT p.id, p.session_id, p.content, p.created_at, p.role FROM assistants_message p "
    "WHERE p.tenant_id = %(tenant)s AND p.end_user_id + 0 = %(user)s AND p.session_id = c.session_id AND p.id < c.id "
    "AND " + current_version("p") + " ORDER BY p.id DESC LIMIT 1) UNION ALL "
    "(SELECT p.id, p.session_id, p.content, p.created_at, p.role FROM assistants_message p "
    "WHERE p.tenant_id = %(tenant)s AND p.end_user_id + 0 = %(user)s AND p.session_id = c.session_id AND p.id > c.id "
    "AND " + current_version("p") + " ORDER BY p.id LIMIT 1)) nb "
    "WHERE c.tenant_id = %(tenant)s AND c.end_user_id + 0 = %(user)s AND c.role = 'user' AND c.id = ANY(%(ids)s::bigint[]) "
    "AND c.session_id <> %(session)s AND nb.role = 'user'"
)


@dataclass
class Episode:
    """One past user message as episodic recall scores it: `relevance` is its own evidence (cosine + keywords)."""

    id: int
    session_id: int
    content: str
    created_at: datetime | None
    relevance: float


def neighbour_rows(
    *, tenant_id: int, end_user_id: int, ids: list[int], vector_literal: str, model: str, exclude_session_id: int | None
) -> list[tuple]:
    """(candidate id, neighbour id, session id, content, created_at, neighbour's best cosine or None) for the user
    messages next to `ids` in their sessions. One statement, prepared (core.db.prepared_rows: it has no plan that
    depends on the user's size, and planning it cost more than running it); see _NEIGHBOURS_SQL."""
    if not ids:
        return []
    return prepared_rows(
        _NEIGHBOURS_SQL,
        {
            "tenant": tenant_id,
            "user": end_user_id,
            "ids": ids,
            "model": model,
            "vector": vector_literal,
            "session": exclude_session_id or -1,
        },
    )


def spread_to_neighbours(
    episodes: dict[int, Episode], rows: list[tuple], *, share: float, vector_weight: float
) -> dict[int, Episode]:
    """Each message's relevance plus `share` of the best own relevance among the turns next to it (computed from
    the relevances before spreading, so evidence moves one turn, never along a chain). A neighbour that was not a
    candidate joins with its own cosine as its evidence. Returns a new mapping; `episodes` is not changed."""
    own = {mid: e.relevance for mid, e in episodes.items()}
    out = {mid: Episode(e.id, e.session_id, e.content, e.created_at, e.relevance) for mid, e in episodes.items()}
    adjacent: dict[int, set[int]] = {}
    for cand, nb, session_id, content, created_at, sim in rows:
        if nb not in own:
            own[nb] = vector_weight * max(0.0, float(sim or 0.0))
            out[nb] = Episode(nb, session_id, content, from_epoch_us(created_at), own[nb])
        adjacent.setdefault(cand, set()).add(nb)
        adjacent.setdefault(nb, set()).add(cand)
    for mid, near in adjacent.items():
        out[mid].relevance = own[mid] + share * max(own[n] for n in near)
    return out


def distinct_first(items: list, k: int) -> list:
    """The first k of `items` (best first), where an item whose evidence is already shown by a better one (its
    source messages all covered, or the same text) waits until every other item has had its slot: the list still
    holds k items whenever there are k, but not the same remark twice while something else is left."""
    chosen: list = []
    later: list = []
    covered: set[int] = set()
    texts: set[str] = set()
    for item in items:
        sources = set(item.message_ids or ([item.id] if item.type == "message" else []))
        text = " ".join((item.content or "").lower().split())
        if (sources and sources <= covered) or text in texts:
            later.append(item)
            continue
        chosen.append(item)
        covered |= sources
        texts.add(text)
        if len(chosen) == k:
            return chosen
    return (chosen + later)[:k]


def ranked_cut(
    candidates: list[Candidate], *, k: int, for_context: bool, recall_all: bool, policy, weights: RecallWeights
) -> list[RecalledItem]:
    """The candidates best first (ties: notes before messages, newest id first), cut as memory.services.recall.recall.memory_recall's docstring
    says: for the context, the relevant ones (every note under recall_all) up to k unless recall_all; otherwise
    k items, different evidence first when weights.distinct."""
    candidates.sort(key=lambda c: (-c.item.score, c.item.type, -c.item.id))
    best, second = (heapq.nlargest(2, (c.relevance for c in candidates)) + [0.0, 0.0])[:2]
    for c in candidates:
        c.item.relevance = calibrated(c.relevance, best, second)
    if for_context:
        ranked = [
            c.item
            for c in candidates
            if c.relevance >= policy.recall_min_relevance or (recall_all and c.item.type == "note")
        ]
        if not recall_all:
            ranked = ranked[:k]
        return ranked
    if weights.distinct:
        return distinct_first([c.item for c in candidates], k)
    return [c.item for c in candidates[:k]]
