"""PostgreSQL + pgvector: which server, how connections are kept, and the options every connection starts with."""

from __future__ import annotations

from pathlib import Path

from config.env import BASE_DIR, env

# No DATABASE_URL: start (or reuse) the embedded PostgreSQL 18 + pgvector in .pgdata (config/embedded_db.py), so
# `make run` needs no server.
EMBEDDED_DB_DIR = Path(env("EMBEDDED_DB_DIR", default=str(BASE_DIR / ".pgdata")))
if env("DATABASE_URL", default=""):
    DATABASES = {"default": env.db("DATABASE_URL")}
    USING_EMBEDDED_DB = False
else:
    from config.embedded_db import embedded_database_url

    DATABASES = {"default": env.db_url_config(embedded_database_url(EMBEDDED_DB_DIR))}
    USING_EMBEDDED_DB = True
if env("DATABASE_NAME", default=""):  # lets a test's Celery worker use the test database
    DATABASES["default"]["NAME"] = env("DATABASE_NAME")
DATABASES["default"]["ENGINE"] = "django.db.backends.postgresql"
# Under ASGI every request runs its sync code in a thread of its own, so a persistent connection per thread piles
# up (`make load` hit "too many clients" with CONN_MAX_AGE=60), and a new connection per request costs the server
# a backend start on every turn. DATABASE_POOL_MAX_SIZE > 0 shares a bounded pool (psycopg_pool) among a process's
# threads instead: a request takes a connection for as long as it talks to the database and gives it back, and
# more concurrent requests than that wait for one (up to DATABASE_POOL_TIMEOUT s, then 503). config/asgi.py turns
# the pool on for the web server (8 per web process by default). A process with a fixed set of threads (the Celery
# worker) may use DATABASE_CONN_MAX_AGE=60 instead; the health check then survives a database restart. Neither
# set: one connection per request.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=0)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True  # a connection broken by a database restart is replaced, not used
# an unreachable database fails a request within seconds (a 503 sentence), not after the system's TCP timeout
DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = 5
# pgvector's HNSW search settings for every connection, sent with the connection's startup packet (no round trip):
# ef_search 400 keeps recall@10 near 1.0 (bench/recall.py), and iterative scans (pgvector >= 0.8) make a search
# filtered to one user return its k nearest rows from the shared index. Unknown to a server without pgvector, they
# stay unused placeholders.
PGVECTOR_HNSW_EF_SEARCH = env.int("PGVECTOR_HNSW_EF_SEARCH", default=400)
DATABASES["default"]["OPTIONS"]["options"] = " ".join(
    filter(
        None,
        [
            DATABASES["default"]["OPTIONS"].get("options", ""),
            f"-c hnsw.ef_search={PGVECTOR_HNSW_EF_SEARCH} -c hnsw.iterative_scan=relaxed_order",
            # read by prepared statements only, and only recall's statements are (core.db.prepared_rows)
            "-c plan_cache_mode=force_generic_plan",
        ],
    )
)
# Recall's statements as server-side prepared statements (planned once per connection). Off for a
# connection pooler that cannot keep prepared statements (PgBouncer in transaction mode before 1.21). psycopg
# prepares only what is asked (`prepare=True`): no other statement reaches its threshold, and Django's own
# cursors bind on the client and never prepare.
RECALL_PREPARED_STATEMENTS = env.bool("RECALL_PREPARED_STATEMENTS", default=True)
if RECALL_PREPARED_STATEMENTS:
    DATABASES["default"]["OPTIONS"].setdefault("prepare_threshold", 2**31 - 1)
DATABASE_POOL_MAX_SIZE = env.int("DATABASE_POOL_MAX_SIZE", default=0)
if DATABASE_POOL_MAX_SIZE > 0:
    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django refuses persistent connections with a pool
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": min(2, DATABASE_POOL_MAX_SIZE),
        "max_size": DATABASE_POOL_MAX_SIZE,
        "timeout": env.float("DATABASE_POOL_TIMEOUT", default=10.0),
        "max_idle": 300,  # idle connections above min_size are closed after 5 minutes
    }
# Partitions of the largest tables (chat messages, memory notes, message vectors), by HASH(tenant_id). Read once,
# by migration memory.0010_i22_partition_by_tenant: changing it later does not re-partition (docs/scaling.md).
TENANT_HASH_PARTITIONS = env.int("TENANT_HASH_PARTITIONS", default=8)
