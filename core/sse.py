"""Server-sent events for a chat turn, under both WSGI and ASGI: the one writer the web chat and the API share,
so both put the same bytes on the wire (`event: <name>`, `data: <JSON, UTF-8 unescaped>`, a blank line).

Under ASGI Django buffers a *sync* iterator completely before sending it, so there the turn's sync generator is
wrapped in an async iterator that runs each next() in the request's sync thread (sync_to_async, thread-sensitive,
so the database connection stays the same). Under WSGI the sync generator streams as it is.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse


def sse(event: str, data: Any) -> bytes:
    """One event. Values JSON cannot hold (a datetime, a Decimal) are written as their str()."""
    payload = json.dumps(data, ensure_ascii=False, default=str)
    return f"event: {event}\ndata: {payload}\n\n".encode()


_END = object()


def _next_or_end(iterator: Iterator[bytes]) -> Any:
    return next(iterator, _END)


async def _aiterate(iterator: Iterator[bytes]) -> AsyncIterator[bytes]:
    step = sync_to_async(_next_or_end, thread_sensitive=True)
    try:
        while True:
            chunk = await step(iterator)
            if chunk is _END:
                break
            yield chunk
    finally:
        # The browser went away (stop button) or the turn ended: let the turn's generator clean up.
        close = getattr(iterator, "close", None)
        if close is not None:
            try:
                await sync_to_async(close, thread_sensitive=True)()
            except Exception:  # noqa: BLE001 - closing must never raise into the server
                pass


def sse_response(request: Any, events: Iterator[bytes]) -> StreamingHttpResponse:
    """The streaming response for `events` (a Django request, or a DRF request wrapping one). On a client that
    goes away the generator is closed, so its `finally` runs (the turn cleans up, an idempotency key is freed)."""
    django_request = getattr(request, "_request", request)
    content = _aiterate(events) if isinstance(django_request, ASGIRequest) else events
    response = StreamingHttpResponse(content, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: do not buffer the stream
    return response
