"""The SQL of recall (memory.services.recall.recall): one statement for the notes side and one for the messages side,
each filtered by tenant and end user inside the statement, and the helpers that pass a query's terms and vector
to them as parameters."""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django.conf import settings

from core.db import prepared_rows, text_rows
from tenancy.models import MESSAGE_REPLACED_KEY

# The best RERANK_FACTOR x candidates of the exact scan on half-precision vectors are re-ranked on the full vectors
# (memory.services.recall.recall.EXACT_SCAN_MAX says when that scan is used and what it measured).
RERANK_FACTOR = 2


def tsquery_terms(terms: list[str]) -> list[str]:
    """The terms a tsquery may hold: CJK bigrams, [a-z0-9] words and numbers, nothing it would read as an operator."""
    return [t for t in terms if re.fullmatch(r"[\w\u3400-\u9fff.]+", t)]


def tsquery_of(terms: list[str]) -> str:
    return " | ".join(tsquery_terms(terms))


def epoch_us(column: str) -> str:
    """`column` (a timestamptz) as microseconds since the epoch, an integer: the candidates' times come back this way
    (from_epoch_us) because psycopg parses a bigint in C, where Django's timestamptz loader parses each value in
    Python (about 9 us; a 50-candidate list carries 100 of them, about 1 ms of a typical user's 4 ms statement)."""
    return f"(extract(epoch FROM {column}) * 1000000)::bigint"


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def from_epoch_us(value: int | None) -> datetime | None:
    """The aware UTC datetime of an epoch_us value, exact to the microsecond (None stays None)."""
    return None if value is None else _EPOCH + timedelta(microseconds=value)


def vector_literal(vector: list[float]) -> str:
    """pgvector's text form of `vector`. One ranking sends the question's vector in three statements: it is written
    out once (0.25 ms for 512 dimensions), the last few vectors are kept."""
    return _literal(tuple(vector))


@functools.lru_cache(maxsize=8)
def _literal(values: tuple[float, ...]) -> str:
    return "[" + ",".join(f"{v:.6f}" for v in values) + "]"


# The best BIT_FACTOR x RERANK_FACTOR x candidates by Hamming distance on the binary-quantised vectors are re-ranked on
# the half-precision ones (memory.services.recall.recall.EXACT_SCAN_MAX says what it measured).
BIT_FACTOR = 4


def stage_limits(limit: int) -> dict[str, int]:
    """How many candidates each stage of the exact search keeps for `limit` results: `coarse` by Hamming distance,
    `rerank` of those by half-precision distance (then `limit` by the full vectors). The notes statement and the
    bench's bare vector statement both take them from here."""
    return {"rerank": RERANK_FACTOR * limit, "coarse": BIT_FACTOR * RERANK_FACTOR * limit}


