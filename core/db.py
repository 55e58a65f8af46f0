"""Connection handling around slow waits that are not the database's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connections


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
