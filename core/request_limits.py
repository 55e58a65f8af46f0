"""The request size limit, enforced in the ASGI layer before anything reads the body, for every route.

Django's ASGI handler reads the whole body into a temporary file before the first middleware runs, so a limit
checked in Django comes too late: a client declaring 10 GB made the web process spool 150 MB within a second.
`BodySizeLimit` wraps any ASGI application (Django's, and any other mounted beside it) and:

- answers 413 at once, without reading a byte of the body, when `Content-Length` is above the limit (and closes
  the connection, so the server does not drain the rest);
- counts a body sent without `Content-Length` (chunked) as it streams, and stops it at the first chunk past the
  limit: the application is told the client went away and the client gets the 413. Bodies within the limit
  reach the application unchanged, chunked or not;
- answers 400 to a `Content-Length` that is not a number.

The limit for a path comes from `limit_for(path)`; the default reads the settings on every request (so a change
in a test applies at once): `API_MAX_REQUEST_BYTES` under /api/, `DATA_UPLOAD_MAX_MEMORY_SIZE` (env
`MAX_REQUEST_BYTES`) everywhere else.
"""
from __future__ import annotations

import json
from typing import Awaitable, Callable

JSON_PREFIXES = ("/api/", "/mcp", "/healthz")


def request_body_limit(path: str) -> int:
    from django.conf import settings

    if path.startswith("/api/"):
        return settings.API_MAX_REQUEST_BYTES
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE


def _error(status: int, code: str, message: str, details: dict, path: str, accept: str) -> tuple[bytes, bytes]:
    if path.startswith(JSON_PREFIXES) or ("json" in accept and "html" not in accept):
        body = {"error": {"code": code, "message": message, "details": details}}
        return json.dumps(body, ensure_ascii=False).encode(), b"application/json"
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>Request not accepted</title></head>"
            f"<body><h1>Request not accepted</h1><p>{message}</p></body></html>")
    return page.encode(), b"text/html; charset=utf-8"


class BodySizeLimit:
    """ASGI middleware: `application = BodySizeLimit(get_asgi_application())`."""

    def __init__(self, app, limit_for: Callable[[str], int] = request_body_limit):
        self.app = app
        self.limit_for = limit_for

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope.get("path", "")
        limit = self.limit_for(path)
        headers = dict((name.lower(), value) for name, value in scope.get("headers", []))
        accept = headers.get(b"accept", b"").decode("latin-1")
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                length = int(declared)
                if length < 0:
                    raise ValueError
            except ValueError:
                return await self._refuse(send, 400, "bad_request", "The Content-Length header is not a number.",
                                          {}, path, accept)
            if length > limit:
                return await self._too_large(send, limit, length, path, accept)
            return await self.app(scope, receive, send)
        return await self._counted(scope, receive, send, limit, path, accept)

    async def _counted(self, scope, receive, send, limit, path, accept):
        """No Content-Length: pass the body through, counting; past the limit the app sees a disconnect."""
        received = 0
        over = False
        started = False

        async def counting_receive():
            nonlocal received, over
            if over:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    over = True
                    return {"type": "http.disconnect"}
            return message

        async def tracking_send(message):
            nonlocal started
            if over and not started:
                return  # the app answers a client it thinks is gone; the 413 below is the answer
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        await self.app(scope, counting_receive, tracking_send)
        if over and not started:
            await self._too_large(send, limit, received, path, accept, at_least=True)

    async def _too_large(self, send, limit, length, path, accept, at_least=False):
        size = f"more than {limit}" if at_least else str(length)
        await self._refuse(send, 413, "request_too_large",
                           f"The request body is {size} bytes; the limit is {limit} bytes.",
                           {"limit_bytes": limit, **({} if at_least else {"received_bytes": length})}, path, accept)

    @staticmethod
    async def _refuse(send: Callable[[dict], Awaitable[None]], status, code, message, details, path, accept):
        body, content_type = _error(status, code, message, details, path, accept)
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", content_type), (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"), (b"cache-control", b"no-store")]})
        await send({"type": "http.response.body", "body": body})
