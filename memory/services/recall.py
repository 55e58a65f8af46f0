"""Recall: what the chat turn puts in context from long-term memory, on demand, never the whole store; and what
`GET /api/v1/users/<id>/recall/` returns.

One ranked list over one user's active notes and past user messages (episodic recall), from two signals:
- meaning: pgvector cosine similarity with the query, over note vectors and message vectors (memory.MessageVector,
  a vector per message or per chunk of a long one), same embedding model only;
- words: keyword matching on CJK bigrams / stemmed words ('simple' tsvectors with GIN indexes): the share of the
  query's terms a note holds, and, for messages, the share of the query's term weight (BM25's idf over the user's
  matching messages) a message matches.
Both are filtered by tenant and end user INSIDE the SQL. Candidates are scored in Python:

    relevance = W.vector * max(0, cosine) + W.keyword * keyword evidence
                (+ W.topic if a note's slot is the question's topic)
    messages: keyword evidence = max(own coverage, W.context * the previous user message's coverage); the message
              vector embeds the message with the tail of the one before it (memory.services.episodes)
    score     = relevance * time * (notes: (0.8 + 0.2 * confidence) * (0.8 + 0.2 * importance); messages: W.message)
    time      = 1 - W.decay * (1 - max(decay_floor, decay_rate_per_day ** age_days))

Keyword evidence is added to the cosine, never multiplied or rank-fused: a strong semantic match is not drowned by
keyword noise, and a cross-language match (no shared words) keeps its full cosine. The weights were measured
(docs/benchmarks.md, "Recall ablation"), not guessed.

Explicit recall (`k` given, `for_context` False) returns exactly k items whenever the user has k candidates, best
first. The chat turn (`for_context` True) drops what is below the policy's `recall_min_relevance`, except that a
user with at most `recall_all_below` active notes gets all of them (seed 000); then the token budget cuts the list.
The notes side is one SQL statement and the messages side another; a third fetches the user turns next to the
candidate messages, which get a share of each other's evidence, and explicit lists give their k slots to k
different pieces of evidence first (memory.services.recall_context).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import connection
from django.db.models import F
from django.utils import timezone

from core.policy import MemoryPolicy, memory_policy_for
from core.text import CJK as _CJK
from memory.models import MemoryNote
from memory.services.embeddings import embed_texts, search_terms
from memory.services.pii import pii_redact
from memory.services.recall_context import (
    Episode,
    distinct_first,
    neighbour_rows,
    spread_to_neighbours,
)
from memory.services.topics import query_topics, topic_words_for


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
CANDIDATES = 50
# A user with more active notes than this is searched through the HNSW index. Up to it, the user's notes are
# ranked exactly on their half-precision copy (column embedding_half, migration memory.0008: 1 KB in the row,
# where the full vector is read from TOAST), and the best RERANK_FACTOR x candidates are re-ranked on the full vectors: measured at
# 10,000 notes of one user in a 100,000-note store, 10-12 ms instead of 31-50 ms, recall@10 1.0 of the exact
# ranking (docs/benchmarks.md, "Heavy users").
EXACT_SCAN_MAX = 20_000
RERANK_FACTOR = 2
# Message vectors have no half-precision copy yet: a user with more than this many is searched through their HNSW
# index, as every user was before the exact scan above was added.
MESSAGE_EXACT_SCAN_MAX = 5_000


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


def estimate_tokens(text: str) -> int:
    """A model-independent estimate: one token per CJK character, ~1.3 per English word, plus framing."""
    cjk = len(_CJK.findall(text or ""))
    words = len(re.findall(r"[A-Za-z0-9]+", text or ""))
    return cjk + math.ceil(words * 1.3) + 4


def _decay(policy, when, now) -> float:
    days = max(0.0, (now - when).total_seconds() / 86400) if when else 0.0
    return max(policy.decay_floor, policy.decay_rate_per_day**days)


def _tsquery(terms: list[str]) -> str:
    # terms are CJK bigrams, [a-z0-9] words and numbers: nothing tsquery would read as an operator
    safe = [t for t in terms if re.fullmatch(r"[\w\u3400-\u9fff.]+", t)]
    return " | ".join(safe)


def vector_statement(*, exact: bool) -> str:
    """The pgvector statement recall rests on, alone: the nearest active notes of one user (parameters: vector,
    tenant id, end user id, embedding model, vector, limit). `exact` ranks every note of the user ("+ 0" keeps the
    planner off the HNSW index: at a few thousand vectors an exact sort costs milliseconds and misses nothing);
    otherwise the planner may use the HNSW index, with the connection's ef_search and iterative scan
    (config/settings/base.py) so that a search filtered to one user still returns its nearest rows."""
    where = (
        "WHERE tenant_id = %s AND end_user_id = %s AND status = 'active' AND embedding_model = %s "
        "AND embedding IS NOT NULL AND (expires_at IS NULL OR expires_at > now()) "
    )
    if not exact:
        return (
            "SELECT id, 1 - (embedding <=> %s::vector) AS sim FROM memory_memorynote "
            + where
            + "ORDER BY embedding <=> %s::vector LIMIT %s"
        )
    # as in _NOTES_SQL: exact on the half-precision copy, the best RERANK_FACTOR x re-ranked on the full vectors
    dims = int(settings.EMBEDDING_DIMENSIONS)
    return (
        "SELECT id, 1 - (embedding <=> %s::vector) AS sim FROM (SELECT id, embedding FROM memory_memorynote "
        + where
        + f"ORDER BY (embedding_half <=> %s::halfvec({dims})) + 0 LIMIT {RERANK_FACTOR} * %s) near "
        "ORDER BY embedding <=> %s::vector LIMIT %s"
    )


def active_note_count(*, tenant_id: int, end_user_id: int, limit: int = EXACT_SCAN_MAX + 1) -> int:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM (SELECT 1 FROM memory_memorynote WHERE tenant_id = %s AND end_user_id = %s "
            "AND status = 'active' AND (expires_at IS NULL OR expires_at > now()) LIMIT %s) AS few",
            [tenant_id, end_user_id, limit],
        )
        return cur.fetchone()[0]


def vector_candidates(
    *, tenant_id: int, end_user_id: int, vector: list[float], model: str, limit: int = CANDIDATES
) -> dict[int, float]:
    """Nearest active notes of one user by cosine similarity, exactly up to EXACT_SCAN_MAX notes."""
    literal = _vector_literal(vector)
    exact = active_note_count(tenant_id=tenant_id, end_user_id=end_user_id) <= EXACT_SCAN_MAX
    with connection.cursor() as cur:
        cur.execute(
            vector_statement(exact=exact),
            vector_statement_params(
                tenant_id=tenant_id, end_user_id=end_user_id, literal=literal, model=model, limit=limit, exact=exact
            ),
        )
        return {row[0]: float(row[1]) for row in cur.fetchall()}


def vector_statement_params(
    *, tenant_id: int, end_user_id: int, literal: str, model: str, limit: int, exact: bool
) -> list:
    """The parameters of vector_statement(exact=exact), in order."""
    if exact:
        return [literal, tenant_id, end_user_id, model, literal, limit, literal, limit]
    return [literal, tenant_id, end_user_id, model, literal, limit]


def _vector_literal(vector: list[float]) -> str:
    return "[" + ",".join(f"{v:.6f}" for v in vector) + "]"


# The notes side of recall in one statement (one round trip): how many active notes the user has; the vector
# neighbours, ranked exactly when that count is at most EXACT_SCAN_MAX and through the HNSW index above it (the
# count gates each branch with a pseudo-constant filter, so PostgreSQL runs only one; the HNSW search settings
# come with the connection, see PGVECTOR_SESSION_OPTIONS); the keyword matches; every note when the user has
# only a few; then each candidate with its cosine similarity and its source messages.
_USER_NOTES = (
    "FROM memory_memorynote WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s AND status = 'active' "
    "AND (expires_at IS NULL OR expires_at > now())"
)
_VECTOR_FILTER = " AND embedding_model = %(model)s AND embedding IS NOT NULL"
_NOTES_SQL = (
    "WITH cnt AS MATERIALIZED (SELECT count(*) AS c FROM (SELECT 1 " + _USER_NOTES + " LIMIT %(count_limit)s) few), "
    "exact AS (SELECT id FROM (SELECT id, embedding "
    + _USER_NOTES
    + _VECTOR_FILTER
    + " AND (SELECT c FROM cnt) <= %(exact_max)s ORDER BY (embedding_half <=> %(vector)s::halfvec({dims})) + 0 "
    "LIMIT %(rerank)s) near ORDER BY embedding <=> %(vector)s::vector LIMIT %(limit)s), "
    "hnsw AS (SELECT id " + _USER_NOTES + _VECTOR_FILTER + " AND (SELECT c FROM cnt) > %(exact_max)s "
    "ORDER BY embedding <=> %(vector)s::vector LIMIT %(limit)s), "
    "kw AS ({keyword}), "
    "everything AS (SELECT id " + _USER_NOTES + " AND (SELECT c FROM cnt) <= %(all_below)s), "
    "ids AS MATERIALIZED (SELECT array_agg(id) AS a FROM (SELECT id FROM exact UNION SELECT id FROM hnsw "
    "UNION SELECT id FROM kw UNION SELECT id FROM everything) cand) "
    "SELECT (SELECT c FROM cnt), n.id, n.content, n.kind, n.key, n.search_text, n.confidence, n.importance, "
    "n.observed_at, n.updated_at, n.created_at, n.session_id, "
    "CASE WHEN n.embedding_model = %(model)s AND n.embedding IS NOT NULL "
    "THEN 1 - (n.embedding <=> %(vector)s::vector) END, "
    "ARRAY(SELECT s.message_id FROM memory_memorynote_source_messages s WHERE s.memorynote_id = n.id "
    "AND s.tenant_id = %(tenant)s "
    "ORDER BY s.message_id) "
    "FROM (SELECT 1) AS one LEFT JOIN memory_memorynote n ON n.id = ANY((SELECT a FROM ids)::bigint[]) "
    "AND n.tenant_id = %(tenant)s AND n.end_user_id = %(user)s AND n.status = 'active'"
)
_KEYWORD_SQL = (
    "SELECT id " + _USER_NOTES + " AND search_tsv @@ to_tsquery('simple', %(tsquery)s) "
    "ORDER BY ts_rank(search_tsv, to_tsquery('simple', %(tsquery)s)) DESC LIMIT %(limit)s"
)
_NO_KEYWORD_SQL = "SELECT NULL::bigint AS id WHERE false"

# Episodic recall over past user messages, ranked in the database: the user's most recent messages that share a
# term with the question (at most `pool`) form the collection; each query term is weighted by its inverse
# document frequency in that collection (BM25's idf), a message scores the weight of the terms it contains
# (BM25 with term frequency 1, length-normalised), and `coverage` is the share of the question's total weight
# it matches. Only the best `top` rows come back, with their content.
_MESSAGES_SQL = (
    "WITH pool AS MATERIALIZED (SELECT id, tsvector_to_array(search_tsv) AS terms FROM assistants_message "
    "WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s AND role = 'user' AND session_id <> %(session)s "
    "AND search_tsv @@ to_tsquery('simple', %(tsquery)s) ORDER BY created_at DESC LIMIT %(pool)s), "
    "size AS MATERIALIZED (SELECT count(*) AS n, greatest(avg(cardinality(terms)), 1) AS avg_len FROM pool), "
    "df AS (SELECT t, count(*) AS df FROM pool, unnest(terms) AS t WHERE t = ANY(%(terms)s) GROUP BY t), "
    "idf AS (SELECT t, ln(((SELECT n FROM size) - df + 0.5) / (df + 0.5) + 1) AS w FROM df), "
    "scored AS (SELECT p.id, sum(idf.w) AS matched, "
    "sum(idf.w) * 2.2 / (1 + 1.2 * (0.25 + 0.75 * cardinality(p.terms) / (SELECT avg_len FROM size))) AS bm25 "
    "FROM pool p CROSS JOIN LATERAL unnest(p.terms) AS u(t) JOIN idf ON idf.t = u.t GROUP BY p.id, p.terms) "
    "SELECT m.id, m.session_id, m.content, m.created_at, s.matched, s.bm25, "
    "(SELECT n FROM size), (SELECT coalesce(sum(w), 0) FROM idf), (SELECT count(*) FROM idf) "
    "FROM scored s JOIN assistants_message m ON m.id = s.id AND m.tenant_id = %(tenant)s "
    "ORDER BY s.matched DESC, s.bm25 DESC, m.created_at DESC "
    "LIMIT %(top)s"
)
MESSAGE_POOL = 1_000  # the most recent matching messages ranked per question


# The messages side in one statement: the keyword ranking above (or nothing when the query has no terms), each
# keyword match's next user message in its session (what follows a matching remark is often the answer: it gets
# part of that match as context evidence, see CONTEXT_SHARE), the nearest message vectors of the user (exactly up
# to MESSAGE_EXACT_SCAN_MAX vectors, through the HNSW index above, gated like the notes), then each candidate
# message with its best chunk's cosine, its own keyword evidence and that of the message before it.
_MESSAGE_VECTORS = (
    "FROM memory_messagevector WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s AND embedding_model = %(model)s"
)
_EPISODES_SQL = (
    "WITH kw AS MATERIALIZED ({keyword}), "
    "vcnt AS MATERIALIZED (SELECT count(*) AS c FROM (SELECT 1 " + _MESSAGE_VECTORS + " LIMIT %(count_limit)s) few), "
    "vexact AS (SELECT message_id " + _MESSAGE_VECTORS + " AND session_id <> %(session)s "
    "AND (SELECT c FROM vcnt) <= %(exact_max)s ORDER BY (embedding <=> %(vector)s::vector) + 0 LIMIT %(limit)s), "
    "vhnsw AS (SELECT message_id " + _MESSAGE_VECTORS + " AND session_id <> %(session)s "
    "AND (SELECT c FROM vcnt) > %(exact_max)s ORDER BY embedding <=> %(vector)s::vector LIMIT %(limit)s), "
    "ids AS (SELECT id FROM kw UNION SELECT next_id FROM kw WHERE next_id IS NOT NULL "
    "UNION SELECT message_id FROM vexact UNION SELECT message_id FROM vhnsw) "
    "SELECT m.id, m.session_id, m.content, m.created_at, kw.matched, kw.matched_terms, kp.matched, "
    "kp.matched_terms, coalesce(kw.size, kp.size), coalesce(kw.matched_total, kp.matched_total), "
    "(SELECT 1 - min(v.embedding <=> %(vector)s::vector) FROM memory_messagevector v "
    "WHERE v.message_id = m.id AND v.tenant_id = %(tenant)s AND v.embedding_model = %(model)s) "
    "FROM ids JOIN assistants_message m ON m.id = ids.id AND m.tenant_id = %(tenant)s AND m.end_user_id = %(user)s "
    "AND m.role = 'user' AND m.session_id <> %(session)s LEFT JOIN kw ON kw.id = m.id "
    "LEFT JOIN kw AS kp ON kp.next_id = m.id"
)
_NO_MESSAGE_KEYWORDS = (
    "SELECT NULL::bigint AS id, NULL::float AS matched, NULL::bigint AS size, "
    "NULL::float AS matched_total, NULL::bigint AS matched_terms, NULL::bigint AS next_id "
    "WHERE false"
)
_MESSAGE_KEYWORDS = _MESSAGES_SQL.replace(
    "SELECT m.id, m.session_id, m.content, m.created_at, s.matched, s.bm25, ", "SELECT m.id, s.matched, "
).replace(
    "(SELECT n FROM size), (SELECT coalesce(sum(w), 0) FROM idf), (SELECT count(*) FROM idf) ",
    "(SELECT n FROM size) AS size, (SELECT coalesce(sum(w), 0) FROM idf) AS matched_total, "
    "(SELECT count(*) FROM idf) AS matched_terms, (SELECT n.id FROM assistants_message n "
    "WHERE n.tenant_id = %(tenant)s AND n.session_id = m.session_id AND n.id > m.id AND n.role = 'user' "
    "ORDER BY n.id LIMIT 1) AS next_id ",
)


@dataclass
class _Candidate:
    item: RecalledItem
    relevance: float


def _note_rows(
    *, tenant_id: int, end_user_id: int, vector: list[float], model: str, tsquery: str, all_below: int, limit: int
) -> tuple[int, list[tuple]]:
    """(the user's active note count up to EXACT_SCAN_MAX + 1, candidate rows). See _NOTES_SQL."""
    sql = _NOTES_SQL.replace("{keyword}", _KEYWORD_SQL if tsquery else _NO_KEYWORD_SQL).replace(
        "{dims}", str(int(settings.EMBEDDING_DIMENSIONS))
    )
    params = {
        "tenant": tenant_id,
        "user": end_user_id,
        "model": model,
        "vector": _vector_literal(vector),
        "tsquery": tsquery,
        "limit": limit,
        "rerank": RERANK_FACTOR * limit,
        "exact_max": EXACT_SCAN_MAX,
        "count_limit": max(EXACT_SCAN_MAX, all_below) + 1,
        "all_below": all_below,
    }
    with connection.cursor() as cur:
        cur.execute(sql, params)
        rows = cur.fetchall()
    return rows[0][0], [row[1:] for row in rows if row[1] is not None]


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
) -> list[tuple]:
    """Past user messages of one user near the query by meaning or by words (see _EPISODES_SQL): rows of
    (id, session id, content, created_at, keyword coverage 0..1, the previous user message's coverage 0..1,
    best cosine or None)."""
    query = _tsquery(terms)
    sql = _EPISODES_SQL.replace("{keyword}", _MESSAGE_KEYWORDS if query else _NO_MESSAGE_KEYWORDS)
    with connection.cursor() as cur:
        cur.execute(
            sql,
            {
                "tenant": tenant_id,
                "user": end_user_id,
                "session": exclude_session_id or -1,
                "tsquery": query,
                "terms": terms,
                "pool": pool,
                "top": top,
                "model": model,
                "vector": _vector_literal(vector),
                "limit": top,
                "exact_max": MESSAGE_EXACT_SCAN_MAX,
                "count_limit": MESSAGE_EXACT_SCAN_MAX + 1,
            },
        )
        rows = cur.fetchall()
    n_terms = len(set(terms))
    return [
        (
            mid,
            session_id,
            content,
            created_at,
            _coverage(matched, size, total, n_matched, n_terms),
            _coverage(prev_matched, size, total, prev_n_matched, n_terms),
            None if sim is None else float(sim),
        )
        for (
            mid,
            session_id,
            content,
            created_at,
            matched,
            n_matched,
            prev_matched,
            prev_n_matched,
            size,
            total,
            sim,
        ) in rows
    ]


