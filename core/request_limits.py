"""The request size limit, enforced in the ASGI layer before anything reads the body, for every route.

Django's ASGI handler reads the whole body into a temporary file before the first middleware runs, so a limit
checked in Django comes too late: a client declaring 10 GB made the web process spool 150 MB within a second.
`BodySizeLimit` wraps any ASGI application (Django's, and any other mounted beside it) and:

- answers 413 at once, without reading a byte of the body, when `Content-Length` is above the limit (and closes
  the connection, so the server does not drain the rest);
- counts a body sent without `Content-Length` (chunked) as it streams, and answers 413 at the first chunk past
  the limit, without waiting for the rest. A chunked body within the limit reaches the application whole,
  with the `Content-Length` it turned out to have;
- answers 400 to a `Content-Length` that is not a number.

The limit for a path comes from `limit_for(path)`; the default reads the settings on every request (so a change
in a test applies at once): `API_MAX_REQUEST_BYTES` under /api/, `DATA_UPLOAD_MAX_MEMORY_SIZE` (env
`MAX_REQUEST_BYTES`) everywhere else.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable

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
    page = (
        f"<!doctype html><html><head><meta charset='utf-8'><title>Request not accepted</title></head>"
        f"<body><h1>Request not accepted</h1><p>{message}</p></body></html>"
    )
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
                return await self._refuse(
                    send, 400, "bad_request", "The Content-Length header is not a number.", {}, path, accept
                )
            if length > limit:
                return await self._too_large(send, limit, length, path, accept)
            return await self.app(scope, receive, send)
        return await self._counted(scope, receive, send, limit, path, accept)

    async def _counted(self, scope, receive, send, limit, path, accept):
        """No Content-Length (chunked): read the body here, counting, and stop at the first chunk past the limit.
        A body within the limit goes on with the Content-Length it turned out to have: Django REST framework reads
        a request without one as empty (the "field required" answer to a chunked body). It is held in memory,
        which the limit bounds."""
        parts: list[bytes] = []
        received = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left mid-body: nobody to answer
            if message["type"] != "http.request":
                continue
            body = message.get("body", b"")
            received += len(body)
            if received > limit:
                return await self._too_large(send, limit, received, path, accept, at_least=True)
            parts.append(body)
            if not message.get("more_body", False):
                break
        body = b"".join(parts)
        headers = [
            (name, value)
            for name, value in scope.get("headers", [])
            if name.lower() not in (b"content-length", b"transfer-encoding")
        ]
        scope = {**scope, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
        delivered = False

        async def replay():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: only http.disconnect can come

        return await self.app(scope, replay, send)

    async def _too_large(self, send, limit, length, path, accept, at_least=False):
        size = f"more than {limit}" if at_least else str(length)
        await self._refuse(
            send,
            413,
            "request_too_large",
            f"The request body is {size} bytes; the limit is {limit} bytes.",
            {"limit_bytes": limit, **({} if at_least else {"received_bytes": length})},
            path,
            accept,
        )

    @staticmethod
    async def _refuse(send: Callable[[dict], Awaitable[None]], status, code, message, details, path, accept):
        body, content_type = _error(status, code, message, details, path, accept)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", content_type),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                    (b"cache-control", b"no-store"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"content-security-policy", b"default-src 'none'; frame-ancestors 'none'"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
