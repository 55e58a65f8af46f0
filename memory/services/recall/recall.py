"""Recall: what the chat turn puts in context from long-term memory, on demand, never the whole store; and what
`GET /api/v1/users/<id>/recall/` returns.

One ranked list over one user's active notes and past user messages (episodic recall), from two signals:
- meaning: pgvector cosine similarity with the query, over note vectors and message vectors (memory.MessageVector,
  a vector per message or chunk of a long one, and per sentence of one of several), same embedding model only;
- words: keyword matching on CJK bigrams / stemmed words ('simple' tsvectors with GIN indexes): the share of the
  query's terms a note holds, and, for messages, the share of the query's term weight (BM25's idf over the user's
  matching messages) a message matches.
Both are filtered by tenant and end user INSIDE the SQL. Candidates are scored in Python:

    relevance = W.vector * max(0, cosine) + W.keyword * keyword evidence
                (+ W.topic if a note's slot is the question's topic)
    messages: keyword evidence = max(own coverage, W.context * the previous user message's coverage); the message
              vector embeds the message with the tail of the one before it (memory.services.recall.episodes)
    score     = relevance * time * (notes: (0.8 + 0.2 * confidence) * (0.8 + 0.2 * importance); messages: W.message)
    time      = 1 - W.decay * (1 - max(decay_floor, decay_rate_per_day ** age_days))

Keyword evidence is added to the cosine, never multiplied or rank-fused: a strong semantic match is not drowned by
keyword noise, and a cross-language match (no shared words) keeps its full cosine. The weights were measured
(docs/benchmarks-history.md, "Recall ablation"), not guessed.

Explicit recall (`k` given, `for_context` False) returns exactly k items whenever the user has k candidates, best
first. The chat turn (`for_context` True) drops what is below the policy's `recall_min_relevance`, except that a
user with at most `recall_all_below` active notes gets all of them (seed 000); then the token budget cuts the list.
The notes side is one SQL statement and the messages side another (skipped for a user who has no past
message outside the session left out, which the notes statement tells); a third fetches the user turns next to the
candidate messages, which get a share of each other's evidence, and explicit lists give their k slots to k
different pieces of evidence first (memory.services.recall.recall_context); an explicit list is then ranked once more with
the query vector moved towards the past messages among its best few items (memory.services.recall.recall_feedback).
"""

from __future__ import annotations

import math
import re
from datetime import datetime

from django.db import connection
from django.db.models import F
from django.utils import timezone

from core.policy import MemoryPolicy
from core.text import CJK as _CJK
from memory.models import MemoryNote
from memory.services.identifiers.pii import pii_redact, pii_redacted_text
from memory.services.recall.query_terms import question_terms
from memory.services.recall.recall_context import ranked_cut
from memory.services.recall.recall_feedback import FirstReading
from memory.services.recall.recall_messages import message_candidates_add
from memory.services.recall.recall_sql import from_epoch_us, notes_rows, stage_limits, tsquery_of, vector_literal

# `... as`: re-exported, callers (bench/, tests) import these from recall.
from memory.services.recall.recall_sql import vector_statement as vector_statement
from memory.services.recall.recall_sql import vector_statement_params as vector_statement_params
from memory.services.recall.recall_types import WEIGHTS, Candidate, RecalledItem, RecallWeights, time_factor
from memory.services.vectors.embeddings import embed_texts
from memory.services.writing.topics import query_topics, topic_words_for

CANDIDATES = 50
# A user with more active notes than this is searched through the HNSW index. Up to it, the user's notes are ranked
# from the covering index note_user_active_bits (memory.0014): Hamming distance on each note's binary-quantised
# vector, read from the index alone; the BIT_FACTOR x RERANK_FACTOR x candidates nearest re-ranked on their
# half-precision copy (embedding_half, memory.0008: 1 KB in the row, the full vector is in TOAST), the best
# RERANK_FACTOR x of those on the full vectors. A user of 10,000 notes in a 100,000-note store: 18.3 / 22.7 ms p50 /
# p95 against 26.4 / 34.4 on every row's half vector, recall@10 1.000 of exact (docs/benchmarks-history.md "Heavy users").
EXACT_SCAN_MAX = 20_000
# The second ranking of an explicit list (recall_feedback) re-orders the first ranking's best this many candidates (or
# 2 x k): LoCoMo, all ten conversations at k = 25, the same R@5/10/25 as re-ordering all of them (about 400 for a
# user of 6,000 turns), 2-3 ms sooner for that user.
SECOND_RANKING = 60


