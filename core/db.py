"""Connection handling around slow waits that are not the database's, and prepared statements."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.conf import settings
from django.db import connection, connections


def connection_release_while_waiting(alias: str = "default") -> None:
    """Give this thread's connection back to the pool before a long wait (a model call), so that a pool of a few
    connections serves many concurrent turns; the next query takes one again. Only with a pool
    (DATABASE_POOL_MAX_SIZE) and outside a transaction: without a pool, reconnecting would cost more than it
    saves, and inside a transaction the connection is not ours to give back."""
    conn = connections[alias]
    if conn.connection is not None and not conn.in_atomic_block and conn.settings_dict["OPTIONS"].get("pool"):
        conn.close()


@contextmanager
def connection_pooled(max_size: int = 8, alias: str = "default") -> Iterator[None]:
    """Within the block, this process's connections come from a psycopg pool of `max_size`, as the web server's do
    (config/asgi.py), for in-process code that must run as it does there (the bench's chat turns, their tests). A
    pool already configured is left as it is."""
    conn = connections[alias]
    options = conn.settings_dict["OPTIONS"]
    if "pool" in options:
        yield
        return
    conn.close()
    options["pool"] = {"min_size": min(2, max_size), "max_size": max_size, "timeout": 10.0}
    try:
        yield
    finally:
        conn.close()
        conn.close_pool()  # type: ignore[attr-defined]  # the PostgreSQL backend's (Django >= 5.1)
        del options["pool"]


def text_rows(sql: str, params: dict) -> list[tuple]:
    """The rows of `sql` (pyformat parameters) through Django's cursor: bound on the client, planned for its values."""
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchall()


def prepared_rows(sql: str, params: dict) -> list[tuple]:
    """The rows of `sql` (pyformat parameters), run as a server-side prepared statement on this thread's connection;
    as text_rows when RECALL_PREPARED_STATEMENTS is off (a pooler that cannot keep prepared statements).

    Django binds parameters on the client and sends every statement as text, so PostgreSQL plans each one again;
    for recall's notes statement planning took as long as running it (docs/benchmarks-history.md,
    "Recall, ninth round"). Prepared, it is planned once per connection: the connections carry
    plan_cache_mode=force_generic_plan (config/settings/database.py), which only prepared statements read, and only
    this function prepares any: recall's statements whose plan does not depend on the user's size (the notes and
    messages statements without the branches that do: memory.services.recall.recall_sql.prepared_first), and what the
    extraction job reads before it embeds a message (memory.services.recall.episodes). Errors come out
    as Django's; when queries are logged (DEBUG, tests' query capture) the statement is logged with its parameters
    bound, as Django logs its own."""
    if not settings.RECALL_PREPARED_STATEMENTS:
        return text_rows(sql, params)
    connection.ensure_connection()
    raw = connection.connection
    start = time.monotonic()
    with connection.wrap_database_errors, psycopg.Cursor(raw) as cur:
        cur.execute(sql, params, prepare=True)
        rows = cur.fetchall()
    if connection.queries_logged:
        text = psycopg.ClientCursor(raw).mogrify(sql, params)
        connection.queries_log.append({"sql": text, "time": f"{time.monotonic() - start:.3f}"})
    return rows
