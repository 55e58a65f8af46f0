"""The SQL of recall's messages side (memory.services.recall.recall_messages): one statement that ranks a user's past
messages by words (BM25 over the most recent matching ones) and by meaning (their message vectors), filtered by
tenant and end user inside the statement."""

from __future__ import annotations

from django.conf import settings

from core.db import text_rows
from memory.services.recall.recall_sql import (
    ABOVE_EXACT_KEPT,
    USER_TERMS,
    AboveExact,
    current_version,
    epoch_us,
    prepared_first,
)

_MESSAGES_ABOVE_EXACT = AboveExact(ABOVE_EXACT_KEPT)  # by their message vectors or messages
_VECTORS_ABOVE_EXACT = AboveExact(ABOVE_EXACT_KEPT)  # by their message vectors alone


# Episodic recall over past user messages, ranked in the database: the user's most recent messages that share a
# term with the question (at most `pool`) form the collection; each query term is weighted by its inverse
# document frequency in that collection (BM25's idf), a message scores the weight of the terms it contains
# (BM25 with term frequency 1, length-normalised), and `coverage` is the share of the question's total weight
# it matches. Only the best `top` rows come back.
# Each pooled message carries the query terms it holds (`hits`, each term's tsquery made once in `mt` and checked
# against the message's sorted lexemes) and its lexeme count, with its session and time: the frequencies and scores
# are set operations on those few (message, term) pairs (`hit`), where unnesting every pooled message's lexemes
# row by row took 4 ms, summing each one's weights in a subquery 2 ms and joining each pooled message back for its
# time 2 ms of a 6,000-turn user's 18 ms statement. `terms` are the query's terms that tsquery_of keeps.
_POOL_COLUMNS = (
    "SELECT id, session_id, created_at, length(search_tsv) AS len, "
    "ARRAY(SELECT mt.t FROM mt WHERE p.search_tsv @@ mt.tq) AS hits FROM assistants_message p "
)
_TERM_QUERIES = "mt AS MATERIALIZED (SELECT t, to_tsquery('simple', t) AS tq FROM unnest(%(terms)s::text[]) AS t), "
# The pool as text, planned for its values (a user with more than message_max messages, `ucnt` in EPISODES_SQL):
# through the user's entries of message_user_terms_gin (assistants.0012) for rare terms, or the user's messages
# newest first for common ones.
_POOL_TEXT = (
    "WITH "
    + _TERM_QUERIES
    + "pool AS MATERIALIZED ("
    + _POOL_COLUMNS
    + "WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s AND role = 'user' AND session_id <> %(session)s "
    "AND "
    + current_version("p")
    + " AND "
    + USER_TERMS
    + " @@ (('u' || %(user)s::text)::tsquery && to_tsquery('simple', %(tsquery)s)) "
    "ORDER BY created_at DESC, id DESC LIMIT %(pool)s), "
)
# The pool prepared (a generic plan, for a user with at most message_max messages): the user's messages through
# their btree, the terms matched on each (the tsquery made once, `mq`). Ordered on an expression no index holds: a
# generic plan walked the tenant's `created_at` index backwards across every user's messages instead (27-33 ms in
# a 100,000-message tenant, docs/benchmarks-history.md "Recall, tenth round").
_POOL_PREPARED = (
    "WITH mq AS MATERIALIZED (SELECT to_tsquery('simple', %(tsquery)s) AS terms), "
    + _TERM_QUERIES
    + "pool AS MATERIALIZED ("
    + _POOL_COLUMNS
    + "WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s AND role = 'user' AND session_id <> %(session)s "
    "AND "
    + current_version("p")
    + " AND (SELECT c FROM ucnt) <= %(message_max)s AND search_tsv @@ (SELECT terms FROM mq) "
    "ORDER BY created_at + interval '0 s' DESC, id DESC LIMIT %(pool)s), "
)
MESSAGE_KEYWORDS_SQL = (
    _POOL_TEXT + "size AS MATERIALIZED (SELECT count(*) AS n, greatest(avg(len), 1) AS avg_len FROM pool), "
    "hit AS MATERIALIZED (SELECT id, unnest(hits) AS t FROM pool), "
    "df AS (SELECT t, count(*) AS df FROM hit GROUP BY t), "
    "idf AS (SELECT t, ln(((SELECT n FROM size) - df + 0.5) / (df + 0.5) + 1) AS w FROM df), "
    "weight AS (SELECT hit.id, sum(idf.w) AS matched FROM hit JOIN idf ON idf.t = hit.t GROUP BY hit.id), "
    "scored AS (SELECT p.id, p.session_id, p.created_at, s.matched, "
    "s.matched * 2.2 / (1 + 1.2 * (0.25 + 0.75 * p.len / (SELECT avg_len FROM size))) AS bm25 "
    "FROM weight s JOIN pool p ON p.id = s.id) "
    "SELECT s.id, s.matched, (SELECT n FROM size) AS size, (SELECT coalesce(sum(w), 0) FROM idf) AS matched_total, "
    "(SELECT count(*) FROM idf) AS matched_terms, (SELECT n.id FROM assistants_message n "
    "WHERE n.tenant_id = %(tenant)s AND n.session_id = s.session_id AND n.id > s.id AND n.role = 'user' "
    "AND " + current_version("n") + " ORDER BY n.id LIMIT 1) AS next_id "
    "FROM scored s ORDER BY s.matched DESC, s.bm25 DESC, s.created_at DESC LIMIT %(top)s"
)


