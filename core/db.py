"""Connection handling around slow waits that are not the database's."""

from __future__ import annotations

from django.db import connections


def connection_release_while_waiting(alias: str = "default") -> None:
    """Give this thread's connection back to the pool before a long wait (a model call), so that a pool of a few
    connections serves many concurrent turns; the next query takes one again. Only with a pool
    (DATABASE_POOL_MAX_SIZE) and outside a transaction: without a pool, reconnecting would cost more than it
    saves, and inside a transaction the connection is not ours to give back."""
    conn = connections[alias]
    if conn.connection is not None and not conn.in_atomic_block and conn.settings_dict["OPTIONS"].get("pool"):
        conn.close()
