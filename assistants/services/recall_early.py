"""The chat turn's recall, started before the turn stores the message, so that the two overlap.

Recall reads only the user's notes and the past messages of other sessions: nothing the turn writes before its
context (the message itself, pinned facts, the task state) changes what it finds. So the turn starts it first, in a
thread of a small pool on a connection of its own, and it runs while the turn stores the message and runs the
pre-turn hooks; the context then takes the ranked list and cuts it to the budget it has left. Measured in
docs/benchmarks-history.md ("Recall, sixth round").

It starts early only when that is safe and cheap; otherwise the context recalls inline, as before:
- with a connection pool (DATABASE_POOL_MAX_SIZE, the web server's default): without one, the thread would start a
  database backend for every turn;
- outside a transaction: another connection cannot see the caller's uncommitted rows (a test's, a batch's);
- when the turn will recall at all (not a temporary chat, memory on, a memories budget).
A recall still queued when the context needs it is cancelled and run inline, so a busy pool never makes a turn wait
longer than recalling would. A failure is the context's as before: logged, and the turn goes on without memories.
"""

from __future__ import annotations

import contextvars
import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor

from django.db import connection

logger = logging.getLogger(__name__)

EARLY_THREADS = 2  # per process: at most this many connections of the pool are taken by early recalls
MIN_BUDGET = 32  # the context recalls nothing for a smaller memories budget (context._memories_section)

_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=EARLY_THREADS, thread_name_prefix="recall-early")
        return _executor


def recall_early_start(*, tenant, session, text: str, policy, long_term: bool) -> Future | None:
    """Start the turn's recall for `text` (the message as it will be stored) when the module docstring says it may;
    None otherwise. `long_term`: whether the turn uses long-term memory, as far as the caller knows before the
    locks (the context recalls only if the locked check agrees)."""
    if not long_term or policy.budget_memories_tokens <= MIN_BUDGET:
        return None
    if connection.in_atomic_block or not connection.settings_dict["OPTIONS"].get("pool"):
        return None
    from memory.services.recall.recall import memory_recall_ranked
    from memory.services.vectors.embeddings import embed_texts

    query = text[:4000]
    # the query is embedded here: in the thread, the embedder's Python would contend for the interpreter lock with
    # the turn's own work and take over twice as long; the statements then wait on the database while the turn stores
    # the message
    try:
        vector = embed_texts(texts=[query], model=policy.embedding_model)[1][0]
    except Exception:  # an embedding endpoint down: the context recalls inline and goes on without memories
        logger.warning("embedding the query failed; the context recalls inline", exc_info=True)
        return None
    arguments = dict(
        tenant=tenant,
        end_user=session.end_user,
        query=query,
        exclude_session_id=session.id,
        for_context=True,
        policy=policy,
        query_embedding=vector,
    )
    # the caller's context variables (tenant scope, the turn's embedding memo) go with it
    return _pool().submit(contextvars.copy_context().run, _on_own_connection, memory_recall_ranked, arguments)


def _on_own_connection(function, arguments: dict):
    try:
        return function(**arguments)
    finally:
        connection.close()  # back to the pool: an idle thread holds no connection


def recall_early_result(future: Future, budget: int) -> list | None:
    """The early recall's items within `budget` tokens, waiting for it if it is running; None when it had not
    started (it is cancelled, and the caller recalls inline). Raises what the recall raised."""
    from memory.services.recall.recall import recall_within_budget

    if future.cancel():
        return None
    return recall_within_budget(future.result(), budget)