# The messages side in one statement: the keyword ranking above (or nothing when the query has no terms), each
# keyword match's next user message in its session (what follows a matching remark is often the answer: it gets
# part of that match as context evidence, see CONTEXT_SHARE), the nearest message vectors of the user (exactly up
# to MESSAGE_EXACT_SCAN_MAX vectors: the RERANK_FACTOR x nearest on the half-precision copy, memory.0013, re-ranked
# on the full vectors as for notes; through the HNSW index above, gated like the notes), then each candidate
# message with its best row's cosine (its chunks and sentences, memory.services.recall.episodes), its own keyword
# evidence and that of the message before it. The cosines are taken once the candidates are known (`found`,
# materialized): as a column of the outer-joined candidates, PostgreSQL computed it while scanning the messages,
# for each of the user's messages the scan read (in a small tenant, where
# the plan reads its messages whole: 1,020 cosines for 50 candidates, 8.5 ms of a 13.9 ms statement). A candidate's
# keyword evidence, and that of the match before it (the match whose next_id it is: one at most), come from one
# grouping of the candidates (`evidence`), not from two joins with the keyword rows, which PostgreSQL ran as nested
# loops over them (about 3 ms for 150 candidates and 50 matches).
_MESSAGE_VECTORS = (
    "FROM memory_messagevector WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s AND embedding_model = %(model)s"
)
_MESSAGE_COUNT = (
    "ucnt AS MATERIALIZED (SELECT count(*) AS c FROM (SELECT 1 FROM assistants_message WHERE tenant_id = %(tenant)s "
    "AND end_user_id = %(user)s AND role = 'user' LIMIT %(message_max)s + 1) few), "
)
# Counting a user's vectors up to count_limit reads that many index entries (6.5 ms at 20,001): a user whose count
# was above it once is searched through the HNSW index without counting again, nor counting their messages, which
# only choose between the prepared and the text statement (episodes_rows).
_VECTOR_COUNT = (
    "vcnt AS MATERIALIZED (SELECT count(*) AS c FROM (SELECT 1 " + _MESSAGE_VECTORS + " LIMIT %(count_limit)s) few), "
)
_VHNSW_CTE = (
    "vhnsw AS (SELECT message_id " + _MESSAGE_VECTORS + " AND session_id <> %(session)s "
    "AND (SELECT c FROM vcnt) > %(exact_max)s ORDER BY embedding <=> (SELECT vec FROM q) LIMIT %(limit)s), "
)
EPISODES_SQL = (
    "WITH q AS MATERIALIZED (SELECT %(vector)s::vector AS vec, %(vector)s::halfvec({dims}) AS half), "
    + _MESSAGE_COUNT
    + "kw AS MATERIALIZED ({keyword}), "
    + _VECTOR_COUNT
    + "vexact AS (SELECT message_id FROM (SELECT message_id, embedding "
    + _MESSAGE_VECTORS
    + " AND session_id <> %(session)s "
    "AND (SELECT c FROM vcnt) <= %(exact_max)s ORDER BY (embedding_half <=> (SELECT half FROM q)) + 0 "
    "LIMIT %(rerank)s) near ORDER BY embedding <=> (SELECT vec FROM q) LIMIT %(limit)s), "
    + _VHNSW_CTE
    + "evidence AS (SELECT id, max(matched) AS matched, max(matched_terms) AS matched_terms, "
    "max(prev_matched) AS prev_matched, max(prev_matched_terms) AS prev_matched_terms, max(size) AS size, "
    "max(matched_total) AS matched_total FROM ("
    "SELECT id, matched, matched_terms, NULL AS prev_matched, NULL AS prev_matched_terms, size, matched_total FROM kw "
    "UNION ALL SELECT next_id, NULL, NULL, matched, matched_terms, size, matched_total FROM kw "
    "WHERE next_id IS NOT NULL "
    "UNION ALL SELECT message_id, NULL, NULL, NULL, NULL, NULL, NULL FROM vexact "
    "UNION ALL SELECT message_id, NULL, NULL, NULL, NULL, NULL, NULL FROM vhnsw) AS cand GROUP BY id), "
    "found AS MATERIALIZED (SELECT m.id, m.session_id, m.content, m.created_at, e.matched, e.matched_terms, "
    "e.prev_matched, e.prev_matched_terms, e.size, e.matched_total "
    "FROM evidence e JOIN assistants_message m ON m.id = e.id AND m.tenant_id = %(tenant)s "
    "AND m.end_user_id + 0 = %(user)s AND m.role = 'user' AND m.session_id <> %(session)s "
    "AND " + current_version("m") + ") "
    "SELECT (SELECT c FROM vcnt), (SELECT c FROM ucnt), f.id, f.session_id, f.content, "
    + epoch_us("f.created_at")
    + ", f.matched, "
    "f.matched_terms, f.prev_matched, f.prev_matched_terms, f.size, f.matched_total, "
    "(SELECT 1 - min(v.embedding_half <=> (SELECT half FROM q)) FROM memory_messagevector v "
    "WHERE v.message_id = f.id AND v.tenant_id = %(tenant)s AND v.embedding_model = %(model)s) "
    "FROM (SELECT 1) AS one LEFT JOIN found f ON true"
)
NO_MESSAGE_KEYWORDS_SQL = (
    "SELECT NULL::bigint AS id, NULL::float AS matched, NULL::bigint AS size, "
    "NULL::float AS matched_total, NULL::bigint AS matched_terms, NULL::bigint AS next_id "
    "WHERE false"
)


