"""Sending requests: retries with backoff on 429/503 (and connection failures) honouring Retry-After, errors as
exceptions, pagination and server-sent events. One sync and one async transport share everything but I/O."""

from __future__ import annotations

import email.utils
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import httpx

from memory_platform.errors import BY_CODE, ConnectionFailed, error_from_response
from memory_platform.tools import ToolCall, ToolCallAsked

RETRY_STATUSES = (429, 503)
MAX_BACKOFF = 30.0


@dataclass
class Request:
    method: str
    path: str
    params: dict = field(default_factory=dict)
    json: Any = None
    headers: dict = field(default_factory=dict)
    transform: Callable[[Any], Any] | None = None
    # A request that changes something is retried after a connection failure only when an Idempotency-Key
    # makes a repeat harmless; 429 and 503 mean the server did not do it, so those are always retried.
    idempotent: bool = True


@dataclass
class ChatEvent:
    """One server-sent event of a streamed chat turn: `type` is context, delta, tool_call, tool_result, done,
    memory or error; `data` its JSON."""

    type: str
    data: Any

    @property
    def text(self) -> str:
        return self.data.get("text", "") if self.type == "delta" and isinstance(self.data, dict) else ""

    @property
    def tool_call(self) -> ToolCall | ToolCallAsked | None:
        """A tool_result event's call (memory_platform.tools.ToolCall), a tool_call event's request, else None."""
        if self.type in ("tool_call", "tool_result") and isinstance(self.data, dict):
            return cast("ToolCall | ToolCallAsked", self.data)
        return None


def retry_after_seconds(headers) -> float | None:
    value = headers.get("retry-after") if headers is not None else None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        when = email.utils.parsedate_to_datetime(value)
        return max(0.0, when.timestamp() - time.time()) if when else None


def retryable(response) -> bool:
    """429 and 503 are retried, unless the server asks for a longer wait than a client should sleep through (a
    usage quota that resets tomorrow: quota_exceeded), which is raised at once with its Retry-After."""
    if response.status_code not in RETRY_STATUSES:
        return False
    retry_after = retry_after_seconds(response.headers)
    return retry_after is None or retry_after <= MAX_BACKOFF * 4


def backoff(attempt: int, base: float, retry_after: float | None) -> float:
    """Seconds to wait before retry `attempt` (1, 2, ...): Retry-After when the server gave one, else
    exponential with full jitter."""
    if retry_after is not None:
        return min(retry_after, MAX_BACKOFF * 4)
    return random.uniform(0, min(MAX_BACKOFF, base * (2 ** (attempt - 1))))


def _clean(params: dict) -> dict:
    return {k: v for k, v in params.items() if v is not None}


def _body(response: httpx.Response):
    if response.status_code == 204 or not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text


def _raise_for(response: httpx.Response) -> None:
    if response.status_code >= 400:
        raise error_from_response(response.status_code, _body(response), dict(response.headers))


def parse_sse_lines(lines) -> Any:
    """ChatEvents from an iterable of text lines (one event per blank-line-terminated block)."""
    event: str | None = None
    data: list[str] = []
    for line in lines:
        if line == "":
            if event or data:
                yield ChatEvent(event or "message", json.loads("\n".join(data)) if data else None)
            event, data = None, []
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].lstrip())
    if event or data:
        yield ChatEvent(event or "message", json.loads("\n".join(data)) if data else None)


def _check_event(event: ChatEvent) -> ChatEvent:
    if event.type == "error":  # the turn failed after the stream began: the same exception as a JSON answer
        error = event.data.get("error") if isinstance(event.data, dict) else None
        cls = BY_CODE.get(str(error.get("code"))) if isinstance(error, dict) else None
        raise error_from_response(cls.status if cls is not None and cls.status else 500, event.data)
    return event


def _result(req: Request, body):
    return req.transform(body) if req.transform else body


def _first_page(req: Request) -> Request:
    return Request(req.method, req.path, params=req.params, headers=req.headers)


def _page_items(req: Request, page) -> list:
    """A page's results, each through `req.transform`."""
    return [_result(req, item) for item in page.get("results", [])]


