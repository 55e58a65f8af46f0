"""The official MCP SDK's client against the live web process (streamable HTTP, Bearer key)."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


@asynccontextmanager
async def mcp_client(base_url: str, key: str | None):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(streamable_http_client(f"{base_url}/mcp/", http_client=http)) as client:
            yield client


def tool_json(result) -> dict:
    """A tool's answer (or its error body) as JSON."""
    text = "".join(getattr(c, "text", "") for c in result.content)
    return json.loads(text)
