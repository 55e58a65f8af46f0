"""Recall: what the chat turn puts in context from long-term memory, on demand, never the whole store.

Hybrid retrieval over one user's active notes: pgvector cosine similarity (HNSW, same embedding model only)
and keyword matching on CJK bigrams / stemmed words (a 'simple' tsvector with a GIN index), both filtered by
tenant and end user INSIDE the SQL. Candidates are scored in Python:

    relevance = 0.45 * cosine + 0.35 * keyword overlap + 0.20 * same topic (slot) as the question
    score     = relevance * max(decay_floor, decay_rate_per_day ** age_days) * (0.6 + 0.4 * confidence)
                          * (0.6 + 0.4 * importance)

A user with at most `recall_all_below` active notes gets all of them (seed 000). Past user messages of other
sessions are searched too (episodic recall), ranked the same way (keyword relevance, time decay), so that what
extraction missed can still be found. Items are cut to top-k and to the token budget.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from assistants.services.policy import memory_policy_for
from memory.models import MemoryNote
from memory.services.embeddings import embed_texts, search_terms
from memory.services.pii import pii_redact
from memory.services.topics import query_topics, topic_words_for

CANDIDATES = 50
EXACT_SCAN_MAX = 5_000  # a user with more active notes than this is searched through the HNSW index
HNSW_EF_SEARCH = 400  # recall@10 ~1.0 in bench/recall.py where 100 lost a quarter of the neighbours
MESSAGE_WEIGHT = 0.8  # a past message is evidence, a note is a checked fact
MIN_RELEVANCE = 0.12
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


_vector_version: tuple | None = None


def _iterative_scan_supported(cur) -> bool:
    global _vector_version
    if _vector_version is None:
        cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cur.fetchone()
        _vector_version = tuple(int(p) for p in re.findall(r"\d+", row[0])[:2]) if row else (0, 0)
    return _vector_version >= (0, 8)


def vector_candidates(*, tenant_id: int, end_user_id: int, vector: list[float], model: str,
                      limit: int = CANDIDATES) -> dict[int, float]:
    """Nearest active notes of one user by cosine similarity. The tenant and user filter is in the WHERE clause.
    Up to EXACT_SCAN_MAX notes the ranking is exact; above, it goes through the HNSW index, iteratively with
    pgvector >= 0.8 so that a filtered search still returns up to `limit` rows of this user instead of the
    filtered remains of the global nearest neighbours."""
    literal = "[" + ",".join(f"{v:.6f}" for v in vector) + "]"
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM (SELECT 1 FROM memory_memorynote WHERE tenant_id = %s AND end_user_id = %s "
                    "AND status = 'active' LIMIT %s) AS few", [tenant_id, end_user_id, EXACT_SCAN_MAX + 1])
        exact = cur.fetchone()[0] <= EXACT_SCAN_MAX
    if exact:
        # Exact ranking over this user's notes (btree on tenant/user, then sort): at a few thousand vectors it
        # costs milliseconds and misses nothing, where a filtered HNSW scan measurably loses neighbours
        # (docs/memory.md, benchmark). "+ 0" keeps the planner off the HNSW index.
        with connection.cursor() as cur:
            cur.execute(
                "SELECT id, 1 - (embedding <=> %s::vector) AS sim FROM memory_memorynote "
                "WHERE tenant_id = %s AND end_user_id = %s AND status = 'active' AND embedding_model = %s "
                "AND embedding IS NOT NULL AND (expires_at IS NULL OR expires_at > now()) "
                "ORDER BY (embedding <=> %s::vector) + 0 LIMIT %s",
                [literal, tenant_id, end_user_id, model, literal, limit])
            return {row[0]: float(row[1]) for row in cur.fetchall()}
    with transaction.atomic(), connection.cursor() as cur:
        settings_sql = f"SET LOCAL hnsw.ef_search = {HNSW_EF_SEARCH}; "
        if _iterative_scan_supported(cur):
            settings_sql += "SET LOCAL hnsw.iterative_scan = relaxed_order; "
        # one round trip: the SETs and the query travel together (client-side binding allows it)
        cur.execute(
            settings_sql + "SELECT id, 1 - (embedding <=> %s::vector) AS sim FROM memory_memorynote "
            "WHERE tenant_id = %s AND end_user_id = %s AND status = 'active' AND embedding_model = %s "
            "AND embedding IS NOT NULL AND (expires_at IS NULL OR expires_at > now()) "
            "ORDER BY embedding <=> %s::vector LIMIT %s",
            [literal, tenant_id, end_user_id, model, literal, limit])
        while cur.description is None and cur.nextset():
            pass
        return {row[0]: float(row[1]) for row in cur.fetchall()}


def note_similarities(*, tenant_id: int, end_user_id: int, ids: list[int], vector: list[float],
                      model: str) -> dict[int, float]:
    """Cosine similarity of the given notes to the query, computed in the database (same model only)."""
    literal = "[" + ",".join(f"{v:.6f}" for v in vector) + "]"
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id, 1 - (embedding <=> %s::vector) FROM memory_memorynote WHERE tenant_id = %s "
            "AND end_user_id = %s AND id = ANY(%s) AND embedding_model = %s AND embedding IS NOT NULL",
            [literal, tenant_id, end_user_id, ids, model])
        return {row[0]: float(row[1]) for row in cur.fetchall()}


def keyword_candidates(*, tenant_id: int, end_user_id: int, terms: list[str], limit: int = CANDIDATES) -> list[int]:
    query = _tsquery(terms)
    if not query:
        return []
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id FROM memory_memorynote "
            "WHERE tenant_id = %s AND end_user_id = %s AND status = 'active' "
            "AND (expires_at IS NULL OR expires_at > now()) "
            "AND search_tsv @@ to_tsquery('simple', %s) "
            "ORDER BY ts_rank(search_tsv, to_tsquery('simple', %s)) DESC "
            "LIMIT %s", [tenant_id, end_user_id, query, query, limit])
        return [row[0] for row in cur.fetchall()]


def message_candidates(*, tenant_id: int, end_user_id: int, terms: list[str], exclude_session_id: int | None,
                       limit: int = CANDIDATES) -> list[tuple]:
    query = _tsquery(terms)
    if not query:
        return []
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id, session_id, content, created_at, search_vector FROM assistants_message "
            "WHERE tenant_id = %s AND end_user_id = %s AND role = 'user' AND session_id <> %s "
            "AND search_tsv @@ to_tsquery('simple', %s) "
            "ORDER BY ts_rank(search_tsv, to_tsquery('simple', %s)) DESC, "
            "created_at DESC LIMIT %s",
            [tenant_id, end_user_id, exclude_session_id or -1, query, query, limit])
        return cur.fetchall()


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

    active = MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user, status=MemoryNote.Status.ACTIVE) \
        .exclude(expires_at__lte=now)
    few = list(active.values_list("id", flat=True)[:policy.recall_all_below + 1])
    recall_all = len(few) <= policy.recall_all_below
    sims: dict[int, float] = {}
    qvec = None

    def query_vector():
        nonlocal qvec
        if qvec is None:
            qvec = query_embedding if query_embedding is not None else \
                embed_texts(texts=[expanded], model=policy.embedding_model)[1][0]
        return qvec

    if recall_all:
        ids = few
    else:
        sims = vector_candidates(tenant_id=tenant.pk, end_user_id=end_user.pk, vector=query_vector(),
                                 model=policy.embedding_model)
        ids = list(sims) + keyword_candidates(tenant_id=tenant.pk, end_user_id=end_user.pk, terms=terms)
    # the vectors stay in the database: parsing them in Python costs more than the whole search
    notes = list(MemoryNote.objects.for_tenant(tenant).filter(pk__in=set(ids), end_user=end_user,
                                                              status=MemoryNote.Status.ACTIVE).defer("embedding"))
    if recall_all and notes:
        sims = note_similarities(tenant_id=tenant.pk, end_user_id=end_user.pk, ids=[n.pk for n in notes],
                                 vector=query_vector(), model=policy.embedding_model)
    through = MemoryNote.source_messages.through
    provenance: dict[int, list[int]] = {}
    for note_id, message_id in through.objects.filter(memorynote_id__in=[n.pk for n in notes]) \
            .values_list("memorynote_id", "message_id"):
        provenance.setdefault(note_id, []).append(message_id)

    scored: list[RecalledItem] = []
    for n in notes:
        note_terms = set((n.search_text or "").split())
        kw = len(term_set & note_terms) / len(term_set) if term_set else 0.0
        topic = 1.0 if n.key.split(":")[-1] in slots else 0.0
        relevance = 0.45 * max(0.0, sims.get(n.pk, 0.0)) + 0.35 * min(1.0, kw * 2) + 0.2 * topic
        if not recall_all and relevance < MIN_RELEVANCE:
            continue
        score = (relevance + (0.05 if recall_all else 0.0)) * _decay(policy, n.observed_at or n.updated_at, now) \
            * (0.6 + 0.4 * n.confidence) * (0.6 + 0.4 * n.importance)
        scored.append(RecalledItem(type="note", id=n.pk, content=n.content, score=score, kind=n.kind,
                                   session_id=n.session_id, message_ids=sorted(provenance.get(n.pk, [])),
                                   created_at=n.created_at))
    scored.sort(key=lambda i: -i.score)
    if not recall_all:
        scored = scored[:k]

    if include_messages and term_set:
        covered = {m for item in scored for m in item.message_ids}
        episodes = []
        for mid, session_id, content, created_at, vector in message_candidates(
                tenant_id=tenant.pk, end_user_id=end_user.pk, terms=terms, exclude_session_id=exclude_session_id):
            if mid in covered:
                continue
            kw = len(term_set & set((vector or "").split())) / len(term_set)
            relevance = 0.35 * min(1.0, kw * 2) + 0.2 * (1.0 if slots & query_topics(content) else 0.0)
            if relevance < MIN_RELEVANCE:
                continue
            score = relevance * _decay(policy, created_at, now) * MESSAGE_WEIGHT
            episodes.append(RecalledItem(type="message", id=mid, content=pii_redact(content)[0], score=score,
                                         session_id=session_id, message_ids=[mid], created_at=created_at))
        episodes.sort(key=lambda i: -i.score)
        scored = sorted(scored + episodes[:max(2, k // 2)], key=lambda i: -i.score)

    chosen, used = [], 0
    for item in scored:
        cost = estimate_tokens(item.content)
        if used + cost > budget:
            continue
        chosen.append(item)
        used += cost
    if touch:
        note_ids = [i.id for i in chosen if i.type == "note"]
        if note_ids:
            MemoryNote.objects.for_tenant(tenant).filter(pk__in=note_ids).update(
                last_recalled_at=now, recall_count=F("recall_count") + 1)
    return chosen
