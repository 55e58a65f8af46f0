"""Recall: what the chat turn puts in context from long-term memory, on demand, never the whole store.

Hybrid retrieval over one user's active notes: pgvector cosine similarity (HNSW, same embedding model only)
and keyword matching on CJK bigrams / stemmed words (a 'simple' tsvector with a GIN index), both filtered by
tenant and end user INSIDE the SQL. Candidates are scored in Python:

    relevance = 0.45 * cosine + 0.35 * keyword overlap + 0.20 * same topic (slot) as the question
    score     = relevance * max(decay_floor, decay_rate_per_day ** age_days) * (0.6 + 0.4 * confidence)
                          * (0.6 + 0.4 * importance)

A user with at most `recall_all_below` active notes gets all of them (seed 000). Past user messages of other
sessions are searched too (episodic recall, so that what extraction missed can still be found), ranked by the
share of the question's term weight they match (BM25's idf over the user's matching messages):

    relevance = 0.5 * coverage;   score = relevance * decay * 0.8

Notes fill the top k first; past messages fill what is left and take at least half of it. Items are then cut to
the token budget. The notes side is one SQL statement and the messages side another (two round trips).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection
from django.db.models import F
from django.utils import timezone

from assistants.services.policy import memory_policy_for
from memory.models import MemoryNote
from memory.services.embeddings import embed_texts, search_terms
from memory.services.pii import pii_redact
from memory.services.topics import query_topics, topic_words_for

CANDIDATES = 50
EXACT_SCAN_MAX = 5_000  # a user with more active notes than this is searched through the HNSW index
MESSAGE_WEIGHT = 0.8  # a past message is evidence, a note is a checked fact
MIN_RELEVANCE = 0.12
# a past message must match at least this share of the question's term weight (LoCoMo conv-26, bench: raising it
# to 0.24 cut R@25 from 66.7 to 49.7 by returning too few messages)
MESSAGE_MIN_COVERAGE = 0.05
_CJK = re.compile(r"[\u3400-\u9fff]")


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


def estimate_tokens(text: str) -> int:
    """A model-independent estimate: one token per CJK character, ~1.3 per English word, plus framing."""
    cjk = len(_CJK.findall(text or ""))
    words = len(re.findall(r"[A-Za-z0-9]+", text or ""))
    return cjk + math.ceil(words * 1.3) + 4


def _decay(policy, when, now) -> float:
    days = max(0.0, (now - when).total_seconds() / 86400) if when else 0.0
    return max(policy.decay_floor, policy.decay_rate_per_day ** days)


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
    order = "(embedding <=> %s::vector) + 0" if exact else "embedding <=> %s::vector"
    return ("SELECT id, 1 - (embedding <=> %s::vector) AS sim FROM memory_memorynote "
            "WHERE tenant_id = %s AND end_user_id = %s AND status = 'active' AND embedding_model = %s "
            "AND embedding IS NOT NULL AND (expires_at IS NULL OR expires_at > now()) "
            f"ORDER BY {order} LIMIT %s")


def active_note_count(*, tenant_id: int, end_user_id: int, limit: int = EXACT_SCAN_MAX + 1) -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM (SELECT 1 FROM memory_memorynote WHERE tenant_id = %s AND end_user_id = %s "
                    "AND status = 'active' AND (expires_at IS NULL OR expires_at > now()) LIMIT %s) AS few",
                    [tenant_id, end_user_id, limit])
        return cur.fetchone()[0]


def vector_candidates(*, tenant_id: int, end_user_id: int, vector: list[float], model: str,
                      limit: int = CANDIDATES) -> dict[int, float]:
    """Nearest active notes of one user by cosine similarity, exactly up to EXACT_SCAN_MAX notes."""
    literal = _vector_literal(vector)
    exact = active_note_count(tenant_id=tenant_id, end_user_id=end_user_id) <= EXACT_SCAN_MAX
    with connection.cursor() as cur:
        cur.execute(vector_statement(exact=exact), [literal, tenant_id, end_user_id, model, literal, limit])
        return {row[0]: float(row[1]) for row in cur.fetchall()}


def _vector_literal(vector: list[float]) -> str:
    return "[" + ",".join(f"{v:.6f}" for v in vector) + "]"


# The notes side of recall in one statement (one round trip): how many active notes the user has; the vector
# neighbours, ranked exactly when that count is at most EXACT_SCAN_MAX and through the HNSW index above it (the
# count gates each branch with a pseudo-constant filter, so PostgreSQL runs only one; the HNSW search settings
# come with the connection, see PGVECTOR_SESSION_OPTIONS); the keyword matches; every note when the user has
# only a few; then each candidate with its cosine similarity and its source messages.
_USER_NOTES = ("FROM memory_memorynote WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s AND status = 'active' "
               "AND (expires_at IS NULL OR expires_at > now())")
_VECTOR_FILTER = " AND embedding_model = %(model)s AND embedding IS NOT NULL"
_NOTES_SQL = (
    "WITH cnt AS MATERIALIZED (SELECT count(*) AS c FROM (SELECT 1 " + _USER_NOTES + " LIMIT %(count_limit)s) few), "
    "exact AS (SELECT id " + _USER_NOTES + _VECTOR_FILTER + " AND (SELECT c FROM cnt) <= %(exact_max)s "
    "ORDER BY (embedding <=> %(vector)s::vector) + 0 LIMIT %(limit)s), "
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
    "ORDER BY s.message_id) "
    "FROM (SELECT 1) AS one LEFT JOIN memory_memorynote n ON n.id = ANY((SELECT a FROM ids)::bigint[]) "
    "AND n.tenant_id = %(tenant)s AND n.end_user_id = %(user)s AND n.status = 'active'"
)
_KEYWORD_SQL = ("SELECT id " + _USER_NOTES + " AND search_tsv @@ to_tsquery('simple', %(tsquery)s) "
                "ORDER BY ts_rank(search_tsv, to_tsquery('simple', %(tsquery)s)) DESC LIMIT %(limit)s")
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
    "FROM scored s JOIN assistants_message m ON m.id = s.id ORDER BY s.matched DESC, s.bm25 DESC, m.created_at DESC "
    "LIMIT %(top)s"
)
MESSAGE_POOL = 1_000  # the most recent matching messages ranked per question


def _note_rows(*, tenant_id: int, end_user_id: int, vector: list[float], model: str, tsquery: str,
               all_below: int) -> tuple[int, list[tuple]]:
    """(the user's active note count up to EXACT_SCAN_MAX + 1, candidate rows). See _NOTES_SQL."""
    sql = _NOTES_SQL.replace("{keyword}", _KEYWORD_SQL if tsquery else _NO_KEYWORD_SQL)
    params = {"tenant": tenant_id, "user": end_user_id, "model": model, "vector": _vector_literal(vector),
              "tsquery": tsquery, "limit": CANDIDATES, "exact_max": EXACT_SCAN_MAX,
              "count_limit": EXACT_SCAN_MAX + 1, "all_below": all_below}
    with connection.cursor() as cur:
        cur.execute(sql, params)
        rows = cur.fetchall()
    return rows[0][0], [row[1:] for row in rows if row[1] is not None]


def message_candidates(*, tenant_id: int, end_user_id: int, terms: list[str], exclude_session_id: int | None,
                       top: int, pool: int = MESSAGE_POOL) -> list[tuple]:
    """Past user messages ranked by weighted term overlap (see _MESSAGES_SQL): rows of (id, session id, content,
    created_at, coverage 0..1, bm25)."""
    query = _tsquery(terms)
    if not query:
        return []
    with connection.cursor() as cur:
        cur.execute(_MESSAGES_SQL, {"tenant": tenant_id, "user": end_user_id, "session": exclude_session_id or -1,
                                    "tsquery": query, "terms": terms, "pool": pool, "top": top})
        rows = cur.fetchall()
    out = []
    for mid, session_id, content, created_at, matched, bm25, size, matched_total, matched_terms in rows:
        # a query term no message contains weighs what a term found in one message would (it still counts
        # against coverage, so a message matching one word of a long question stays weak)
        unmatched = max(0, len(set(terms)) - matched_terms)
        total = float(matched_total) + unmatched * math.log((size - 1 + 0.5) / 1.5 + 1)
        out.append((mid, session_id, content, created_at, float(matched) / total if total else 0.0, float(bm25)))
    return out


def memory_recall(*, tenant, end_user, query: str, k: int | None = None, budget_tokens: int | None = None,
                  include_messages: bool = True, exclude_session_id: int | None = None,
                  touch: bool = True, assistant=None,
                  query_embedding: list[float] | None = None) -> list[RecalledItem]:
    """The user's notes (and past messages) most relevant to `query`, best first, within `budget_tokens`.

    Filters by tenant and end user inside the SQL. `touch` updates last_recalled_at/recall_count.
    `exclude_session_id` leaves out messages of the current session (they are in the window already).
    `query_embedding` (optional) is the query already embedded with the policy's model (benchmarks, batch use)."""
    if end_user.tenant_id != tenant.pk:
        return []
    policy = memory_policy_for(tenant=tenant, assistant=assistant)
    k = k or policy.recall_top_k
    budget = budget_tokens if budget_tokens is not None else policy.budget_memories_tokens
    now = timezone.now()
    slots = query_topics(query)
    expanded = " ".join([query] + [topic_words_for(s) for s in sorted(slots)])
    terms = search_terms(pii_redact(expanded)[0])
    term_set = set(terms)
    vector = query_embedding if query_embedding is not None else \
        embed_texts(texts=[expanded], model=policy.embedding_model)[1][0]

    count, rows = _note_rows(tenant_id=tenant.pk, end_user_id=end_user.pk, vector=vector,
                             model=policy.embedding_model, tsquery=_tsquery(terms), all_below=policy.recall_all_below)
    recall_all = count <= policy.recall_all_below

    scored: list[RecalledItem] = []
    for (note_id, content, kind, key, search_text, confidence, importance, observed_at, updated_at, created_at,
         session_id, sim, message_ids) in rows:
        note_terms = set((search_text or "").split())
        kw = len(term_set & note_terms) / len(term_set) if term_set else 0.0
        topic = 1.0 if key.split(":")[-1] in slots else 0.0
        relevance = 0.45 * max(0.0, sim or 0.0) + 0.35 * min(1.0, kw * 2) + 0.2 * topic
        if not recall_all and relevance < MIN_RELEVANCE:
            continue
        score = (relevance + (0.05 if recall_all else 0.0)) * _decay(policy, observed_at or updated_at, now) \
            * (0.6 + 0.4 * confidence) * (0.6 + 0.4 * importance)
        scored.append(RecalledItem(type="note", id=note_id, content=content, score=score, kind=kind,
                                   session_id=session_id, message_ids=list(message_ids or []), created_at=created_at))
    scored.sort(key=lambda i: (-i.score, -i.id))
    if not recall_all:
        scored = scored[:k]

    if include_messages and term_set:
        covered = {m for item in scored for m in item.message_ids}
        episodes = []
        for mid, session_id, content, created_at, coverage, bm25 in message_candidates(
                tenant_id=tenant.pk, end_user_id=end_user.pk, terms=terms, exclude_session_id=exclude_session_id,
                top=2 * k + len(covered)):
            if mid in covered:
                continue
            # the question's topic words are among its terms already, so coverage carries the topic too
            relevance = 0.5 * coverage
            if coverage < MESSAGE_MIN_COVERAGE:
                continue
            score = relevance * _decay(policy, created_at, now) * MESSAGE_WEIGHT
            episodes.append((score, bm25, RecalledItem(type="message", id=mid, content=pii_redact(content)[0],
                                                       score=score, session_id=session_id, message_ids=[mid],
                                                       created_at=created_at)))
        episodes.sort(key=lambda e: (-e[0], -e[1]))
        # past messages fill what the notes leave of the top k, and take at least half of it when they can
        room = max(k // 2, 2, k - len(scored))
        scored = sorted(scored + [item for _, _, item in episodes[:room]], key=lambda i: -i.score)

    chosen, used = [], 0
    for item in scored:
        cost = estimate_tokens(item.content)
        if used + cost > budget:
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
            last_recalled_at=when or timezone.now(), recall_count=F("recall_count") + 1)
