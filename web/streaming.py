"""Server-sent events for a chat turn, under both WSGI and ASGI.

Under ASGI Django buffers a *sync* iterator completely before sending it, so there the turn's sync generator is
wrapped in an async iterator that runs each next() in the request's sync thread (sync_to_async, thread-sensitive,
so the database connection stays the same). Under WSGI the sync generator streams as it is.
"""
from __future__ import annotations

import json
from typing import AsyncIterator, Iterator

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import StreamingHttpResponse


def sse(event: str, data) -> bytes:
    payload = json.dumps(data, ensure_ascii=False)
    return f"event: {event}\ndata: {payload}\n\n".encode()


_END = object()


def _next_or_end(iterator):
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


def sse_response(request, events: Iterator[bytes]) -> StreamingHttpResponse:
    content = _aiterate(events) if isinstance(request, ASGIRequest) else events
    response = StreamingHttpResponse(content, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: do not buffer the stream
    return response
