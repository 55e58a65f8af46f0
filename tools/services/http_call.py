"""Calling a tenant's HTTP tool: a JSON POST `{"tool", "arguments", "call_id"}` to its URL, signed as webhooks
are (`X-Timestamp`, `X-Signature: sha256=<HMAC-SHA256 of "<timestamp>.<body>">` under the tool's secret), sent
only to an address the webhooks' rules allow, resolved again before each call (webhooks.targets).

Runs without the database (in a thread of its own, beside the turn's other calls). The whole call, reading the
answer included, ends at the tool's timeout; at most TOOL_RESPONSE_MAX_BYTES of the answer are read."""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass

import httpx
from django.conf import settings

from core.exceptions import InvalidInput
from webhooks.services import webhook_request_target, webhook_signature
from webhooks.targets import webhook_url_resolve

USER_AGENT = "memory-platform-tools/1"
_clients: dict[int, httpx.Client] = {}
_clients_lock = threading.Lock()


def _client() -> httpx.Client:
    """One client per process (a forked worker gets its own): its TLS context and pooled connections are made
    once, not on every call (a new client cost tens of milliseconds of a tool round, docs/benchmarks.md)."""
    client = _clients.get(os.getpid())
    if client is None:
        with _clients_lock:
            client = _clients.get(os.getpid())
            if client is None:
                client = _clients[os.getpid()] = httpx.Client(follow_redirects=False)
    return client


@dataclass
class HttpAnswer:
    status: str  # ok, error, timeout, too_large, refused
    text: str  # the body read (JSON text or not), or a sentence saying what went wrong


def http_tool_call(*, url: str, secret: str, timeout: float, name: str, call_id: str, arguments: dict) -> HttpAnswer:
    deadline = time.monotonic() + timeout
    try:
        target, extra_headers, extensions = webhook_request_target(*webhook_url_resolve(url))
    except InvalidInput as exc:
        return HttpAnswer("refused", exc.message)
    body = json.dumps(
        {"tool": name, "arguments": arguments, "call_id": call_id}, ensure_ascii=False, separators=(",", ":")
    ).encode()
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Tool": name,
        "X-Timestamp": timestamp,
        "X-Signature": webhook_signature(secret=secret, timestamp=timestamp, body=body),
        **extra_headers,
    }
    limit = settings.TOOL_RESPONSE_MAX_BYTES
    try:
        with _client().stream(
            "POST", target, content=body, headers=headers, extensions=extensions, timeout=timeout
        ) as response:
            chunks, size = [], 0
            for chunk in response.iter_bytes():
                chunks.append(chunk)
                size += len(chunk)
                if size > limit:
                    text = b"".join(chunks)[:limit].decode("utf-8", errors="replace")
                    return HttpAnswer("too_large", f"The tool's answer is over {limit:,} bytes; its beginning: {text}")
                if time.monotonic() > deadline:
                    return HttpAnswer("timeout", f"The tool did not finish answering within {timeout:g} s.")
            text = b"".join(chunks).decode("utf-8", errors="replace")
    except httpx.TimeoutException:
        return HttpAnswer("timeout", f"The tool did not answer within {timeout:g} s.")
    except httpx.HTTPError as exc:
        return HttpAnswer("error", f"The tool could not be reached ({type(exc).__name__}).")
    if not 200 <= response.status_code < 300:
        return HttpAnswer("error", f"The tool answered HTTP {response.status_code}.")
    return HttpAnswer("ok", text)
