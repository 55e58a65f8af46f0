"""Workload 1: recall latency against store size, with the bare pgvector query it rests on, in the same run.

The store grows in steps (quick: 1k, 10k, 100k notes; full: also 1M) inside one tenant: users with 100 notes
each, plus one heavy user with min(10k, N/10) notes (10k from 100k notes on). Notes are bulk-loaded (seeding
through the write path would take hours at 1M) with the offline embedder's vectors and keyword terms, and the
HNSW index is rebuilt with its own definition after each load. At each step the same queries run through
`memory_recall(k=10, touch=False)` and through the bare SQL: the vector statement recall rests on
(`memory.services.recall.recall.vector_statement`: cosine distance, tenant + user + active filter, exact up to
EXACT_SCAN_MAX notes and HNSW above, LIMIT CANDIDATES), for a typical user and for the heavy user. Recall's time
includes embedding the query (the embedder's cache of recent texts is emptied before each call, as a new question
finds it); the embedding is also timed alone, and the bare query is given the vector.
"""

from __future__ import annotations

import os
import random
import time

from bench.common import BenchContext, bench_tenant, percentiles, timed_ms
from bench.corpus import note_text, query_text

TYPICAL_NOTES = 100
HEAVY_MAX = 10_000
# Returning users: typical users who also have a past conversation (user turns with their keyword terms and
# vectors, each answered), so recall runs its messages statement and the turns next to its candidates too, as it
# does for anyone who has talked to the assistant before.
RETURNING_USERS = 20
RETURNING_TURNS = 60


def _vector_literal(vec) -> str:
    return "[" + ",".join(f"{v:.6f}" for v in vec) + "]"


