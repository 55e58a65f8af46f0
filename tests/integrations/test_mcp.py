"""The MCP server, through the official SDK's client, against a running web process (`/mcp/`) and the stdio
command: tools listed, remember -> recall round trips in Chinese and English, the REST API's scoping (another
user, another tenant), the PII guard, and bad keys refused."""

from __future__ import annotations

import re
import sys

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from memory.models import MemoryNote
from tests.conftest import ROOT, worker_env
from tests.integrations.mcp_client import mcp_client, tool_json

pytestmark = pytest.mark.django_db(transaction=True)

TOOLS = {"remember", "recall", "list_memories", "forget", "chat", "get_task_state", "export_user"}
CJK = re.compile(r"[\u4e00-\u9fff]")


def run(coroutine_fn):
    return anyio.run(coroutine_fn)


def test_tools_are_listed_with_english_and_chinese_descriptions(live_web, tenant_a):
    async def go():
        async with mcp_client(live_web.base, tenant_a.key) as client:
            return (await client.list_tools()).tools

    tools = run(go)
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert CJK.search(tool.description) and re.search(r"[A-Za-z]{4,}", tool.description), tool.name
        assert "user" in tool.input_schema["required"], tool.name


@pytest.mark.parametrize(
    "fact, query, expect",
    [
        ("I'm allergic to shellfish", "shellfish allergy", "shellfish"),
        ("我每天早上都喝燕麦拿铁", "早上喝什么", "燕麦拿铁"),
    ],
)
def test_remember_then_recall_round_trip_stays_with_its_user(live_web, tenant_a, tenant_b, fact, query, expect):
    async def go():
        async with mcp_client(live_web.base, tenant_a.key) as a, mcp_client(live_web.base, tenant_b.key) as b:
            stored = tool_json(await a.call_tool("remember", {"user": "mei-ling", "fact": fact}))
            mine = tool_json(await a.call_tool("recall", {"user": "mei-ling", "query": query, "k": 5}))
            # another user of the same tenant, who exists, and the same external_id in another tenant
            await a.call_tool("remember", {"user": "oskar", "fact": "I live in Gdansk"})
            other_user = tool_json(await a.call_tool("recall", {"user": "oskar", "query": query}))
            other_tenant = await b.call_tool("recall", {"user": "mei-ling", "query": query})
            return stored, mine, other_user, other_tenant

    stored, mine, other_user, other_tenant = run(go)
    assert stored["stored"] is True and stored["notes"][0]["user"] == "mei-ling"
    assert expect in stored["notes"][0]["content"]
    assert mine["results"] and expect in mine["results"][0]["content"]
    assert mine["results"][0]["id"] == stored["notes"][0]["id"]
    assert mine["results"][0]["relevant"] and mine["nothing_relevant"] is False
    assert all(expect not in item["content"] for item in other_user["results"])
    assert other_user["nothing_relevant"] is True  # Gdansk has nothing to do with the question
    assert other_tenant.is_error and tool_json(other_tenant)["error"]["code"] == "user_not_found"


def test_another_tenants_note_cannot_be_listed_forgotten_or_exported(live_web, tenant_a, tenant_b):
    async def go():
        async with mcp_client(live_web.base, tenant_a.key) as a, mcp_client(live_web.base, tenant_b.key) as b:
            note = tool_json(await a.call_tool("remember", {"user": "shared-id", "fact": "My budget is 90k"}))
            note_id = note["notes"][0]["id"]
            # tenant B has its own user with the same external_id
            await b.call_tool("remember", {"user": "shared-id", "fact": "我喜欢爬山"})
            listed = tool_json(await b.call_tool("list_memories", {"user": "shared-id"}))
            forgot = await b.call_tool("forget", {"user": "shared-id", "id": note_id})
            exported = tool_json(await b.call_tool("export_user", {"user": "shared-id"}))
            return note_id, listed, forgot, exported

    note_id, listed, forgot, exported = run(go)
    assert note_id not in [n["id"] for n in listed["results"]] and len(listed["results"]) == 1
    assert forgot.is_error and tool_json(forgot)["error"]["code"] == "not_found"
    assert MemoryNote.objects.for_tenant(tenant_a.tenant).get(pk=note_id).status == "active"
    assert "90k" not in str(exported) and "budget" not in str(exported) and "爬山" in str(exported)


def test_remember_applies_the_write_rules_repeat_change_and_whim(live_web, tenant_a):
    async def go():
        async with mcp_client(live_web.base, tenant_a.key) as a:
            said = [
                tool_json(await a.call_tool("remember", {"user": "wei", "fact": fact}))
                for fact in ("我的预算是10万", "我的预算是10万", "预算改成15万了", "I feel like pizza tonight")
            ]
            active = tool_json(await a.call_tool("list_memories", {"user": "wei"}))
            old = tool_json(await a.call_tool("list_memories", {"user": "wei", "status": "superseded"}))
            return said, active, old

    said, active, old = run(go)
    assert said[0]["outcomes"] == {"written": 1} and said[1]["outcomes"] == {"refreshed": 1}
    assert said[1]["notes"][0]["id"] == said[0]["notes"][0]["id"]  # one note, not two
    assert said[2]["outcomes"] == {"superseded": 1} and said[2]["notes"][0]["supersedes"] == said[0]["notes"][0]["id"]
    assert said[3]["stored"] is False and said[3]["dropped"] == {"whim": 1}
    assert [n["content"] for n in active["results"]] == ["用户的预算为 15 万元。"]
    assert [n["id"] for n in old["results"]] == [said[0]["notes"][0]["id"]]


