"""`Client` (sync) and `AsyncClient`: one method per operation of the platform's REST API (/api/v1/).

The methods are written once, in `_Operations`, as descriptions of a request; the sync client runs them and
returns the result, the async client returns an awaitable (or an async iterator for lists and streams), so the
two clients cannot drift apart. `@operation("<operationId>")` ties each method to the OpenAPI operation it
calls; the SDK's test fails when an operation of the schema has no method.

    from memory_platform import Client
    client = Client("http://127.0.0.1:8000", api_key="...")
    client.add_memory("alice", kind="preference", content="The user drinks americano.")
    for note in client.list_memories("alice"):          # every page, one request per page
        print(note["content"])
    for event in client.chat_stream("alice", "我的预算大概 40 万"):
        print(event.text, end="")
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx

from memory_platform._transport import AsyncTransport, ChatEvent, Request, SyncTransport

DEFAULT_TIMEOUT = 60.0
USER_AGENT = "memory-platform-sdk-python/0.1.0"


def operation(*operation_ids: str):
    """Marks the OpenAPI operation(s) a method calls (read by the coverage test)."""

    def mark(fn):
        fn.operation_ids = operation_ids
        return fn

    return mark


def _u(external_id: str) -> str:
    return quote(str(external_id), safe="")


def _if_match(version: str | None) -> dict:
    """The If-Match header for a note's `version` (or an ETag as the server sent it, quotes included)."""
    if version is None:
        return {}
    version = str(version)
    return {"If-Match": version if version.startswith(('"', "W/")) or version == "*" else f'"{version}"'}


def _job_id(body) -> int:
    return body["job"]


