"""The messages side of recall (memory.services.recall.recall, episodic recall): the user's past messages near a query
by meaning (message vectors) or by words (BM25-weighted coverage), each with the evidence of the user turns next
to it (memory.services.recall.recall_context)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from memory.services.recall.recall_context import (
    Episode,
    neighbour_rows,
    spread_to_neighbours,
)
from memory.services.recall.recall_messages_sql import episodes_rows
from memory.services.recall.recall_sql import (
    RERANK_FACTOR,
    from_epoch_us,
    tsquery_of,
    tsquery_terms,
    vector_literal,
)
from memory.services.recall.recall_types import Candidate, RecalledItem, RecallWeights, time_factor

# A user with more message vectors than this is searched through their HNSW index. Up to it, the vectors are ranked
# exactly on their half-precision copy (memory.0013) and the best re-ranked on the full vectors, as notes are
# (memory.services.recall.recall.EXACT_SCAN_MAX): measured for one user's 5,041 and 10,041 vectors, 9.2 and 11.3 ms p50
# against 26.3 and 35.3 through the HNSW index and 25.0 and 35.6 for the exact full-precision scan it replaces,
# recall@10 1.0 each (docs/benchmarks-history.md, "Heavy users, second round"); 20,000 as for notes, extrapolated.
MESSAGE_EXACT_SCAN_MAX = 20_000
MESSAGE_POOL = 1_000  # the most recent matching messages ranked per question
# A user with at most this many messages has their keyword pool matched on each of their messages by a prepared
# statement (recall_messages_sql._POOL_PREPARED: at most as many rows as a pool may hold); above it, the statement is
# planned for the question's terms, which can take the user's entries of the terms index instead.
MESSAGE_PREPARED_MAX = MESSAGE_POOL
UNMATCHED_SHARE = 0.5


def _coverage(matched, size, matched_total, matched_terms, n_terms: int) -> float:
    """The share of the question's term weight a message matches. A query term no message contains weighs half of
    what a term found in one message would (UNMATCHED_SHARE): it still counts against coverage, so one word of a long
    question stays weak, but the stray bigrams of a Chinese question ("库那", "次皮") do not bury its rare word
    (LoCoMo, 3 conversations: R@5 65.6 at a full weight, 65.7 at half, 66.9 at none)."""
    if matched is None or not size:
        return 0.0
    unmatched = max(0, n_terms - int(matched_terms or 0))
    total = float(matched_total or 0) + UNMATCHED_SHARE * unmatched * math.log((size - 1 + 0.5) / 1.5 + 1)
    return float(matched) / total if total else 0.0


def message_candidates(
    *,
    tenant_id: int,
    end_user_id: int,
    terms: list[str],
    vector: list[float],
    model: str,
    exclude_session_id: int | None,
    top: int,
    pool: int = MESSAGE_POOL,
    term_count: int = 0,
) -> list[tuple]:
    """Past user messages of one user near the query by meaning or by words (see EPISODES_SQL): rows of
    (id, session id, content, created_at, keyword coverage 0..1, the previous user message's coverage 0..1,
    best cosine or None). Coverage counts `term_count` terms in the question when it is given (those left out of
    `terms` as unmatched: memory.services.recall.query_terms), else the distinct `terms`."""
    query = tsquery_of(terms)
    rows = episodes_rows(
        keywords=bool(query),
        params={
            "tenant": tenant_id,
            "user": end_user_id,
            "session": exclude_session_id or -1,
            "tsquery": query,
            "terms": tsquery_terms(terms),
            "pool": pool,
            "top": top,
            "model": model,
            "vector": vector_literal(vector),
            "limit": top,
            "rerank": RERANK_FACTOR * top,
            "exact_max": MESSAGE_EXACT_SCAN_MAX,
            "count_limit": MESSAGE_EXACT_SCAN_MAX + 1,
            "message_max": MESSAGE_PREPARED_MAX,
        },
    )
    n_terms = max(term_count, len(set(terms)))
    return [_candidate_row(row[2:], n_terms) for row in rows if row[2] is not None]


def _candidate_row(columns: tuple, n_terms: int) -> tuple:
    """One message of the statement's rows (past its two counts, which only choose the plan: episodes_rows) as
    message_candidates returns it: its raw BM25 sums turned into coverages of the question's `n_terms` terms."""
    (mid, session_id, content, created_at, matched, n_matched, prev_matched, prev_n_matched, size, total, sim) = columns
    return (
        mid,
        session_id,
        content,
        from_epoch_us(created_at),
        _coverage(matched, size, total, n_matched, n_terms),
        _coverage(prev_matched, size, total, prev_n_matched, n_terms),
        None if sim is None else float(sim),
    )


@dataclass
class MessageEvidence:
    """What the messages side of one ranking read: the candidate messages (message_candidates' rows) and the user
    turns next to them (recall_context.neighbour_rows). A second ranking of the same question with another vector
    (recall_feedback) re-measures only their cosines (with_cosines) instead of reading them again."""

    rows: list[tuple]
    neighbours: list[tuple]

    def message_ids(self) -> list[int]:
        return sorted({row[0] for row in self.rows} | {row[1] for row in self.neighbours})

    def only(self, ids: set[int]) -> MessageEvidence:
        """The evidence about the messages `ids` alone: their rows, and the turns next to them."""
        ids = ids | {row[0] for row in self.neighbours if row[1] in ids}  # a turn joined as the neighbour of a match
        return MessageEvidence(
            rows=[row for row in self.rows if row[0] in ids],
            neighbours=[row for row in self.neighbours if row[0] in ids],
        )

    def with_cosines(self, cosines: dict[int, float]) -> MessageEvidence:
        """The same evidence with each message's cosine replaced by `cosines` (None where it has no vector)."""
        return MessageEvidence(
            rows=[(*row[:6], cosines.get(row[0])) for row in self.rows],
            neighbours=[(*row[:5], cosines.get(row[1])) for row in self.neighbours],
        )