class NoteStore:
    """A tenant whose store grows: typical users of TYPICAL_NOTES notes and one heavy user."""

    def __init__(self, rng: random.Random):
        from assistants.services.tenants import end_user_get_or_create

        self.rng = rng
        self.tenant, _ = bench_tenant("bench-recall")
        self.heavy = end_user_get_or_create(tenant=self.tenant, external_id="heavy-user")
        self.typical: list = []  # EndUser
        self.returning: list = []  # EndUser, typical users with a past conversation (add_history)
        self.total = 0
        self.heavy_count = 0
        self._fill = 0  # notes in the last typical user

    def grow_to(self, size: int, log) -> float:
        """Add notes until the store holds `size`; returns seconds spent (load + index)."""
        from django.db import connection

        from assistants.services.tenants import end_user_get_or_create

        start = time.monotonic()
        heavy_target = min(HEAVY_MAX, size // 10)
        plan = []  # end users, one entry per note to add
        plan += [self.heavy] * max(0, heavy_target - self.heavy_count)
        self.heavy_count = max(self.heavy_count, heavy_target)
        while self.total + len(plan) < size:
            if not self.typical or self._fill >= TYPICAL_NOTES:
                self.typical.append(
                    end_user_get_or_create(tenant=self.tenant, external_id=f"user-{len(self.typical):06d}")
                )
                self._fill = 0
            plan.append(self.typical[-1])
            self._fill += 1
        index_defs = _drop_vector_indexes()
        try:
            chunks = [plan[offset : offset + 5000] for offset in range(0, len(plan), 5000)]
            seeds = [self.rng.randrange(1 << 30) for _ in chunks]
            import multiprocessing

            # Embedding is pure Python: texts are made and embedded in worker processes while this one COPYs.
            # close + join, not the context manager's terminate: a forked worker inherits the bench's SIGTERM
            # handler and does not die of it, so terminate() waited on an idle worker for ever
            pool = multiprocessing.get_context("fork").Pool(max(1, min(4, os.cpu_count() or 1, len(chunks))))
            try:
                for users, made in zip(
                    chunks,
                    pool.imap(_embed_chunk, [(seed, len(c)) for seed, c in zip(seeds, chunks, strict=True)]),
                    strict=True,
                ):
                    self._insert(users, made)
                    log(f"  loaded {self.total}/{size} notes")
            finally:
                pool.close()
                pool.join()
        finally:  # the index comes back even when loading fails
            with connection.cursor() as cursor:
                # the HNSW build slows several-fold once its graph outgrows maintenance_work_mem (measured at 1M
                # notes with 1GB: 55% of the build in 9 min, the next 10% in 8): give it a quarter of the RAM, <= 8GB
                cursor.execute(f"SET maintenance_work_mem = '{_maintenance_work_mem_mb()}MB'")
                for definition in index_defs:
                    cursor.execute(definition)
                # what autovacuum does after this many inserts (autovacuum_vacuum_insert_threshold), within a minute
                # of a load: statistics, and pages marked all-visible, without which the pass over a user's notes
                # (an index-only scan, memory.0014) fetches every row from the heap
                cursor.execute("VACUUM (ANALYZE) memory_memorynote")
        return time.monotonic() - start

    def add_history(self, *, users: int = RETURNING_USERS, turns: int = RETURNING_TURNS) -> None:
        """Give `users` typical users (not the first, whom the chat-turn workload uses) one past conversation of
        `turns` user messages, each followed by a reply: stored, indexed and embedded as the extraction job does
        (their keyword terms, their vectors)."""
        from django.conf import settings

        from assistants.services.chat import chat_session_start
        from bench.corpus import chat_line
        from memory.services.recall.episodes import message_vectors_write
        from memory.services.writing.extraction import message_search_text
        from tenancy.models import Message

        # at most half of the typical users, so that first-time users stay in the typical group at every size
        candidates = self.typical[1 : 1 + len(self.typical) // 2]
        chosen = [u for u in candidates if u not in self.returning][: max(0, users - len(self.returning))]
        for end_user in chosen:
            session = chat_session_start(tenant=self.tenant, end_user=end_user)
            rows = []
            for i in range(turns):
                text = note_text(self.rng) if i % 3 == 0 else chat_line(self.rng, "zh" if i % 2 else "en")
                common = {"tenant": self.tenant, "session": session, "end_user": end_user}
                rows.append(
                    Message(**common, role=Message.Role.USER, content=text, search_vector=message_search_text(text))
                )
                rows.append(Message(**common, role=Message.Role.ASSISTANT, content="Noted."))
            Message.objects.for_tenant(self.tenant).bulk_create(rows)
            mine = [m for m in rows if m.role == Message.Role.USER]
            message_vectors_write(tenant=self.tenant, messages=mine, model=settings.LLM_EMBEDDING_MODEL)
            self.returning.append(end_user)

    def _insert(self, users, made) -> None:
        from django.utils import timezone

        from memory.models import MemoryNote

        model, texts, vectors, features = made
        now = timezone.now()
        kinds = [k for k, _ in MemoryNote.Kind.choices]
        notes = [
            MemoryNote(
                tenant=self.tenant,
                end_user=user,
                kind=self.rng.choice(kinds),
                key="",
                content=text,
                quote=text,
                source=MemoryNote.Source.USER_STATED,
                confidence=0.8,
                importance=0.5,
                embedding=vec,
                embedding_model=model,
                search_text=terms,
                observed_at=now,
                created_at=now,
                updated_at=now,
            )
            for user, text, vec, terms in zip(users, texts, vectors, features, strict=True)
        ]
        copy_notes(notes)
        self.total += len(users)


def _maintenance_work_mem_mb() -> int:
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    return max(1024, min(8192, total // 4))


def _embed_chunk(args):
    """(seed, n) -> (model, texts, vectors as pgvector text, keyword terms); runs in a worker process."""
    from django.conf import settings

    from memory.services.vectors import embeddings

    terms = getattr(embeddings, "search_terms", None) or embeddings.text_features  # what the write path stores
    seed, n = args
    rng = random.Random(seed)
    texts = [note_text(rng) for _ in range(n)]
    model, vectors = embeddings.embed_texts(texts=texts, model=settings.LLM_EMBEDDING_MODEL)
    return model, texts, [_vector_text(v) for v in vectors], [" ".join(dict.fromkeys(terms(t))) for t in texts]


def copy_notes(notes) -> None:
    """COPY model instances into their table: every concrete column, each value prepared by its own field (so
    columns another layer adds with a default are filled too). Ten times faster than bulk_create here."""
    import json

    from django.db import connection
    from django.db import models as djm
    from pgvector.django import VectorField

    model = type(notes[0])
    fields = [f for f in model._meta.concrete_fields if not f.primary_key and not getattr(f, "generated", False)]
    columns = ", ".join(f'"{f.column}"' for f in fields)

    def converter(field):
        if isinstance(field, VectorField):
            return _vector_text
        if isinstance(field, djm.JSONField):
            return lambda v: json.dumps(v)
        return lambda v: v  # psycopg adapts str, numbers, bools, datetimes and None itself

    plan = [(f.attname, converter(f)) for f in fields]
    with connection.cursor() as cursor:
        with cursor.cursor.copy(f'COPY "{model._meta.db_table}" ({columns}) FROM STDIN') as copy:
            for note in notes:
                copy.write_row([convert(getattr(note, attname)) for attname, convert in plan])


_FLOAT_TEXT: dict[float, str] = {}


def _vector_text(vec) -> str | None:
    """pgvector's text form. Memoised per value: the offline embedder's vectors are sparse, so most are 0."""
    if vec is None or isinstance(vec, str):
        return vec
    cache = _FLOAT_TEXT
    if len(cache) > 200_000:
        cache.clear()
    return "[" + ",".join([cache.get(x) or cache.setdefault(x, format(x, ".6g")) for x in vec]) + "]"


def _drop_vector_indexes() -> list[str]:
    """Drop the vector and GIN indexes of the notes table (bulk load is much faster without them); return their
    DDL."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memory_memorynote' "
            "AND (indexdef ILIKE '%% USING hnsw%%' OR indexdef ILIKE '%% USING ivfflat%%' OR indexdef ILIKE '%% USING gin%%')"
        )
        rows = cursor.fetchall()
        for name, _ in rows:
            cursor.execute(f'DROP INDEX IF EXISTS "{name}"')
    # pg_indexes gives a partitioned table's index as "ON ONLY <table>": run as is, that makes an invalid index on
    # the parent alone and none on the partitions, and a loaded copy would have no HNSW index
    return [definition.replace(" ON ONLY ", " ON ", 1) for _, definition in rows]


def _bare_query(tenant_id, user_id, literal, model, exact: bool):
    """The vector statement recall rests on, alone and as recall sends it (exact for a user with at most
    EXACT_SCAN_MAX notes, through the HNSW index above; same filters, same candidate limit, same connection
    settings), timed without the rest of recall."""
    from django.db import connection

    from memory.services.recall.recall import CANDIDATES, vector_statement, vector_statement_params

    with connection.cursor() as cursor:
        cursor.execute(
            vector_statement(exact=exact),
            vector_statement_params(
                tenant_id=tenant_id, end_user_id=user_id, literal=literal, model=model, limit=CANDIDATES
            ),
        )
        return cursor.fetchall()


def measure(store: NoteStore, *, queries: int, rng: random.Random) -> dict:
    from django.conf import settings

    from core.policy import memory_policy_for
    from memory.services.recall.recall import EXACT_SCAN_MAX, active_note_count, memory_recall
    from memory.services.vectors.embeddings import embed_texts, recent_vectors_clear

    out = {}
    first_time = [u for u in store.typical if u not in store.returning]
    groups = {"typical user (100 notes)": lambda: rng.choice(first_time)}
    if store.heavy_count > TYPICAL_NOTES:
        groups[f"heavy user ({store.heavy_count} notes)"] = lambda: store.heavy
    if store.returning:
        groups[f"returning user ({TYPICAL_NOTES} notes, {RETURNING_TURNS} past turns)"] = lambda: rng.choice(
            store.returning
        )
    policy = memory_policy_for(tenant=store.tenant)
    for label, pick in groups.items():
        texts = [query_text(rng) for _ in range(queries)]
        users = [pick() for _ in texts]
        embed_ms, recall_ms, bare_ms, empty = [], [], [], 0
        for i, (text, user) in enumerate(zip(texts, users, strict=True)):
            recent_vectors_clear()  # every query is new to the embedder, as a user's question is
            ms, (model, vectors) = timed_ms(embed_texts, texts=[text], model=settings.LLM_EMBEDDING_MODEL)
            literal = _vector_literal(vectors[0])
            exact = active_note_count(tenant_id=store.tenant.pk, end_user_id=user.pk) <= EXACT_SCAN_MAX
            bms, _ = timed_ms(_bare_query, store.tenant.pk, user.pk, literal, model, exact)
            recent_vectors_clear()  # recall embeds the query itself: its time includes the embedding
            rms, items = timed_ms(
                memory_recall, tenant=store.tenant, end_user=user, query=text, policy=policy, k=10, touch=False
            )
            empty += not items
            if i >= min(10, queries // 10):  # the first queries warm caches and connections
                embed_ms.append(ms)
                bare_ms.append(bms)
                recall_ms.append(rms)
        recall, bare = percentiles(recall_ms), percentiles(bare_ms)
        out[label] = {
            "recall_ms": recall,
            "bare_sql_ms": bare,
            "query_embedding_ms": percentiles(embed_ms),
            "p95_ratio_recall_to_bare": round(recall["p95"] / bare["p95"], 2) if bare["p95"] else None,
            "empty_results": empty,
        }
    return out


def run_recall_latency(
    ctx: BenchContext,
    *,
    sizes=(1_000, 10_000, 100_000),
    queries: int = 200,
    seed: int = 7,
    keep_store: dict | None = None,
) -> dict:
    """`keep_store`, when given a dict, receives the grown NoteStore (the chat-turn workload reuses it)."""
    rng = random.Random(seed)
    store = NoteStore(rng)
    steps = []
    for size in sizes:
        ctx.log(f"recall latency: growing the store to {size} notes")
        load_s = store.grow_to(size, ctx.log)
        store.add_history()
        ctx.log(f"recall latency: measuring at {store.total} notes")
        steps.append(
            {
                "notes": store.total,
                "load_seconds": round(load_s, 1),
                "users": len(store.typical) + 1,
                **measure(store, queries=queries, rng=rng),
            }
        )
    if keep_store is not None:
        keep_store["store"] = store
    last = steps[-1]
    worst = max(  # the target's users: a first-time typical user and the heavy user
        (g for k, g in last.items() if isinstance(g, dict) and "recall_ms" in g and not k.startswith("returning")),
        key=lambda g: g["recall_ms"]["p95"] or 0,
    )
    typical = last.get(f"typical user ({TYPICAL_NOTES} notes)", {}).get("recall_ms", {})
    return {
        "steps": steps,
        "queries_per_step": queries,
        "recall_includes_query_embedding": True,
        "targets": {
            "typical user p95 <= 10 ms, query embedding included": {
                "notes": last["notes"],
                "p95": typical.get("p95"),
                "met": (typical.get("p95") or 1e9) <= 10,
            },
            "p95 <= 25 ms at largest size": {
                "notes": last["notes"],
                "p95": worst["recall_ms"]["p95"],
                "met": (worst["recall_ms"]["p95"] or 1e9) <= 25,
            },
            "within 1.5x of bare SQL": {
                "ratio": worst["p95_ratio_recall_to_bare"],
                "met": (worst["p95_ratio_recall_to_bare"] or 1e9) <= 1.5,
            },
        },
    }