def _next_page(req: Request, page) -> Request | None:
    """The request for the page after `page`, or None after the last one."""
    following = page.get("next")
    return Request("GET", following, headers=req.headers) if following else None


class _Retries:
    """What the sync and async transports decide alike: the request to send and whether, and how long, to wait
    before sending it again. Only the I/O (sending, sleeping, closing) differs between them."""

    http: httpx.Client | httpx.AsyncClient
    max_retries: int
    backoff_base: float

    def _built(self, req: Request) -> httpx.Request:
        return self.http.build_request(
            req.method, req.path, params=_clean(req.params) or None, json=req.json, headers=req.headers
        )

    def _wait_after_failure(self, req: Request, attempt: int, exc: httpx.TransportError) -> float:
        """Seconds to wait before sending `req` again after the server could not be reached; ConnectionFailed
        when it may not be sent again (a change with no Idempotency-Key, or no retries left)."""
        if not req.idempotent or attempt > self.max_retries:
            raise ConnectionFailed(f"Could not reach the server: {exc}") from exc
        return backoff(attempt, self.backoff_base, None)

    def _wait_after(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before sending the request again after `response`, or None to keep `response`."""
        if retryable(response) and attempt <= self.max_retries:
            return backoff(attempt, self.backoff_base, retry_after_seconds(response.headers))
        return None


class SyncTransport(_Retries):
    http: httpx.Client

    def __init__(self, client: httpx.Client, max_retries: int, backoff_base: float, sleep=time.sleep):
        self.http, self.max_retries, self.backoff_base, self.sleep = client, max_retries, backoff_base, sleep

    def _send(self, req: Request, stream: bool = False) -> httpx.Response:
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self.http.send(self._built(req), stream=stream)
            except httpx.TransportError as exc:
                self.sleep(self._wait_after_failure(req, attempt, exc))
                continue
            wait = self._wait_after(response, attempt)
            if wait is not None:
                response.close()
                self.sleep(wait)
                continue
            if response.status_code >= 400 and stream:
                response.read()
            _raise_for(response)
            return response

    def call(self, req: Request):
        return _result(req, _body(self._send(req)))

    def paginate(self, req: Request):
        page_request: Request | None = _first_page(req)
        while page_request is not None:
            page = self.call(page_request)
            yield from _page_items(req, page)
            page_request = _next_page(req, page)

    def stream(self, req: Request):
        response = self._send(req, stream=True)
        try:
            for event in parse_sse_lines(response.iter_lines()):
                yield _check_event(event)
        finally:
            response.close()


class AsyncTransport(_Retries):
    http: httpx.AsyncClient

    def __init__(self, client: httpx.AsyncClient, max_retries: int, backoff_base: float, sleep=None):
        import asyncio

        self.http, self.max_retries, self.backoff_base = client, max_retries, backoff_base
        self.sleep = sleep or asyncio.sleep

    async def _send(self, req: Request, stream: bool = False) -> httpx.Response:
        attempt = 0
        while True:
            attempt += 1
            try:
                response = await self.http.send(self._built(req), stream=stream)
            except httpx.TransportError as exc:
                await self.sleep(self._wait_after_failure(req, attempt, exc))
                continue
            wait = self._wait_after(response, attempt)
            if wait is not None:
                await response.aclose()
                await self.sleep(wait)
                continue
            if response.status_code >= 400 and stream:
                await response.aread()
            _raise_for(response)
            return response

    async def call(self, req: Request):
        return _result(req, _body(await self._send(req)))

    async def paginate(self, req: Request):
        page_request: Request | None = _first_page(req)
        while page_request is not None:
            page = await self.call(page_request)
            for item in _page_items(req, page):
                yield item
            page_request = _next_page(req, page)

    async def stream(self, req: Request):
        response = await self._send(req, stream=True)
        try:
            lines = []
            async for line in response.aiter_lines():
                lines.append(line)
                if line == "":
                    for event in parse_sse_lines(lines):
                        yield _check_event(event)
                    lines = []
            for event in parse_sse_lines(lines):
                yield _check_event(event)
        finally:
            await response.aclose()