# The notes side of recall in one statement (one round trip), reading a user's index entries, not their rows. One
# pass over the user's active notes (at most count_limit of them, "mine") through the covering index
# note_user_active_bits (memory.0014) gives their count and each note's Hamming distance to the query on its
# binary-quantised vector (embedding_bit, 64 bytes in the index entry). When the count is at most EXACT_SCAN_MAX, the
# BIT_FACTOR x rerank nearest of that pass are re-ranked on their half-precision vectors and the rerank best of those
# on their full vectors (so only that many rows are read). Above it the pass served as the count only, and the
# neighbours come through the HNSW index. The count gates each branch with a pseudo-constant filter, so PostgreSQL
# runs only one; the HNSW search settings come with the connection (config/settings/database.py). The keyword matches
# come through the user's terms index (KEYWORD_SQL). Then every note when the user has only a few, and each
# candidate with its cosine similarity and its source messages; the last column says whether the user has any past
# message outside the session left out (%(session)s, -1 for none): a user known only through notes added by API, or
# in their first conversation, has none, and the messages statement is skipped.
# Before: one pass over the user's rows (their half-precision vectors and keyword terms), and before that three
# (docs/benchmarks-history.md, "Performance at scale (issue 22)", "Recall, seventh round"; tests/scaling/test_recall_one_pass.py).
_USER_NOTES = (
    "FROM memory_memorynote WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s AND status = 'active' "
    "AND (expires_at IS NULL OR expires_at > now())"
)
_VECTOR_FILTER = " AND embedding_model = %(model)s AND embedding IS NOT NULL"
_BIT_DISTANCE = "CASE WHEN embedding_model = %(model)s AND embedding_bit IS NOT NULL THEN embedding_bit <~> (SELECT bits FROM q) END"
# The coarse candidates' rows are read by primary key, `id = ANY(array)` as the final select does: written as a join,
# PostgreSQL hashed the 400 ids and scanned all 10,004 rows of a heavy user for them in a 1M-note store (6 ms of the
# statement's 18; docs/benchmarks-history.md "Recall, eighth round"). Both say `end_user_id + 0`: the filter stays exact, but
# the prepared statement's generic plan (which takes every user for an average one) cannot choose the user's btree
# and filter all 10,004 rows by id (27 ms, "Recall, ninth round").
_COARSE_IDS = "(SELECT array_agg(id) FROM coarse)::bigint[]"
_HNSW_CTE = (
    "hnsw AS (SELECT id " + _USER_NOTES + _VECTOR_FILTER + " AND (SELECT c FROM cnt) > %(exact_max)s "
    "ORDER BY embedding <=> (SELECT vec FROM q) LIMIT %(limit)s), "
)
_NOTES_SQL = (
    "WITH q AS MATERIALIZED (SELECT v AS vec, v::halfvec({dims}) AS half, binary_quantize(v)::bit({dims}) AS bits "
    "FROM (SELECT %(vector)s::vector AS v) AS given), "
    "mine AS MATERIALIZED (SELECT id, " + _BIT_DISTANCE + " AS h " + _USER_NOTES + " LIMIT %(count_limit)s), "
    "cnt AS MATERIALIZED (SELECT count(*) AS c FROM mine), "
    "coarse AS (SELECT id FROM mine WHERE h IS NOT NULL AND (SELECT c FROM cnt) <= %(exact_max)s "
    "ORDER BY h LIMIT %(coarse)s), "
    "near AS (SELECT n.id, n.embedding FROM memory_memorynote n WHERE n.id = ANY(" + _COARSE_IDS + ") "
    "AND n.tenant_id = %(tenant)s AND n.end_user_id + 0 = %(user)s "
    "ORDER BY n.embedding_half <=> (SELECT half FROM q) LIMIT %(rerank)s), "
    "exact AS (SELECT id FROM near ORDER BY embedding <=> (SELECT vec FROM q) LIMIT %(limit)s), "
    + _HNSW_CTE
    + "kw AS ({keyword}), "
    "everything AS (SELECT id FROM mine WHERE (SELECT c FROM cnt) <= %(all_below)s), "
    "ids AS MATERIALIZED (SELECT array_agg(id) AS a FROM (SELECT id FROM exact UNION SELECT id FROM hnsw "
    "UNION SELECT id FROM kw UNION SELECT id FROM everything) cand) "
    "SELECT (SELECT c FROM cnt), n.id, n.content, n.kind, n.key, n.search_text, n.confidence, n.importance, "
    + epoch_us("coalesce(n.observed_at, n.updated_at)")
    + ", "
    + epoch_us("n.created_at")
    + ", n.session_id, "
    "CASE WHEN n.embedding_model = %(model)s AND n.embedding IS NOT NULL "
    "THEN 1 - (n.embedding <=> (SELECT vec FROM q)) END, "
    "ARRAY(SELECT s.message_id FROM memory_memorynote_source_messages s WHERE s.memorynote_id = n.id "
    "AND s.tenant_id = %(tenant)s "
    "ORDER BY s.message_id), "
    "n.id IN (SELECT id FROM kw), "
    "EXISTS (SELECT 1 FROM assistants_message WHERE tenant_id = %(tenant)s AND end_user_id = %(user)s "
    "AND role = 'user' AND session_id <> %(session)s) "
    "FROM (SELECT 1) AS one LEFT JOIN memory_memorynote n ON n.id = ANY((SELECT a FROM ids)::bigint[]) "
    "AND n.tenant_id = %(tenant)s AND n.end_user_id + 0 = %(user)s AND n.status = 'active'"
)
# The keyword matches, through the user's terms index (memory.0014: GIN over the note's terms plus one lexeme for its
# user, "u<id>", which no term can be: terms are CJK, words of letters or numbers). The query asks for the user's
# lexeme AND any of its terms, so the index walks that user's entries only, whatever the tenant's size;
# `end_user_id + 0` keeps the user filter exact (isolation never rests on the lexeme) without offering the planner
# the user's btree, with which it matched the terms row by row (14 ms for a Chinese question of a 10,000-note user).
USER_TERMS = "(search_tsv || array_to_tsvector(ARRAY['u' || end_user_id::text]))"
# The query's tsqueries are made once (kq): in the prepared statement's generic plan `to_tsquery(%(tsquery)s)` is not
# folded into a constant, and was made again for every matching row (704 for a heavy user's Chinese question).
KEYWORD_SQL = (
    "WITH kq AS MATERIALIZED (SELECT to_tsquery('simple', %(tsquery)s) AS terms, "
    "('u' || %(user)s::text)::tsquery && to_tsquery('simple', %(tsquery)s) AS mine) "
    "SELECT id FROM memory_memorynote WHERE tenant_id = %(tenant)s AND end_user_id + 0 = %(user)s "
    "AND status = 'active' AND (expires_at IS NULL OR expires_at > now()) "
    "AND " + USER_TERMS + " @@ (SELECT mine FROM kq) "
    "ORDER BY ts_rank(search_tsv, (SELECT terms FROM kq)) DESC LIMIT %(limit)s"
)
NO_KEYWORD_SQL = "SELECT NULL::bigint AS id WHERE false"
# The keyword matches of an earlier ranking of the same question (parameter keyword_ids): the second ranking of an
# explicit list (recall_feedback moves the vector, not the terms) reads them instead of matching the terms again,
# which was half of a heavy user's statement (a Chinese question matching 900 of 10,000 notes at 1M: 20-30 ms).
# The final select still filters every id by tenant, user and status.
KNOWN_KEYWORDS_SQL = "SELECT unnest(%(keyword_ids)s::bigint[]) AS id"


