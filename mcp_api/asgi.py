"""`/mcp/` on the platform's own ASGI app: the MCP server over streamable HTTP, beside Django.

`mcp_mount(django_app)` returns an ASGI app that sends `/mcp` and `/mcp/...` to the MCP SDK's session manager
and everything else to Django. Before the SDK sees a request it is checked as the REST API checks one: the Host
against ALLOWED_HOSTS, `Authorization: Bearer <API key>` through the REST API's own authentication class (a
missing, unknown, revoked or expired key is a 401 with the API's error body, and too many bad keys from one address
a 429), and the per-key and per-tenant limits (429 with Retry-After). The key is passed to the tools in the ASGI scope's state, so every tool call is scoped to that
key's tenant.

The server is stateless (each POST carries one JSON-RPC message and gets a JSON answer): any web process of a
load-balanced set can answer any request, and there is no session to lose on a restart. The SDK's session
manager runs for the life of the process, started by the ASGI lifespan (uvicorn sends it) or, without one, by the
first MCP request.
"""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connections
from django.http.request import split_domain_port, validate_host
from mcp.server.transport_security import TransportSecuritySettings
from rest_framework import exceptions

from api.authentication import ApiKeyAuthentication, LimitExceeded, api_limits_check
from api.errors import error_body
from mcp_api.server import build_mcp_server

MCP_PATH = "/mcp"
STATE_KEY = "platform_api_key"


def _tenant_of_request(ctx):
    key = ctx.request_context.request.scope["state"][STATE_KEY]
    return key.tenant, f"api-key:{key.name} ({key.prefix}) via MCP"


def _check(headers: dict[str, str], client: str = ""):
    """(api_key, None) for a request that may go on, or (None, (status, body, extra headers)). `client` is the
    connection's address (the per-address limit on bad keys reads it as the REST API does)."""
    close_old_connections()
    try:
        host, _ = split_domain_port(headers.get("host", ""))
        if not host or not validate_host(host, settings.ALLOWED_HOSTS):
            return None, (400, error_body("bad_request", "That host is not served here.", {}), {})
        authorization = headers.get("authorization", "")
        meta = {"HTTP_AUTHORIZATION": authorization, "REMOTE_ADDR": client}
        if "x-forwarded-for" in headers:
            meta["HTTP_X_FORWARDED_FOR"] = headers["x-forwarded-for"]
        request = SimpleNamespace(headers={"authorization": authorization}, META=meta)
        try:
            found = ApiKeyAuthentication().authenticate(request)
            # The MCP endpoint has no DRF request or view: the limits read only `request.auth`.
            if found is not None:
                api_limits_check(SimpleNamespace(auth=found[1]))
        except LimitExceeded as exc:
            wait = max(1, int(exc.wait or 1))  # type: ignore[attr-defined]  # drf-stubs do not declare Throttled.wait
            body = error_body("throttled", f"{exc.sentence}; retry in {wait} seconds.", {"retry_after_seconds": wait})
            return None, (429, body, {"retry-after": str(wait)})
        except exceptions.AuthenticationFailed as exc:
            return None, (
                401,
                error_body("unauthenticated", str(exc.detail), {}),
                {"www-authenticate": 'Bearer realm="mcp"'},
            )
        if found is None:
            message = "Send a valid API key as 'Authorization: Bearer <key>'."
            return None, (401, error_body("unauthenticated", message, {}), {"www-authenticate": 'Bearer realm="mcp"'})
        key = found[1]
        return key, None
    finally:
        connections.close_all()


async def _answer(send, status: int, body: dict, headers: dict[str, str]) -> None:
    payload = json.dumps(body, ensure_ascii=False).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *[(k.encode(), v.encode()) for k, v in headers.items()],
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


class McpMount:
    def __init__(self, app):
        self.app = app
        self.server = build_mcp_server(tenant_of=_tenant_of_request)
        self.server.streamable_http_app(
            stateless_http=True,
            json_response=True,
            max_request_body_size=settings.API_MAX_REQUEST_BYTES,
            # The Host is checked against ALLOWED_HOSTS above (the SDK's own check only knows localhost), and a
            # DNS-rebinding page cannot send the tenant's Bearer key anyway.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self.manager = self.server.session_manager
        self._started = asyncio.Event()
        self._stop = asyncio.Event()
        self._start_lock = asyncio.Lock()
        self._runner: asyncio.Task | None = None

    async def _run_manager(self):
        async with self.manager.run():
            self._started.set()
            await self._stop.wait()

    async def _ensure_started(self):
        """Start the SDK's session manager once, in a task of its own that lives as long as the process: from the
        ASGI lifespan when the server sends one, else on the first MCP request (a wrapper that does not pass the
        lifespan on, or `uvicorn --lifespan off`, must not break /mcp/)."""
        if self._started.is_set():
            return
        async with self._start_lock:
            if self._runner is None:
                self._runner = asyncio.get_running_loop().create_task(self._run_manager())
        await asyncio.wait(
            {self._runner, asyncio.ensure_future(self._started.wait())}, return_when=asyncio.FIRST_COMPLETED
        )
        if self._runner.done():
            self._runner.result()  # it failed to start: raise that here

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http" and (scope["path"] == MCP_PATH or scope["path"].startswith(MCP_PATH + "/")):
            await self._mcp(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _lifespan(self, receive, send):
        message = await receive()
        if message["type"] != "lifespan.startup":
            return
        try:
            await self._ensure_started()
        except Exception as exc:  # noqa: BLE001 - uvicorn reports it and stops
            await send({"type": "lifespan.startup.failed", "message": str(exc)})
            return
        await send({"type": "lifespan.startup.complete"})
        while (await receive())["type"] != "lifespan.shutdown":
            pass
        self._stop.set()
        if self._runner is not None:  # started above (_ensure_started), or startup failed and returned
            await self._runner
        await send({"type": "lifespan.shutdown.complete"})

    async def _mcp(self, scope, receive, send):
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        client = (scope.get("client") or ("",))[0] or ""
        key, refusal = await sync_to_async(_check, thread_sensitive=False)(headers, client)
        if refusal is not None:
            await _answer(send, *refusal)
            return
        await self._ensure_started()
        scope = {**scope, "state": {**(scope.get("state") or {}), STATE_KEY: key}}
        await self.manager.handle_request(scope, receive, send)


def mcp_mount(app):
    """The ASGI app with `/mcp/` served by the MCP server and the rest by `app`."""
    return McpMount(app)