def test_identifiers_are_refused_and_nothing_is_stored(live_web, tenant_a):
    async def go():
        async with mcp_client(live_web.base, tenant_a.key) as a:
            await a.call_tool("remember", {"user": "pii", "fact": "I prefer tea"})
            refused = await a.call_tool("remember", {"user": "pii", "fact": "我的手机号是13812345678"})
            listed = tool_json(await a.call_tool("list_memories", {"user": "pii", "status": "all"}))
            return refused, listed

    refused, listed = run(go)
    assert refused.is_error and tool_json(refused)["error"]["code"] == "pii_refused"
    assert [n["content"] for n in listed["results"]] == ["The user prefers tea."]
    assert "13812345678" not in str(listed)


def test_refused_calls_write_nothing(live_web, tenant_a):
    from tenancy.models import ChatSession, EndUser

    async def go():
        async with mcp_client(live_web.base, tenant_a.key) as a:
            return [
                await a.call_tool(name, args)
                for name, args in (
                    ("remember", {"user": "nul-user", "fact": "I am\x00 vegetarian"}),
                    ("remember", {"user": "..", "fact": "I am vegetarian"}),
                    ("remember", {"user": "pii-only", "fact": "my card is 4111 1111 1111 1111"}),
                    ("chat", {"user": "lost-session", "message": "hello", "session": 424242}),
                    ("chat", {"user": "nul-chat", "message": "hi\x00"}),
                    ("recall", {"user": "nobody-here", "query": "x\x00"}),
                )
            ]

    results = run(go)
    codes = [tool_json(r)["error"]["code"] for r in results]
    assert all(r.is_error for r in results) and codes == [
        "nul_character",
        "invalid",
        "pii_refused",
        "not_found",
        "nul_character",
        "nul_character",
    ]
    assert not EndUser.objects.for_tenant(tenant_a.tenant).exists()
    assert not ChatSession.objects.for_tenant(tenant_a.tenant).exists()


def test_forget_list_chat_tasks_and_export_work_for_the_user(live_web, tenant_a):
    async def go():
        async with mcp_client(live_web.base, tenant_a.key) as a:
            await a.call_tool("remember", {"user": "ines", "fact": "I prefer aisle seats on flights"})
            await a.call_tool("remember", {"user": "ines", "fact": "我对花生过敏"})
            listed = tool_json(await a.call_tool("list_memories", {"user": "ines", "limit": 1}))
            forgot = tool_json(await a.call_tool("forget", {"user": "ines", "query": "花生"}))
            after = tool_json(await a.call_tool("list_memories", {"user": "ines"}))
            reply = tool_json(await a.call_tool("chat", {"user": "ines", "message": "Which seat do I like?"}))
            asked = {"user": "ines", "message": "What do you remember about my seats?", "session": reply["session"]}
            reply["recalled"] = tool_json(
                await a.call_tool("chat", asked)
            )  # the offline model's memory tool (issue 41)
            tasks = tool_json(await a.call_tool("get_task_state", {"user": "ines"}))
            exported = tool_json(await a.call_tool("export_user", {"user": "ines"}))
            both = await a.call_tool("forget", {"user": "ines", "id": 1, "query": "x"})
            return listed, forgot, after, reply, tasks, exported, both

    listed, forgot, after, reply, tasks, exported, both = run(go)
    assert listed["count"] == 2 and len(listed["results"]) == 1 and listed["next_offset"] == 1
    assert [f["kind"] for f in forgot["forgotten"]] == ["constraint"]
    assert [n["content"] for n in after["results"]] == ["The user prefers aisle seats on flights."]
    assert reply["session"] and reply["reply"] and reply["user_message_id"]
    assert any("aisle" in m["content"] for m in reply["memories_used"])
    [call] = reply["recalled"]["tool_calls"]
    assert call["name"] == "search_memory" and call["status"] == "ok" and call["result"].startswith("1 found")
    assert "aisle" in reply["recalled"]["reply"]
    assert tasks == {"results": []}
    assert "Which seat do I like?" in str(exported) and "花生" not in str(exported)
    assert both.is_error and tool_json(both)["error"]["code"] == "invalid"


@pytest.mark.parametrize("header", [None, "Bearer not-a-key", "Basic abc", "Bearer"])
def test_a_bad_key_is_refused_before_any_tool_runs(live_web, tenant_a, header):
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if header:
        headers["Authorization"] = header
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "remember", "arguments": {"user": "x", "fact": "I am vegetarian"}},
    }
    response = httpx.post(f"{live_web.base}/mcp/", json=body, headers=headers, timeout=30)
    assert response.status_code == 401
    assert set(response.json()["error"]) == {"code", "message", "details"}
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert not MemoryNote.objects.unscoped().exists()