def notes_sql(*, keywords: bool, keywords_known: bool = False, hnsw: bool = True) -> str:
    """The notes statement (parameters: tenant, user, model, vector, tsquery, limit, rerank, coarse, exact_max,
    count_limit, all_below, session), with the keyword matches when the query has terms (`keywords`), or those
    found before (`keywords_known`: parameter keyword_ids). Each row says whether it is a keyword match. Without
    `hnsw` it has no branch for users above exact_max notes (notes_rows says why)."""
    keyword = KNOWN_KEYWORDS_SQL if keywords_known else KEYWORD_SQL if keywords else NO_KEYWORD_SQL
    sql = _NOTES_SQL if hnsw else _NOTES_SQL.replace(_HNSW_CTE, "hnsw AS (SELECT NULL::bigint AS id WHERE false), ")
    return sql.replace("{keyword}", keyword).replace("{dims}", str(int(settings.EMBEDDING_DIMENSIONS)))


class AboveExact:
    """The users whose counts showed them too large for a prepared statement (prepared_first), the last `kept` of
    them (per process): (tenant id, user id) pairs only."""

    def __init__(self, kept: int):
        self.kept = kept
        self._users: OrderedDict[tuple[int, int], None] = OrderedDict()
        self._lock = threading.Lock()

    def __contains__(self, user: tuple[int, int]) -> bool:
        return user in self._users

    def add(self, user: tuple[int, int]) -> None:
        with self._lock:
            self._users[user] = None
            while len(self._users) > self.kept:
                self._users.popitem(last=False)


ABOVE_EXACT_KEPT = 10_000  # users remembered as too large for the prepared statement, per process and statement
_ABOVE_EXACT = AboveExact(ABOVE_EXACT_KEPT)  # by their notes (the messages statement keeps its own)