def _episodes(
    *,
    tenant_id: int,
    end_user_id: int,
    terms: list[str],
    vector: list[float],
    model: str,
    exclude_session_id: int | None,
    top: int,
    weights: RecallWeights,
) -> dict[int, Episode]:
    """The candidate past messages with their relevance (cosine + keyword evidence), then credited with a share of
    the evidence of the user turns right next to them (memory.services.
    recall_context): a transcript's answer is often the turn after the one that matches the question."""
    episodes = {}
    for mid, session_id, content, created_at, coverage, previous, sim in message_candidates(
        tenant_id=tenant_id,
        end_user_id=end_user_id,
        terms=terms,
        vector=vector,
        model=model,
        exclude_session_id=exclude_session_id,
        top=top,
    ):
        words = max(coverage, weights.context * previous)
        episodes[mid] = Episode(
            mid, session_id, content, created_at, weights.vector * max(0.0, sim or 0.0) + weights.keyword * words
        )
    if weights.neighbour and episodes:
        rows = neighbour_rows(
            tenant_id=tenant_id,
            end_user_id=end_user_id,
            ids=list(episodes),
            vector_literal=_vector_literal(vector),
            model=model,
            exclude_session_id=exclude_session_id,
        )
        episodes = spread_to_neighbours(episodes, rows, share=weights.neighbour, vector_weight=weights.vector)
    return episodes