def episodes_sql(*, keywords: bool, hnsw: bool = True, vectors_above: bool = False) -> str:
    """The messages statement (parameters: tenant, user, session, tsquery, terms, pool, top, model, vector, limit,
    rerank, exact_max, count_limit, message_max), with the keyword ranking when the query has terms (`keywords`).
    Without `hnsw` it is the statement to prepare: no branch for users above exact_max vectors, and the keyword
    pool of a user with at most message_max messages (prepared_first says why). Its first two columns are the
    user's vector count up to count_limit and user message count up to message_max + 1; a row without a message
    (the rest NULL) when nothing was found."""
    keyword = MESSAGE_KEYWORDS_SQL if keywords else NO_MESSAGE_KEYWORDS_SQL
    sql = EPISODES_SQL.replace("{keyword}", keyword)
    if vectors_above:
        sql = sql.replace(_VECTOR_COUNT, "vcnt AS (SELECT %(count_limit)s::bigint AS c), ").replace(
            _MESSAGE_COUNT, "ucnt AS (SELECT NULL::bigint AS c), "
        )
    if not hnsw:
        sql = sql.replace(_VHNSW_CTE, "vhnsw AS (SELECT NULL::bigint AS message_id WHERE false), ")
        sql = sql.replace(_POOL_TEXT, _POOL_PREPARED)
    return sql.replace("{dims}", str(int(settings.EMBEDDING_DIMENSIONS)))


def episodes_rows(*, keywords: bool, params: dict) -> list[tuple]:
    """The messages statement's rows for `params` (see prepared_first). A user once found with more vectors than
    exact_max is asked without counting them (_VECTOR_COUNT)."""
    user = (params["tenant"], params["user"])
    if user in _VECTORS_ABOVE_EXACT:
        return text_rows(episodes_sql(keywords=keywords, vectors_above=True), params)
    rows = prepared_first(
        prepared_sql=episodes_sql(keywords=keywords, hnsw=False),
        text_sql=episodes_sql(keywords=keywords),
        params=params,
        above=_MESSAGES_ABOVE_EXACT,
        fits=lambda first: first[0] <= params["exact_max"] and first[1] <= params["message_max"],
    )
    if rows[0][0] > params["exact_max"]:
        _VECTORS_ABOVE_EXACT.add(user)
    return rows