class _Operations:
    """Every API operation, as a request. Subclasses provide `_call`, `_paginate` and `_stream`."""

    _t: Any

    def _call(self, req: Request):
        return self._t.call(req)

    def _paginate(self, req: Request):
        return self._t.paginate(req)

    def _stream(self, req: Request):
        return self._t.stream(req)

    # --- chat ------------------------------------------------------------------------------------------------
    @operation("chat_create")
    def chat(
        self,
        user: str,
        message: str,
        *,
        session: int | None = None,
        assistant: int | None = None,
        idempotency_key: str | None = None,
        tool_choice: str | None = None,
    ) -> dict:
        """One chat turn; returns {session, message_id, reply, error, memories_used, context, tool_calls} (each
        call a memory_platform.tools.ToolCall). `tool_choice`: "auto", "none" or a tool's name. An
        Idempotency-Key is sent (a new UUID unless given), so a retry after a lost answer never makes a second
        turn."""
        return self._call(
            Request(
                "POST",
                "/api/v1/chat/",
                json=_chat_body(user, message, session, assistant, tool_choice),
                headers={"Idempotency-Key": idempotency_key or str(uuid.uuid4())},
            )
        )

    @operation("chat_create")
    def chat_stream(
        self,
        user: str,
        message: str,
        *,
        session: int | None = None,
        assistant: int | None = None,
        idempotency_key: str | None = None,
        tool_choice: str | None = None,
    ) -> Iterator[ChatEvent]:
        """The same turn as server-sent events: ChatEvent("context"), ChatEvent("delta") with `.text`... (with
        ChatEvent("tool_call") and ChatEvent("tool_result") between them when the model calls tools: `.tool_call`),
        then ChatEvent("done") with the chat() result, then ChatEvent("memory") with what the turn changed in
        memory ({message_id, status, events}). A failure after the stream began raises the API error."""
        body = dict(_chat_body(user, message, session, assistant, tool_choice), stream=True)
        return self._stream(
            Request(
                "POST",
                "/api/v1/chat/",
                json=body,
                headers={"Accept": "text/event-stream", "Idempotency-Key": idempotency_key or str(uuid.uuid4())},
            )
        )

    # --- assistants --------------------------------------------------------------------------------------------
    @operation("assistants_list")
    def list_assistants(self, *, page_size: int | None = None):
        return self._paginate(Request("GET", "/api/v1/assistants/", params={"page_size": page_size}))

    @operation("assistants_experiences_list")
    def list_experiences(self, assistant: int, *, page_size: int | None = None):
        return self._paginate(
            Request("GET", f"/api/v1/assistants/{int(assistant)}/experiences/", params={"page_size": page_size})
        )

    # --- users: memory -----------------------------------------------------------------------------------------
    @operation("users_memories_retrieve")
    def list_memories(
        self,
        user: str,
        *,
        kind: str | None = None,
        status: str | None = None,
        source: str | None = None,
        page_size: int | None = None,
    ):
        """The user's notes, newest first, across every page (status defaults to active; "all" for every
        status)."""
        return self._paginate(
            Request(
                "GET",
                f"/api/v1/users/{_u(user)}/memories/",
                params={"kind": kind, "status": status, "source": source, "page_size": page_size},
            )
        )

    @operation("users_memories_retrieve")
    def search_memories(
        self, user: str, q: str, *, k: int = 10, kind: str | None = None, status: str | None = None
    ) -> list[dict]:
        """The user's notes matching `q`, best first, each with its `score`."""
        return self._call(
            Request(
                "GET",
                f"/api/v1/users/{_u(user)}/memories/",
                params={"q": q, "k": k, "kind": kind, "status": status},
                transform=lambda body: body["results"],
            )
        )

    @operation("users_memories_create")
    def add_memory(
        self,
        user: str,
        *,
        kind: str,
        content: str,
        key: str | None = None,
        source: str | None = None,
        confidence: float | None = None,
    ) -> dict:
        body = {
            k: v
            for k, v in {
                "kind": kind,
                "content": content,
                "key": key,
                "source": source,
                "confidence": confidence,
            }.items()
            if v is not None
        }
        return self._call(Request("POST", f"/api/v1/users/{_u(user)}/memories/", json=body, idempotent=False))

    @operation("users_memories_forget_create")
    def forget_memories(self, user: str, query: str) -> list[dict]:
        """Forget the user's active notes matching `query`; returns what was forgotten."""
        return self._call(
            Request(
                "POST",
                f"/api/v1/users/{_u(user)}/memories/forget/",
                json={"query": query},
                transform=lambda body: body["forgotten"],
            )
        )

    @operation("users_recall_retrieve")
    def recall(self, user: str, q: str, *, k: int = 10) -> list[dict]:
        """What the chat turn would recall for `q`: notes and past messages with scores and provenance."""
        return self._call(
            Request(
                "GET",
                f"/api/v1/users/{_u(user)}/recall/",
                params={"q": q, "k": k},
                transform=lambda body: body["results"],
            )
        )

    # --- notes by id -------------------------------------------------------------------------------------------
    @operation("memories_retrieve")
    def get_memory(self, note: int, *, user: str | None = None) -> dict:
        return self._call(Request("GET", f"/api/v1/memories/{int(note)}/", params={"user": user}))

    @operation("memories_partial_update")
    def update_memory(self, note: int, *, user: str | None = None, if_version: str | None = None, **changes) -> dict:
        """Correct a note: content, kind, key, confidence, expires_at, pinned. With `if_version` (the note's
        `version`, or its ETag), only if nobody changed it since: else VersionMismatch and nothing changes."""
        return self._call(
            Request(
                "PATCH",
                f"/api/v1/memories/{int(note)}/",
                params={"user": user},
                json=changes,
                headers=_if_match(if_version),
            )
        )

    @operation("memories_destroy")
    def forget_memory(self, note: int, *, user: str | None = None, if_version: str | None = None) -> None:
        """Forget a note. With `if_version`, only if nobody changed it since (else VersionMismatch)."""
        return self._call(
            Request("DELETE", f"/api/v1/memories/{int(note)}/", params={"user": user}, headers=_if_match(if_version))
        )

    @operation("memories_history_retrieve")
    def memory_history(self, note: int, *, user: str | None = None) -> list[dict]:
        return self._call(
            Request(
                "GET",
                f"/api/v1/memories/{int(note)}/history/",
                params={"user": user},
                transform=lambda body: body["results"],
            )
        )

    # --- sessions and messages ---------------------------------------------------------------------------------
    @operation("users_sessions_list")
    def list_sessions(self, user: str, *, page_size: int | None = None):
        return self._paginate(Request("GET", f"/api/v1/users/{_u(user)}/sessions/", params={"page_size": page_size}))

    @operation("users_sessions_create")
    def import_session(
        self, user: str, messages: list[dict], *, title: str | None = None, assistant: int | None = None
    ) -> dict:
        """Import a past conversation ([{role, content, created_at?}, ...]); memory is extracted by a job."""
        body = {
            k: v for k, v in {"messages": messages, "title": title, "assistant": assistant}.items() if v is not None
        }
        return self._call(Request("POST", f"/api/v1/users/{_u(user)}/sessions/", json=body, idempotent=False))

    @operation("sessions_retrieve")
    def get_session(self, session: int, *, user: str | None = None) -> dict:
        return self._call(Request("GET", f"/api/v1/sessions/{int(session)}/", params={"user": user}))

    @operation("sessions_destroy")
    def delete_session(self, session: int, *, user: str | None = None) -> None:
        return self._call(Request("DELETE", f"/api/v1/sessions/{int(session)}/", params={"user": user}))

    @operation("sessions_messages_list")
    def list_messages(self, session: int, *, user: str | None = None, page_size: int | None = None):
        return self._paginate(
            Request("GET", f"/api/v1/sessions/{int(session)}/messages/", params={"user": user, "page_size": page_size})
        )

    @operation("messages_feedback_create")
    def feedback(self, message: int, rating: str, *, comment: str = "", user: str | None = None) -> dict:
        """Thumbs "up" or "down" on an assistant reply; sending again replaces the rating."""
        return self._call(
            Request(
                "POST",
                f"/api/v1/messages/{int(message)}/feedback/",
                params={"user": user},
                json={"rating": rating, "comment": comment},
            )
        )

    # --- working memory, export, erasure, jobs -----------------------------------------------------------------
    @operation("users_tasks_list")
    def list_tasks(self, user: str, *, state: str | None = None, page_size: int | None = None):
        return self._paginate(
            Request("GET", f"/api/v1/users/{_u(user)}/tasks/", params={"state": state, "page_size": page_size})
        )

    @operation("users_export_retrieve")
    def export_user(self, user: str) -> dict:
        return self._call(Request("GET", f"/api/v1/users/{_u(user)}/export/"))

    @operation("users_retrieve")
    def get_user(self, user: str) -> dict:
        """The user's settings: {user, memory_enabled}."""
        return self._call(Request("GET", f"/api/v1/users/{_u(user)}/"))

    @operation("users_partial_update")
    def set_memory_enabled(self, user: str, enabled: bool) -> dict:
        """Switch the user's long-term memory on or off (from the next turn: no notes written or recalled)."""
        return self._call(Request("PATCH", f"/api/v1/users/{_u(user)}/", json={"memory_enabled": bool(enabled)}))

    @operation("users_destroy")
    def erase_user(self, user: str) -> int:
        """Start erasing everything about the user; returns the job id (follow it with get_job)."""
        return self._call(Request("DELETE", f"/api/v1/users/{_u(user)}/", transform=_job_id))

    # --- memory events of a chat turn -----------------------------------------------------------------------------
    @operation("messages_memory_events_retrieve")
    def memory_events(self, message: int) -> dict:
        """What a chat turn wrote, updated, superseded or forgot: {message_id, status, events}."""
        return self._call(Request("GET", f"/api/v1/messages/{int(message)}/memory-events/"))

    @operation("messages_memory_events_undo_create")
    def undo_memory_event(self, message: int, note: int) -> dict:
        """Undo one memory change of a chat turn; returns the event as it now stands."""
        return self._call(Request("POST", f"/api/v1/messages/{int(message)}/memory-events/{int(note)}/undo/"))

    @operation("jobs_retrieve")
    def get_job(self, job: int) -> dict:
        return self._call(Request("GET", f"/api/v1/jobs/{int(job)}/"))

    # --- webhooks ----------------------------------------------------------------------------------------------
    @operation("webhooks_create")
    def create_webhook(
        self, url: str, events: list[str], *, include_content: bool = False, description: str = ""
    ) -> dict:
        """Register an endpoint; the answer carries its `secret` (shown only once): verify deliveries with
        memory_platform.webhooks.verify_signature."""
        return self._call(
            Request(
                "POST",
                "/api/v1/webhooks/",
                json={
                    "url": url,
                    "events": list(events),
                    "include_content": include_content,
                    "description": description,
                },
                idempotent=False,
            )
        )

    @operation("webhooks_list")
    def list_webhooks(self, *, page_size: int | None = None):
        return self._paginate(Request("GET", "/api/v1/webhooks/", params={"page_size": page_size}))

    @operation("webhooks_retrieve")
    def get_webhook(self, webhook: int) -> dict:
        return self._call(Request("GET", f"/api/v1/webhooks/{int(webhook)}/"))

    @operation("webhooks_partial_update")
    def update_webhook(self, webhook: int, **changes) -> dict:
        """Change url, events, include_content, description or is_active."""
        return self._call(Request("PATCH", f"/api/v1/webhooks/{int(webhook)}/", json=changes))

    @operation("webhooks_destroy")
    def delete_webhook(self, webhook: int) -> None:
        return self._call(Request("DELETE", f"/api/v1/webhooks/{int(webhook)}/"))

    @operation("webhooks_deliveries_list")
    def list_webhook_deliveries(self, webhook: int, *, page_size: int | None = None):
        return self._paginate(
            Request("GET", f"/api/v1/webhooks/{int(webhook)}/deliveries/", params={"page_size": page_size})
        )

    # --- tools -------------------------------------------------------------------------------------------------
    @operation("tools_create")
    def create_tool(
        self,
        name: str,
        description: str,
        url: str,
        *,
        parameters: dict | None = None,
        timeout_seconds: float = 5.0,
        assistants: list[int] | None = None,
    ) -> dict:
        """Register an HTTP tool the listed assistants' model may call; the answer carries its `secret` (shown
        only once): calls are signed as webhooks are (memory_platform.webhooks.verify_signature)."""
        body = {
            "name": name,
            "description": description,
            "url": url,
            "parameters": parameters or {"type": "object", "properties": {}},
            "timeout_seconds": timeout_seconds,
            "assistants": list(assistants or []),
        }
        return self._call(Request("POST", "/api/v1/tools/", json=body, idempotent=False))

    @operation("tools_list")
    def list_tools(self, *, page_size: int | None = None):
        return self._paginate(Request("GET", "/api/v1/tools/", params={"page_size": page_size}))

    @operation("tools_retrieve")
    def get_tool(self, tool: int) -> dict:
        return self._call(Request("GET", f"/api/v1/tools/{int(tool)}/"))

    @operation("tools_partial_update")
    def update_tool(self, tool: int, **changes) -> dict:
        """Change description, parameters, url, timeout_seconds, assistants (replaces the list) or is_active."""
        return self._call(Request("PATCH", f"/api/v1/tools/{int(tool)}/", json=changes))

    @operation("tools_destroy")
    def delete_tool(self, tool: int) -> None:
        return self._call(Request("DELETE", f"/api/v1/tools/{int(tool)}/"))

    @operation("tools_calls_list")
    def list_tool_calls(self, *, page_size: int | None = None):
        """The log of tool calls, newest first: tool, status, duration, whose turn; never arguments or results."""
        return self._paginate(Request("GET", "/api/v1/tools/calls/", params={"page_size": page_size}))

    # --- usage and quotas --------------------------------------------------------------------------------------
    @operation("usage_list")
    def usage(
        self,
        *,
        group_by: str = "day",
        date_from: str | None = None,
        date_to: str | None = None,
        page_size: int | None = None,
    ):
        """What the tenant used between two UTC days (YYYY-MM-DD, both included; default the last 30), one row per
        day, assistant, user or model (`group_by`): tokens, model calls, turns, tool calls, and cost when a price
        is set. An iterator over every page."""
        params = {"group_by": group_by, "from": date_from, "to": date_to, "page_size": page_size}
        return self._paginate(Request("GET", "/api/v1/usage/", params=params))

    @operation("usage_quotas_retrieve")
    def get_quotas(self) -> dict:
        """The tenant's limits ({"quotas": ..., "tenant_used": ...})."""
        return self._call(Request("GET", "/api/v1/usage/quotas/"))

    @operation("usage_quotas_update")
    def set_quotas(self, quotas: dict) -> dict:
        """Replace the tenant's limits, e.g. {"user": {"tokens_per_day": 20000}}; {} removes them. A turn over a
        limit raises errors.QuotaExceeded (not retried: `retry_after` says when the limit resets)."""
        return self._call(Request("PUT", "/api/v1/usage/quotas/", json={"quotas": quotas}))