def estimate_tokens(text: str) -> int:
    """A model-independent estimate: one token per CJK character, ~1.3 per English word, plus framing."""
    cjk = len(_CJK.findall(text or ""))
    words = len(re.findall(r"[A-Za-z0-9]+", text or ""))
    return cjk + math.ceil(words * 1.3) + 4


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
    literal = vector_literal(vector)
    exact = active_note_count(tenant_id=tenant_id, end_user_id=end_user_id) <= EXACT_SCAN_MAX
    with connection.cursor() as cur:
        cur.execute(
            vector_statement(exact=exact),
            vector_statement_params(
                tenant_id=tenant_id, end_user_id=end_user_id, literal=literal, model=model, limit=limit
            ),
        )
        return {row[0]: float(row[1]) for row in cur.fetchall()}


def _note_rows(
    *,
    tenant_id: int,
    end_user_id: int,
    vector: list[float],
    model: str,
    tsquery: str,
    all_below: int,
    limit: int,
    exclude_session_id: int | None,
    keyword_ids: list[int] | None = None,
) -> tuple[int, bool, list[tuple], list[int]]:
    """(the user's active note count up to EXACT_SCAN_MAX + 1, whether the user has a past user message outside
    `exclude_session_id`, candidate rows, the keyword matches among them: `keyword_ids` of a second ranking of the
    same terms, which reads them instead of matching again). See recall_sql._NOTES_SQL."""
    params: dict[str, int | str | list[int]] = {
        "tenant": tenant_id,
        "user": end_user_id,
        "model": model,
        "vector": vector_literal(vector),
        "tsquery": tsquery,
        "limit": limit,
        **stage_limits(limit),
        "exact_max": EXACT_SCAN_MAX,
        "count_limit": max(EXACT_SCAN_MAX, all_below) + 1,
        "all_below": all_below,
        "session": exclude_session_id or -1,
        "keyword_ids": keyword_ids or [],
    }
    rows = notes_rows(keywords=bool(tsquery), keywords_known=keyword_ids is not None, params=params)
    found = [row for row in rows if row[1] is not None]
    return rows[0][0], rows[0][-1], [row[1:-2] for row in found], [row[1] for row in found if row[-2]]