def _time_factor(policy, when, now, weights: RecallWeights) -> float:
    return 1.0 - weights.decay * (1.0 - _decay(policy, when, now))


def memory_recall(
    *,
    tenant,
    end_user,
    query: str,
    k: int | None = None,
    budget_tokens: int | None = None,
    include_messages: bool = True,
    exclude_session_id: int | None = None,
    touch: bool = True,
    assistant=None,
    for_context: bool = False,
    query_embedding: list[float] | None = None,
    weights: RecallWeights | None = None,
    policy: MemoryPolicy | None = None,
) -> list[RecalledItem]:
    """The user's notes (and past messages) most relevant to `query`, best first.

    Explicit recall (the default): exactly `k` items (policy's recall_top_k when not given) whenever the user has
    that many candidates, cut by `budget_tokens` only when one is given. `for_context` (the chat turn): only items
    at least `recall_min_relevance` relevant, every note when the user has at most `recall_all_below`, within
    `budget_tokens` (default: the policy's memories budget).

    Filters by tenant and end user inside the SQL. `touch` updates last_recalled_at/recall_count.
    `exclude_session_id` leaves out messages of the current session (they are in the window already).
    `query_embedding` (optional) is the query already embedded with the policy's model (benchmarks, batch use);
    `weights` overrides the measured WEIGHTS (the ablation in bench/). `policy`: the effective policy the caller
    already resolved (the chat turn's, tenant + assistant); without it, the policy of `assistant` (or the
    tenant's) is resolved here. Its embedding model is the one the assistant's extraction writes with, so the
    notes it wrote are the ones the vector search compares against."""
    if end_user.tenant_id != tenant.pk:
        return []
    weights = weights or WEIGHTS
    policy = policy or memory_policy_for(tenant=tenant, assistant=assistant)
    k = k or policy.recall_top_k
    if for_context and budget_tokens is None:
        budget_tokens = policy.budget_memories_tokens
    now = timezone.now()
    slots = query_topics(query)
    expanded = " ".join([query] + [topic_words_for(s) for s in sorted(slots)])
    terms = search_terms(pii_redact(expanded)[0])
    term_set = set(terms)
    vector = (
        query_embedding
        if query_embedding is not None
        else embed_texts(texts=[query], model=policy.embedding_model)[1][0]
    )
    limit = max(CANDIDATES, 2 * k)

    count, rows = _note_rows(
        tenant_id=tenant.pk,
        end_user_id=end_user.pk,
        vector=vector,
        model=policy.embedding_model,
        tsquery=_tsquery(terms),
        all_below=policy.recall_all_below if for_context else 0,
        limit=limit,
    )
    recall_all = for_context and count <= policy.recall_all_below

    candidates: list[_Candidate] = []
    for (
        note_id,
        content,
        kind,
        key,
        search_text,
        confidence,
        importance,
        observed_at,
        updated_at,
        created_at,
        session_id,
        sim,
        message_ids,
    ) in rows:
        note_terms = set((search_text or "").split())
        kw = len(term_set & note_terms) / len(term_set) if term_set else 0.0
        topic = 1.0 if key.split(":")[-1] in slots else 0.0
        relevance = weights.vector * max(0.0, sim or 0.0) + weights.keyword * kw + weights.topic * topic
        score = (
            relevance
            * _time_factor(policy, observed_at or updated_at, now, weights)
            * weights.note
            * (0.8 + 0.2 * confidence)
            * (0.8 + 0.2 * importance)
        )
        candidates.append(
            _Candidate(
                RecalledItem(
                    type="note",
                    id=note_id,
                    content=content,
                    score=score,
                    kind=kind,
                    session_id=session_id,
                    message_ids=list(message_ids or []),
                    created_at=created_at,
                ),
                relevance,
            )
        )

    if include_messages:
        notes_by_message: dict[int, list[_Candidate]] = {}
        for c in candidates:
            for m in c.item.message_ids:
                notes_by_message.setdefault(m, []).append(c)
        episodes = _episodes(
            tenant_id=tenant.pk,
            end_user_id=end_user.pk,
            terms=terms,
            vector=vector,
            model=policy.embedding_model,
            exclude_session_id=exclude_session_id,
            top=limit + len(notes_by_message),
            weights=weights,
        )
        for mid, episode in episodes.items():
            session_id, content, created_at, relevance = (
                episode.session_id,
                episode.content,
                episode.created_at,
                episode.relevance,
            )
            score = relevance * _time_factor(policy, created_at, now, weights) * weights.message
            if mid in notes_by_message:  # a note already carries what this message said: it is as relevant
                for note in notes_by_message[mid]:
                    if score > note.item.score:
                        note.item.score, note.relevance = score, max(note.relevance, relevance)
                continue
            candidates.append(
                _Candidate(
                    RecalledItem(
                        type="message",
                        id=mid,
                        content=content,
                        score=score,
                        session_id=session_id,
                        message_ids=[mid],
                        created_at=created_at,
                    ),
                    relevance,
                )
            )

    candidates.sort(key=lambda c: (-c.item.score, c.item.type, -c.item.id))
    if for_context:
        ranked = [
            c.item
            for c in candidates
            if c.relevance >= policy.recall_min_relevance or (recall_all and c.item.type == "note")
        ]
        if not recall_all:
            ranked = ranked[:k]
    elif weights.distinct:
        ranked = distinct_first([c.item for c in candidates], k)
    else:
        ranked = [c.item for c in candidates[:k]]

    chosen, used = [], 0
    for item in ranked:
        if item.type == "message":  # a past message is shown without the identifiers it may hold
            item.content = pii_redact(item.content)[0]
        cost = estimate_tokens(item.content)
        if budget_tokens is not None and used + cost > budget_tokens:
            continue
        chosen.append(item)
        used += cost
    if touch:
        memory_recall_touch(tenant=tenant, items=chosen, when=now)
    return chosen


def memory_recall_touch(*, tenant, items: list[RecalledItem], when: datetime | None = None) -> None:
    """Count a recall of the notes among `items` (last_recalled_at, recall_count: what decay reads). The chat
    turn calls it after the reply, not while the user waits for the first token: an UPDATE of a note that does
    not fit its page again (not HOT) re-inserts it into every index, the HNSW graph included."""
    note_ids = [i.id for i in items if i.type == "note"]
    if note_ids:
        MemoryNote.objects.for_tenant(tenant).filter(pk__in=note_ids).update(
            last_recalled_at=when or timezone.now(), recall_count=F("recall_count") + 1
        )