def _chat_body(user, message, session, assistant, tool_choice=None) -> dict:
    body = {"user": user, "message": message, "session": session, "assistant": assistant, "tool_choice": tool_choice}
    return {k: v for k, v in body.items() if v is not None}


def _headers(api_key: str) -> dict:
    return {"Authorization": f"Bearer {api_key}", "User-Agent": USER_AGENT, "Accept": "application/json"}


class Client(_Operations):
    """The sync client. Lists are iterators over every page; `chat_stream` is an iterator of ChatEvents.

    Retries: 429 and 503 (and connection failures of requests that are safe to repeat) are retried up to
    `max_retries` times, waiting Retry-After when the server sends it, else exponential backoff with jitter
    from `backoff_base` seconds."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        http_client: httpx.Client | None = None,
    ):
        self._http = http_client or httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)
        self._http.headers.update(_headers(api_key))
        self._t = SyncTransport(self._http, max_retries, backoff_base)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def wait_for_job(self, job: int, *, timeout: float = 60.0, interval: float = 0.5) -> dict:
        """Poll a job until it is done (succeeded or failed) or `timeout` seconds pass; returns the job."""
        import time

        deadline = time.monotonic() + timeout
        while True:
            found = self.get_job(job)
            if found["status"] in ("succeeded", "failed") or time.monotonic() > deadline:
                return found
            time.sleep(interval)


class AsyncClient(_Operations):
    """The async client: `await client.recall(...)`; `async for note in client.list_memories(...)`;
    `async for event in client.chat_stream(...)`. Same retries as Client."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = 3,
        backoff_base: float = 0.5,
        http_client: httpx.AsyncClient | None = None,
    ):
        self._http = http_client or httpx.AsyncClient(base_url=base_url.rstrip("/"), timeout=timeout)
        self._http.headers.update(_headers(api_key))
        self._t = AsyncTransport(self._http, max_retries, backoff_base)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def wait_for_job(self, job: int, *, timeout: float = 60.0, interval: float = 0.5) -> dict:
        import asyncio
        import time

        deadline = time.monotonic() + timeout
        while True:
            found = await self.get_job(job)
            if found["status"] in ("succeeded", "failed") or time.monotonic() > deadline:
                return found
            await asyncio.sleep(interval)
