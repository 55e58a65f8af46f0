"""Recall and extraction benchmark (a script, not a timed test).

    .venv/bin/python bench/recall.py                 # 1k, 10k, 100k notes in one tenant (quick)
    .venv/bin/python bench/recall.py --million       # ... and 1M
    .venv/bin/python bench/recall.py --sizes 1000 --queries 50

What it measures, in one run against the configured database (embedded PostgreSQL + pgvector by default):
- memory_recall latency p50/p95 (query embedding excluded, reported separately) for a typical user (50 notes,
  recall_all_below=0 so the search path runs) and for one heavy user (up to 10k notes), next to the bare pgvector
  SQL it rests on (same WHERE, ORDER BY embedding <=> q LIMIT 10);
- HNSW vs exact scan recall@10 over the whole tenant (ef_search 100 and 400) and for the heavy user through the
  index (the index is forced on, then off; measured on distances, since identical template notes tie);
- offline extraction throughput (messages/s) through memory_extract_for_message.
It creates a tenant named bench-<timestamp> and deletes it at the end (unless --keep).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

from core.policy import memory_policy_for

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

import django  # noqa: E402 - after the path and settings module are set above

django.setup()

from django.db import connection, transaction  # noqa: E402 - the same

from memory.models import MemoryNote  # noqa: E402 - the same
from memory.services.notes.notes import note_index_text  # noqa: E402 - the same
from memory.services.recall.recall import memory_recall, vector_candidates  # noqa: E402 - the same
from memory.services.vectors.embeddings import OFFLINE_MODEL, embed_texts, hash_vector, search_terms  # noqa: E402 - the same
from memory.services.writing.extraction import memory_extract_for_message  # noqa: E402 - the same
from tenancy.models import Assistant, ChatSession, EndUser, Message, Tenant  # noqa: E402 - the same

PLACES = ["深圳南山", "杭州西湖", "成都锦江", "北京朝阳", "上海徐汇", "Portland", "Berlin", "Lisbon", "Austin", "Osaka"]
SHOPS = ["面馆", "咖啡馆", "烘焙店", "奶茶店", "花店", "bakery", "noodle shop", "bookstore", "bike shop", "salon"]
DRINKS = ["美式", "拿铁", "绿茶", "americano", "latte", "green tea", "espresso", "mocha"]
TEMPLATES = [
    ("business_status", "shop_size", lambda r: f"用户的店面面积 {r.randint(20, 300)} 平米。"),
    ("business_status", "revenue", lambda r: f"用户的店每天流水约 {r.randint(1, 90) * 100} 元。"),
    ("constraint", "budget", lambda r: f"用户的预算为 {r.randint(5, 200)} 万元。"),
    ("profile", "location", lambda r: f"用户在{r.choice(PLACES)}。"),
    ("business_status", "business", lambda r: f"用户经营一家{r.choice(SHOPS)}。"),
    ("preference", "drink", lambda r: f"The user usually drinks {r.choice(DRINKS)} in the morning."),
    ("preference", "commute", lambda r: f"用户平时{r.choice(['坐地铁', '开车', '骑车', '坐公交'])}上下班。"),
    ("plan", "", lambda r: f"The user plans to open a {r.choice(SHOPS)} in {r.choice(PLACES)} next year."),
    ("conclusion", "", lambda r: f"用户决定先做{r.choice(['外卖', '堂食', '团购', '会员卡'])}。"),
]
QUERIES = [
    "我的店多大",
    "上次说的外卖的事",
    "介绍一下我的通勤习惯",
    "what do I drink",
    "预算还剩多少",
    "where is my shop",
    "我每天流水多少",
    "next year plans",
]
MESSAGES = [
    "我在{p}开了家 {n} 平米的{s}，每天流水{m}左右",
    "I usually take the subway to work",
    "预算大概 {b} 万吧",
    "最近在研究奶茶加盟，感觉挺火的",
    "I run a small {s} in {p} with {k} employees",
    "我的手机号是 13800138000",
    "我不喝美式了，改喝拿铁，因为胃不好",
    "My budget is about {b}k",
    "帮我算算怎么分配预算？",
]


def pct(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))] * 1000


def fmt(values):
    return f"p50 {pct(values, 0.5):7.2f} ms  p95 {pct(values, 0.95):7.2f} ms"


def make_notes(tenant, users, count, rng):
    """Insert `count` notes spread over `users` [(end_user, share)], embedded offline, in batches."""
    made = 0
    batch = []
    for end_user, n in users:
        for _ in range(n):
            kind, key, gen = rng.choice(TEMPLATES)
            content = gen(rng)
            text = note_index_text(content=content, kind=kind, key=key)
            batch.append(
                MemoryNote(
                    tenant=tenant,
                    end_user=end_user,
                    kind=kind,
                    key=key,
                    content=content,
                    source="user_stated",
                    confidence=round(rng.uniform(0.5, 1.0), 2),
                    importance=0.5,
                    embedding=hash_vector(text),
                    embedding_model=OFFLINE_MODEL,
                    search_text=" ".join(search_terms(text)),
                )
            )
            if len(batch) >= 2000:
                MemoryNote.objects.unscoped().bulk_create(batch)
                made += len(batch)
                batch = []
    if batch:
        MemoryNote.objects.unscoped().bulk_create(batch)
        made += len(batch)
    return made


def bare_sql(tenant_id, user_id, vector):
    """The pgvector query memory_recall rests on, alone (same function, top 10)."""
    return vector_candidates(tenant_id=tenant_id, end_user_id=user_id, vector=vector, model=OFFLINE_MODEL, limit=10)


def knn(tenant_id, vector, exact: bool, user_id=None, ef=100):
    """Top-10 (id, distance) over the tenant (or one user), through HNSW or by an exact scan."""
    literal = "[" + ",".join(f"{v:.6f}" for v in vector) + "]"
    where, params = "tenant_id = %s", [tenant_id]
    if user_id is not None:
        where, params = where + " AND end_user_id = %s", params + [user_id]
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(f"SET LOCAL hnsw.ef_search = {int(ef)}")
        cur.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        if exact:
            cur.execute("SET LOCAL enable_indexscan = off")
            cur.execute("SET LOCAL enable_bitmapscan = off")
        else:  # make the planner take the HNSW index even where the user's btree index would win
            cur.execute("SET LOCAL enable_seqscan = off")
            cur.execute("SET LOCAL enable_bitmapscan = off")
        cur.execute(
            f"SELECT id, embedding <=> %s::vector FROM memory_memorynote WHERE {where} "
            f"ORDER BY embedding <=> %s::vector LIMIT 10",
            [literal, *params, literal],
        )
        return cur.fetchall()


def recall_at_10(tenant_id, vector, user_id=None, ef=100):
    """Share of the HNSW top-10 that is as close as the exact 10th neighbour. Measured on distances, not ids:
    template-generated notes have identical vectors, and ties make id sets arbitrary."""
    approx = knn(tenant_id, vector, exact=False, user_id=user_id, ef=ef)
    exact = knn(tenant_id, vector, exact=True, user_id=user_id)
    if not exact:
        return 1.0
    kth = exact[-1][1] + 1e-9
    return sum(1 for _, d in approx if d <= kth) / len(exact)


def measure(tenant, user, queries, vectors):
    recall_t, sql_t = [], []
    for q in queries:
        vec = vectors[q]
        t = time.perf_counter()
        memory_recall(
            tenant=tenant,
            end_user=user,
            query=q,
            touch=False,
            include_messages=False,
            query_embedding=vec,
            policy=memory_policy_for(tenant=tenant),
        )
        recall_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        bare_sql(tenant.pk, user.pk, vec)
        sql_t.append(time.perf_counter() - t)
    return recall_t, sql_t


def extraction_throughput(tenant, rng, count):
    user = EndUser.objects.for_tenant(tenant).create(tenant=tenant, external_id="bench-extract")
    assistant = Assistant.objects.for_tenant(tenant).first()
    session = ChatSession.objects.for_tenant(tenant).create(tenant=tenant, end_user=user, assistant=assistant)
    ids = []
    for _ in range(count):
        text = rng.choice(MESSAGES).format(
            p=rng.choice(PLACES),
            n=rng.randint(20, 200),
            s=rng.choice(SHOPS),
            m=rng.choice(["四千", "3000", "五千五"]),
            b=rng.randint(5, 90),
            k=rng.randint(2, 20),
        )
        ids.append(
            Message.objects.for_tenant(tenant)
            .create(tenant=tenant, session=session, end_user=user, role="user", content=text)
            .pk
        )
    memory_extract_for_message(tenant_id=tenant.pk, message_id=ids.pop())  # warm up (imports, regex compiles)
    count -= 1
    t = time.perf_counter()
    for mid in ids:
        memory_extract_for_message(tenant_id=tenant.pk, message_id=mid)
    elapsed = time.perf_counter() - t
    return count / elapsed


def drop_tenant(tenant):
    with connection.cursor() as cur:  # a raw delete: the ORM collector would load every note first
        cur.execute(
            "DELETE FROM memory_memorynote_source_messages WHERE memorynote_id IN "
            "(SELECT id FROM memory_memorynote WHERE tenant_id = %s)",
            [tenant.pk],
        )
        cur.execute("DELETE FROM memory_memorynote WHERE tenant_id = %s", [tenant.pk])
    Tenant.objects.filter(pk=tenant.pk).delete()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--million", action="store_true", help="also run at 1,000,000 notes (slow to load)")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--extract", type=int, default=300, help="messages for the extraction throughput")
    parser.add_argument("--keep", action="store_true", help="keep the bench tenant")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")] + ([1_000_000] if args.million else [])
    rng = random.Random(42)
    for stale in Tenant.objects.filter(slug__startswith="bench-"):  # a run that was interrupted
        drop_tenant(stale)
    tenant = Tenant.objects.create(
        slug=f"bench-{int(time.time())}", name="bench", recall_all_below=0, embedding_model=OFFLINE_MODEL
    )  # the notes below carry lexical vectors
    Assistant.objects.for_tenant(tenant).create(tenant=tenant, name="bench", system_prompt="bench")
    typical = EndUser.objects.for_tenant(tenant).create(tenant=tenant, external_id="typical")
    heavy = EndUser.objects.for_tenant(tenant).create(tenant=tenant, external_id="heavy")
    make_notes(tenant, [(typical, 50)], 50, rng)
    queries = [rng.choice(QUERIES) for _ in range(args.queries)]
    t = time.perf_counter()
    vectors = {q: embed_texts(texts=[q], model=OFFLINE_MODEL)[1][0] for q in set(queries)}
    embed_ms = (time.perf_counter() - t) / len(set(queries)) * 1000
    t = time.perf_counter()
    for _ in range(50):
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
    rtt = (time.perf_counter() - t) / 50 * 1000
    print(
        f"PostgreSQL {connection.cursor().connection.info.server_version}, offline embedder, "
        f"query embedding {embed_ms:.2f} ms/query (excluded below), database round trip {rtt:.2f} ms"
    )
    total, heavy_n, others = 50, 0, 0
    try:
        for size in sizes:
            t = time.perf_counter()
            want_heavy = min(10_000, size // 2)
            users = []
            if want_heavy > heavy_n:
                users.append((heavy, want_heavy - heavy_n))
                heavy_n = want_heavy
            rest = size - (total + sum(n for _, n in users))
            while rest > 0:
                n = min(50, rest)
                u = EndUser.objects.for_tenant(tenant).create(tenant=tenant, external_id=f"u{others}")
                others += 1
                users.append((u, n))
                rest -= n
            total += make_notes(tenant, users, 0, rng)
            with connection.cursor() as cur:
                cur.execute("ANALYZE memory_memorynote")
            load = time.perf_counter() - t
            rt, st = measure(tenant, typical, queries, vectors)
            hrt, hst = measure(tenant, heavy, queries, vectors)
            recalls = [recall_at_10(tenant.pk, vectors[q]) for q in vectors]
            recalls400 = [recall_at_10(tenant.pk, vectors[q], ef=400) for q in vectors]
            heavy_recalls = [recall_at_10(tenant.pk, vectors[q], user_id=heavy.pk) for q in vectors]
            heavy_recalls400 = [recall_at_10(tenant.pk, vectors[q], user_id=heavy.pk, ef=400) for q in vectors]
            print(
                f"\n== {total:,} notes in the tenant ({others + 2} users; heavy user {heavy_n:,}; loaded in {load:.0f} s)"
            )
            print(f"  typical user (50 notes)   memory_recall {fmt(rt)} | bare SQL {fmt(st)}")
            print(f"  heavy user ({heavy_n:>6,} notes) memory_recall {fmt(hrt)} | bare SQL {fmt(hst)}")
            print(
                f"  HNSW vs exact recall@10: tenant-wide ef_search=100 {statistics.mean(recalls):.3f}, "
                f"ef_search=400 {statistics.mean(recalls400):.3f}; heavy user through HNSW (filtered, iterative) "
                f"ef_search=100 {statistics.mean(heavy_recalls):.3f}, ef_search=400 {statistics.mean(heavy_recalls400):.3f}"
            )
        rate = extraction_throughput(tenant, rng, args.extract)
        print(f"\nextraction (offline rules, sequential, one process): {rate:.1f} messages/s")
    finally:
        if not args.keep:
            drop_tenant(tenant)


if __name__ == "__main__":
    main()