def prepared_first(
    *, prepared_sql: str, text_sql: str, params: dict, above: AboveExact, fits: Callable[[tuple], bool]
) -> list[tuple]:
    """The rows of a recall statement whose first row tells the user's size (the notes statement: their note count;
    the messages statement: their vector and message counts). A user the prepared plan `fits` (nearly every user)
    is read through `prepared_sql`, the statement without its branches for large users, prepared
    (core.db.prepared_rows: planned once per connection, a generic plan). A generic plan estimates an average
    user's rows, so it cannot serve those branches: it would sort all of a large user's vectors instead of searching
    the HNSW index, or read all of their messages. So a user who does not fit is asked again with `text_sql`, the
    whole statement sent as text and planned for its values, and is remembered in `above` to be asked that way
    first. RECALL_PREPARED_STATEMENTS off (a pooler without prepared statements): always text."""
    user = (params["tenant"], params["user"])
    if settings.RECALL_PREPARED_STATEMENTS and user not in above:
        rows = prepared_rows(prepared_sql, params)
        if fits(rows[0]):
            return rows
        above.add(user)
    return text_rows(text_sql, params)


def notes_rows(*, keywords: bool, keywords_known: bool, params: dict) -> list[tuple]:
    """The notes statement's rows for `params` (see prepared_first)."""
    return prepared_first(
        prepared_sql=notes_sql(keywords=keywords, keywords_known=keywords_known, hnsw=False),
        text_sql=notes_sql(keywords=keywords, keywords_known=keywords_known),
        params=params,
        above=_ABOVE_EXACT,
        fits=lambda first: first[0] <= params["exact_max"],
    )


def current_version(alias: str) -> str:
    """The SQL condition that message `alias` is a current version: an earlier one (a message edited and resent,
    a reply regenerated: assistants.services.alternatives) is never recalled, counted as a neighbour or embedded
    as context again."""
    return f"NOT ({alias}.metadata ? '{MESSAGE_REPLACED_KEY}')"


def vector_statement(*, exact: bool) -> str:
    """The pgvector statement recall rests on, alone: the nearest active notes of one user (parameters: vector,
    tenant, user, model, limit, and for `exact` rerank and coarse). `exact` ranks every note of the user as
    NOTES_SQL does: by Hamming distance on the binary-quantised copies in the covering index, the best `coarse`
    re-ranked on half precision, the best `rerank` of those on the full vectors ("+ 0" keeps the planner off the
    HNSW index); otherwise the planner may use the HNSW index, with the connection's ef_search and iterative scan
    (config/settings/database.py) so that a search filtered to one user still returns its nearest rows."""
    user = (
        "tenant_id = %(tenant)s AND end_user_id = %(user)s AND status = 'active' AND embedding_model = %(model)s "
        "AND (expires_at IS NULL OR expires_at > now()) "
    )
    if not exact:
        return (
            "SELECT id, 1 - (embedding <=> %(vector)s::vector) AS sim FROM memory_memorynote WHERE "
            + user
            + "AND embedding IS NOT NULL ORDER BY embedding <=> %(vector)s::vector LIMIT %(limit)s"
        )
    dims = int(settings.EMBEDDING_DIMENSIONS)
    return (
        "SELECT id, 1 - (embedding <=> %(vector)s::vector) AS sim FROM (WITH coarse AS "
        "(SELECT id FROM memory_memorynote WHERE "
        + user
        + f"AND embedding_bit IS NOT NULL ORDER BY (embedding_bit <~> binary_quantize(%(vector)s::vector)::bit({dims})) "
        "+ 0 LIMIT %(coarse)s) SELECT n.id, n.embedding FROM memory_memorynote n WHERE n.id = ANY(" + _COARSE_IDS + ") "
        f"AND n.tenant_id = %(tenant)s ORDER BY n.embedding_half <=> %(vector)s::halfvec({dims}) LIMIT %(rerank)s) near "
        "ORDER BY embedding <=> %(vector)s::vector LIMIT %(limit)s"
    )


def vector_statement_params(*, tenant_id: int, end_user_id: int, literal: str, model: str, limit: int) -> dict:
    """The parameters of vector_statement (either branch)."""
    return {
        "vector": literal,
        "tenant": tenant_id,
        "user": end_user_id,
        "model": model,
        "limit": limit,
        **stage_limits(limit),
    }