def message_evidence(
    *,
    tenant_id: int,
    end_user_id: int,
    terms: list[str],
    vector: list[float],
    model: str,
    exclude_session_id: int | None,
    top: int,
    spread: int,
    weights: RecallWeights,
    term_count: int = 0,
) -> MessageEvidence:
    """The `top` candidate past messages of the question (by meaning and by words) and, when weights.neighbour, the
    user turns next to the `spread` best of them by their own evidence. Only those: a weak candidate next to a
    strong one is found from the strong one's side, and two weak turns next to each other do not reach a list (a
    LoCoMo user of 629 turns, k = 25: R@25 the same with the 30 best as with all 223 candidates, 3.3 points lower
    with 15; reading the turns next to all of them took 9.4 ms of a 30 ms ranking)."""
    rows = message_candidates(
        tenant_id=tenant_id,
        end_user_id=end_user_id,
        terms=terms,
        vector=vector,
        model=model,
        exclude_session_id=exclude_session_id,
        top=top,
        term_count=term_count,
    )
    neighbours = []
    if weights.neighbour and rows:
        best = sorted(rows, key=lambda row: -_own_relevance(row, weights))[:spread]
        neighbours = neighbour_rows(
            tenant_id=tenant_id,
            end_user_id=end_user_id,
            ids=[row[0] for row in best],
            vector_literal=vector_literal(vector),
            model=model,
            exclude_session_id=exclude_session_id,
        )
    return MessageEvidence(rows=rows, neighbours=neighbours)


def _own_relevance(row: tuple, weights: RecallWeights) -> float:
    """A message_candidates row's own evidence: cosine and keyword coverage (its own or, in part, the one before)."""
    _, _, _, _, coverage, previous, sim = row
    return weights.vector * max(0.0, sim or 0.0) + weights.keyword * max(coverage, weights.context * previous)


def episodes_of(evidence: MessageEvidence, *, weights: RecallWeights) -> dict[int, Episode]:
    """The candidate messages with their relevance (cosine + keyword evidence), then credited with a share of the
    evidence of the user turns right next to them (memory.services.recall.recall_context): a transcript's answer is often
    the turn after the one that matches the question."""
    episodes = {row[0]: Episode(row[0], row[1], row[2], row[3], _own_relevance(row, weights)) for row in evidence.rows}
    if weights.neighbour and episodes:
        episodes = spread_to_neighbours(
            episodes, evidence.neighbours, share=weights.neighbour, vector_weight=weights.vector
        )
    return episodes


def message_candidates_add(
    candidates: list[Candidate],
    *,
    tenant_id: int,
    end_user_id: int,
    terms: list[str],
    vector: list[float],
    policy,
    exclude_session_id: int | None,
    limit: int,
    now: datetime,
    weights: RecallWeights,
    term_count: int = 0,
    evidence: MessageEvidence | None = None,
) -> MessageEvidence:
    """Append the user's relevant past messages to `candidates` (in place), from `evidence` when a first ranking of
    the question read it already (else read here); returns the evidence. A message some note already cites is
    not added: it raises that note's score and relevance to its own when higher, so the evidence appears once, and
    the note's `message_ids` are ordered by their messages' relevance (the most relevant first; the others after
    them, by id)."""
    notes_by_message = _notes_by_message(candidates)
    if evidence is None:
        evidence = message_evidence(
            tenant_id=tenant_id,
            end_user_id=end_user_id,
            terms=terms,
            vector=vector,
            model=policy.embedding_model,
            exclude_session_id=exclude_session_id,
            top=limit + len(notes_by_message),
            spread=limit,
            weights=weights,
            term_count=term_count,
        )
    episodes = episodes_of(evidence, weights=weights)
    _cited_messages_order(notes_by_message, episodes)
    for mid, episode in episodes.items():
        relevance = episode.relevance
        score = relevance * time_factor(policy, episode.created_at, now, weights) * weights.message
        if mid in notes_by_message:  # a note already carries what this message said: it is as relevant
            for note in notes_by_message[mid]:
                if score > note.item.score:
                    note.item.score, note.relevance = score, max(note.relevance, relevance)
            continue
        candidates.append(_message_candidate(mid, episode, score))
    return evidence


def _notes_by_message(candidates: list[Candidate]) -> dict[int, list[Candidate]]:
    """The candidates (notes) that cite each message: such a message raises their score instead of being listed
    a second time."""
    notes_by_message: dict[int, list[Candidate]] = {}
    for c in candidates:
        for m in c.item.message_ids:
            notes_by_message.setdefault(m, []).append(c)
    return notes_by_message


def _cited_messages_order(notes_by_message: dict[int, list[Candidate]], episodes: dict[int, Episode]) -> None:
    """Order each note's `message_ids` (in place) by their messages' relevance: a note restated in several turns
    shows first the turn that answers the question best, then the others, by id."""
    for note in {id(c): c for cs in notes_by_message.values() for c in cs}.values():
        note.item.message_ids.sort(key=lambda m: (-episodes[m].relevance if m in episodes else 1.0, m))


def _message_candidate(mid: int, episode: Episode, score: float) -> Candidate:
    """A past message no note cites, as a recall candidate of its own."""
    return Candidate(
        RecalledItem(
            type="message",
            id=mid,
            content=episode.content,
            score=score,
            session_id=episode.session_id,
            message_ids=[mid],
            created_at=episode.created_at,
        ),
        episode.relevance,
    )