def test_a_revoked_key_is_refused_and_the_sdk_client_cannot_connect(live_web, tenant_a):
    from assistants.services.tenants import api_key_revoke
    from tenancy.models import ApiKey

    async def go():
        async with mcp_client(live_web.base, tenant_a.key) as a:
            return len((await a.list_tools()).tools)

    assert run(go) == len(TOOLS)  # the key works before it is revoked
    api_key_revoke(tenant=tenant_a.tenant, key=ApiKey.objects.for_tenant(tenant_a.tenant).get())
    response = httpx.post(
        f"{live_web.base}/mcp/",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Authorization": f"Bearer {tenant_a.key}", "Accept": "application/json, text/event-stream"},
        timeout=30,
    )
    assert response.status_code == 401 and "revoked" in response.json()["error"]["message"]
    # the SDK client's task groups wrap the server's refusal: one MCPError, however deeply nested
    with pytest.RaisesGroup(MCPError, flatten_subgroups=True):
        run(go)


def test_stdio_command_serves_the_tenant_given(openai_server, tenant_a, tenant_b):
    env = worker_env(openai_server)
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_server", "--tenant", tenant_a.tenant.slug],
        env=env,
        cwd=str(ROOT),
    )

    async def go():
        async with Client(params) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            stored = tool_json(await client.call_tool("remember", {"user": "desk", "fact": "我特别喜欢吃四川火锅"}))
            found = tool_json(await client.call_tool("recall", {"user": "desk", "query": "火锅"}))
            return names, stored, found

    names, stored, found = run(go)
    assert names == TOOLS
    assert stored["stored"] and any("火锅" in r["content"] for r in found["results"])
    assert MemoryNote.objects.for_tenant(tenant_b.tenant).count() == 0
    assert MemoryNote.objects.for_tenant(tenant_a.tenant).filter(end_user__external_id="desk").exists()


def test_mcp_requests_are_throttled_per_key_and_checked_against_allowed_hosts(tenant_a, tenant_b, settings):
    from django.core.cache import cache

    from mcp_api.asgi import _check

    cache.clear()
    settings.API_THROTTLE_RATE = "2/minute"
    a = {"host": "127.0.0.1:8000", "authorization": f"Bearer {tenant_a.key}"}
    assert _check(a)[0].tenant_id == tenant_a.tenant.pk and _check(a)[1] is None
    status, body, headers = _check(a)[1]
    assert status == 429 and body["error"]["code"] == "throttled" and int(headers["retry-after"]) >= 1
    assert _check({**a, "authorization": f"Bearer {tenant_b.key}"})[0].tenant_id == tenant_b.tenant.pk  # per key
    status, body, _ = _check({**a, "host": "evil.example.com"})[1]
    assert status == 400 and body["error"]["message"]


def test_the_mount_serves_without_an_asgi_lifespan(tenant_a):
    """A wrapper that does not pass the lifespan on (or `uvicorn --lifespan off`) must not break /mcp/: the SDK's
    session manager starts on the first request. In-process, through httpx's ASGI transport (no lifespan)."""
    from mcp_api.asgi import McpMount

    async def django_stand_in(scope, receive, send):
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def go():
        transport = httpx.ASGITransport(app=McpMount(django_stand_in))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            listed = await client.post(
                "/mcp/",
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                headers={"Authorization": f"Bearer {tenant_a.key}", "Accept": "application/json, text/event-stream"},
            )
            other = await client.get("/healthz")
            return listed, other

    listed, other = anyio.run(go)
    assert listed.status_code == 200, listed.text
    assert {t["name"] for t in listed.json()["result"]["tools"]} == TOOLS
    assert other.status_code == 204  # everything else goes to the wrapped app


def test_tool_calls_and_the_chat_tools_turn_are_metered_for_the_tenant_only(live_web, tenant_a, tenant_b):
    """issue 43: each MCP tool call counts as a tool call of the tenant, and the `chat` tool's turn as a turn; the
    web process writes them within USAGE_FLUSH_SECONDS (no Django request follows an MCP call)."""
    from tests.conftest import wait_for

    async def go():
        async with mcp_client(live_web.base, tenant_a.key) as a:
            await a.call_tool("recall", {"user": "ines", "query": "seat"})
            await a.call_tool("chat", {"user": "ines", "message": "Hello"})

    run(go)

    def by_model(key):
        response = httpx.get(
            f"{live_web.base}/api/v1/usage/", params={"group_by": "model"}, headers={"Authorization": f"Bearer {key}"}
        )
        return {row["group"]: row for row in response.json()["results"]}

    rows = wait_for(
        lambda: (lambda r: r if r.get("mcp", {}).get("tool_calls") == 2 else None)(by_model(tenant_a.key)),
        timeout=20,
        message="the MCP calls in usage",
    )
    assert rows["offline"]["turns"] == 1
    assert by_model(tenant_b.key) == {}