def memory_recall(
    *,
    tenant,
    end_user,
    query: str,
    policy: MemoryPolicy,
    k: int | None = None,
    budget_tokens: int | None = None,
    include_messages: bool = True,
    exclude_session_id: int | None = None,
    touch: bool = True,
    for_context: bool = False,
    query_embedding: list[float] | None = None,
    weights: RecallWeights | None = None,
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
    resolved once (the chat turn's, tenant + assistant; the API's or a job's). Its embedding model is the one the
    assistant's extraction writes with, so the notes it wrote are the ones the vector search compares against."""
    if for_context and budget_tokens is None:
        budget_tokens = policy.budget_memories_tokens
    now = timezone.now()
    ranked = memory_recall_ranked(
        tenant=tenant,
        end_user=end_user,
        query=query,
        k=k,
        include_messages=include_messages,
        exclude_session_id=exclude_session_id,
        for_context=for_context,
        query_embedding=query_embedding,
        weights=weights,
        policy=policy,
        now=now,
    )
    chosen = recall_within_budget(ranked, budget_tokens)
    if touch:
        memory_recall_touch(tenant=tenant, items=chosen, when=now)
    return chosen


def memory_recall_ranked(
    *,
    tenant,
    end_user,
    query: str,
    policy: MemoryPolicy,
    k: int | None = None,
    include_messages: bool = True,
    exclude_session_id: int | None = None,
    for_context: bool = False,
    query_embedding: list[float] | None = None,
    weights: RecallWeights | None = None,
    now: datetime | None = None,
) -> list[RecalledItem]:
    """memory_recall's ranked list before the token budget cuts it (recall_within_budget) and nothing touched: the
    chat turn starts it before it stores the message (assistants.services.recall_early) and cuts it once the
    context knows its budget. Reads only."""
    if end_user.tenant_id != tenant.pk:
        return []
    weights = weights or WEIGHTS
    k = k or policy.recall_top_k
    now = now or timezone.now()
    slots = query_topics(query)
    expanded = " ".join([query] + [topic_words_for(s) for s in sorted(slots)])
    terms, term_count = question_terms(pii_redact(expanded)[0])
    vector = (
        query_embedding
        if query_embedding is not None
        else embed_texts(texts=[query], model=policy.embedding_model)[1][0]
    )
    once = dict(
        tenant=tenant,
        end_user=end_user,
        terms=terms,
        term_count=term_count,
        slots=slots,
        policy=policy,
        k=k,
        for_context=for_context,
        include_messages=include_messages,
        exclude_session_id=exclude_session_id,
        limit=max(CANDIDATES, 2 * k),
        now=now,
        weights=weights,
    )
    feedback = weights.feedback and not for_context  # recall_feedback: why explicit lists only, and how
    ranked, reading = _ranking(vector, keep=max(SECOND_RANKING, 2 * k) if feedback else 0, **once)
    if feedback and ranked:
        ranked = _ranked_again(ranked, reading, vector=vector, once=once)
    return ranked


def _ranked_again(
    ranked: list[RecalledItem], reading: FirstReading, *, vector: list[float], once: dict
) -> list[RecalledItem]:
    """The ranking once more with the question's vector moved toward its best items (recall_feedback), from what the
    first ranking read with only the cosines measured again; the first ranking when there is nothing to move by."""
    tenant, end_user, policy, weights = once["tenant"], once["end_user"], once["policy"], once["weights"]
    again = reading.moved_towards(
        tenant_id=tenant.pk,
        end_user_id=end_user.pk,
        vector=vector,
        best=ranked[: weights.feedback_items],
        model=policy.embedding_model,
        share=weights.feedback,
    )
    if again is None:
        return ranked
    # Every candidate and cosine comes from `again`: the ranking reads nothing with the question's vector.
    return _ranking(vector, reading=again, **once)[0]


def _ranking(
    vector: list[float],
    *,
    tenant,
    end_user,
    terms: list[str],
    term_count: int,
    slots: set[str],
    policy: MemoryPolicy,
    k: int,
    for_context: bool,
    include_messages: bool,
    exclude_session_id: int | None,
    limit: int,
    now: datetime,
    weights: RecallWeights,
    reading: FirstReading | None = None,
    keep: int = 0,
) -> tuple[list[RecalledItem], FirstReading]:
    """One ranking of the user's notes and past messages for `terms` and `vector`, and what it read (about its
    `keep` best candidates only, when given); from `reading` (the candidates of an earlier ranking of the same
    question, re-measured) when given."""
    if reading is None:
        count, has_messages, rows, _ = _note_rows(
            tenant_id=tenant.pk,
            end_user_id=end_user.pk,
            vector=vector,
            model=policy.embedding_model,
            tsquery=tsquery_of(terms),
            all_below=policy.recall_all_below if for_context else 0,
            limit=limit,
            exclude_session_id=exclude_session_id,
        )
        reading = FirstReading(count=count, has_messages=has_messages, note_rows=rows)
    candidates = _note_candidates(
        reading.note_rows, terms=terms, size=term_count, slots=slots, policy=policy, now=now, weights=weights
    )
    if include_messages and reading.has_messages:
        reading.messages = message_candidates_add(
            candidates,
            tenant_id=tenant.pk,
            end_user_id=end_user.pk,
            terms=terms,
            vector=vector,
            policy=policy,
            exclude_session_id=exclude_session_id,
            limit=limit,
            now=now,
            weights=weights,
            term_count=term_count,
            evidence=reading.messages,
        )
    recall_all = for_context and reading.count <= policy.recall_all_below
    ranked = ranked_cut(candidates, k=k, for_context=for_context, recall_all=recall_all, policy=policy, weights=weights)
    if keep:
        reading = reading.only_best(candidates, keep)  # ranked_cut sorted them, best first
    return ranked, reading


def _note_candidates(
    rows: list[tuple], *, terms: list[str], size: int, slots: set[str], policy, now: datetime, weights: RecallWeights
) -> list[Candidate]:
    """The note rows of _note_rows scored: relevance (cosine + keyword share + topic) times time, confidence and
    importance (the module docstring's formula). The keyword share is of the question's `size` terms (query_terms)."""
    term_set = set(terms)
    candidates: list[Candidate] = []
    for (
        note_id,
        content,
        kind,
        key,
        search_text,
        confidence,
        importance,
        observed_us,  # or, for a note without it, when it was last updated (recall_sql.epoch_us)
        created_us,
        session_id,
        sim,
        message_ids,
    ) in rows:
        observed_at, created_at = from_epoch_us(observed_us), from_epoch_us(created_us)
        note_terms = set((search_text or "").split())
        kw = len(term_set & note_terms) / max(size, len(term_set)) if term_set else 0.0
        topic = 1.0 if key.split(":")[-1] in slots else 0.0
        relevance = weights.vector * max(0.0, sim or 0.0) + weights.keyword * kw + weights.topic * topic
        score = (
            relevance
            * time_factor(policy, observed_at, now, weights)
            * weights.note
            * (0.8 + 0.2 * confidence)
            * (0.8 + 0.2 * importance)
        )
        candidates.append(
            Candidate(
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
    return candidates


def recall_within_budget(ranked: list[RecalledItem], budget_tokens: int | None) -> list[RecalledItem]:
    """The ranked items that fit `budget_tokens` (all when None), in order, skipping any that would overflow it.
    Past messages are redacted here, as shown: they may hold identifiers a note would not."""
    chosen, used = [], 0
    for item in ranked:
        if item.type == "message":  # a past message is shown without the identifiers it may hold
            item.content = pii_redacted_text(item.content)
        cost = estimate_tokens(item.content)
        if budget_tokens is not None and used + cost > budget_tokens:
            continue
        chosen.append(item)
        used += cost
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
