"""Tools through the REST API (issue 41): registering an HTTP tool on 127.0.0.1, calling it in a chat turn (JSON
and stream), changing it (PATCH), the content-free log; a second tenant that can neither see, change nor reach
it; bad input refused whole."""

from __future__ import annotations

import json

import pytest

from tenancy.models import ChatSession, EndUser
from tests.api.conftest import error_of
from tests.api.test_chat import parse_sse
from tests.factories import AssistantFactory
from tests.openai_server import Scripted
from tests.tool_server import ToolServer
from tools.models import Tool
from webhooks.services import webhook_signature_verify

pytestmark = pytest.mark.django_db
TOOLS, CHAT = "/api/v1/tools/", "/api/v1/chat/"


@pytest.fixture
def tool_server():
    server = ToolServer()
    yield server
    server.stop()


def order_tool(kit, server) -> dict:
    response = kit.api.post(
        TOOLS,
        {
            "name": "order_status",
            "description": "The status of one of the user's orders.",
            "parameters": {"type": "object", "properties": {"order": {"type": "string"}}, "required": ["order"]},
            "url": server.url("/ok"),
            "timeout_seconds": 1,
            "assistants": [kit.assistant.pk],
        },
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_a_tool_is_called_in_a_turn_and_shown_in_json_and_stream(acme, scripted_llm, tool_server):
    tool = order_tool(acme, tool_server)
    assert tool["secret"].startswith("tlsec_") and tool["assistants"] == [acme.assistant.pk]
    acme.assistant.chat_model = "scripted-model"
    acme.assistant.save()
    ask = Scripted(tool_calls=[{"name": "order_status", "arguments": {"order": "A-1001"}}])
    scripted_llm.push("chat", ask, "Your order A-1001 has shipped.", ask, "Shipped, as before.")

    body = acme.api.post(CHAT, {"user": "alice", "message": "Where is my order A-1001?"}).json()

    [call] = body["tool_calls"]
    assert (call["name"], call["status"], call["arguments"]) == ("order_status", "ok", {"order": "A-1001"})
    assert json.loads(call["result"]) == {"echo": {"order": "A-1001"}} and call["duration_ms"] >= 0
    [request] = tool_server.requests
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert webhook_signature_verify(
        secret=tool["secret"], timestamp=headers["x-timestamp"], body=request["body"], signature=headers["x-signature"]
    )

    response = acme.api.post(CHAT, {"user": "alice", "message": "And now?", "session": body["session"], "stream": True})
    events = parse_sse(b"".join(response.streaming_content))
    kinds = [kind for kind, _ in events]
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("done")
    result = dict(events)["tool_result"]
    assert result["cached"] is True and len(tool_server.requests) == 1  # the same call in the same conversation
    assert dict(events)["done"]["tool_calls"][0]["name"] == "order_status"

    log = acme.api.get(f"{TOOLS}calls/").json()["results"]
    assert [(r["tool"], r["status"], r["user"]) for r in log] == [
        ("order_status", "cached", "alice"),
        ("order_status", "ok", "alice"),
    ]
    assert "A-1001" not in json.dumps(log)  # content-free


def test_another_tenant_can_neither_see_nor_reach_the_tool(acme, globex, scripted_llm, tool_server):
    tool = order_tool(acme, tool_server)
    assert globex.api.get(TOOLS).json()["results"] == []
    assert globex.api.get(f"{TOOLS}{tool['id']}/").status_code == 404
    assert globex.api.delete(f"{TOOLS}{tool['id']}/").status_code == 404
    assert globex.api.patch(f"{TOOLS}{tool['id']}/", {"url": "https://globex.example/steal"}).status_code == 404
    assert acme.api.get(f"{TOOLS}{tool['id']}/").json()["url"] == tool_server.url("/ok")

    refused = globex.api.post(CHAT, {"user": "mallory", "message": "A-1001?", "tool_choice": "order_status"})
    assert refused.status_code == 400 and error_of(refused)["code"] == "unknown_tool"
    assert not EndUser.objects.for_tenant(globex.tenant).exists()  # refused before anything was written
    assert not ChatSession.objects.for_tenant(globex.tenant).exists()

    globex.assistant.chat_model = "scripted-model"
    globex.assistant.save()
    scripted_llm.push("chat", Scripted(tool_calls=[{"name": "order_status", "arguments": {"order": "A-1"}}]), "no")
    body = globex.api.post(CHAT, {"user": "mallory", "message": "check order A-1"}).json()
    assert body["tool_calls"][0]["status"] == "unknown_tool"
    assert "order_status" not in [t["function"]["name"] for t in scripted_llm.chat_requests()[0]["tools"]]
    assert tool_server.requests == []
    assert acme.api.get(f"{TOOLS}{tool['id']}/").status_code == 200
    assert acme.api.get(f"{TOOLS}calls/").json()["results"] == []


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"parameters": {"type": "object", "properties": {"x": {"type": "nonsense"}}}}, "invalid_schema"),
        ({"url": "http://169.254.169.254/latest/meta-data"}, "url_not_public"),
        ({"name": "search_memory"}, "invalid_name"),
        ({"assistants": [999999]}, "invalid"),
    ],
)
def test_bad_tools_are_refused_with_a_sentence(acme, tool_server, change, code):
    body = {"name": "t", "description": "d", "url": tool_server.url("/ok"), **change}
    response = acme.api.post(TOOLS, body)
    assert response.status_code == 400 and error_of(response)["code"] == code
    assert acme.api.get(TOOLS).json()["results"] == []


def test_a_tool_is_changed_with_patch_and_keeps_its_name_and_secret(acme, tool_server):
    tool = order_tool(acme, tool_server)
    second = AssistantFactory.create(tenant=acme.tenant)
    change = {
        "description": "Where an order is now.",
        "parameters": {"type": "object", "properties": {"order": {"type": "string", "maxLength": 20}}},
        "url": tool_server.url("/v2"),
        "timeout_seconds": 10,
        "assistants": [second.pk],
    }
    response = acme.api.patch(f"{TOOLS}{tool['id']}/", change)

    assert response.status_code == 200, response.content
    shown = acme.api.get(f"{TOOLS}{tool['id']}/").json()
    assert {k: shown[k] for k in change} == change
    assert shown["name"] == "order_status" and "secret" not in shown
    assert Tool.objects.for_tenant(acme.tenant).get(pk=tool["id"]).secret == tool["secret"]


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"parameters": {"type": "object", "properties": {"x": {"type": "nonsense"}}}}, "invalid_schema"),
        ({"url": "http://169.254.169.254/latest/meta-data"}, "url_not_public"),
        ({"assistants": [999999]}, "invalid"),
        ({"timeout_seconds": 0}, "invalid"),
        ({"name": "renamed"}, "invalid"),
    ],
)
def test_a_bad_patch_changes_nothing(acme, globex, tool_server, change, code):
    tool = order_tool(acme, tool_server)
    before = acme.api.get(f"{TOOLS}{tool['id']}/").json()

    response = acme.api.patch(f"{TOOLS}{tool['id']}/", {"description": "Changed.", "assistants": [], **change})

    assert response.status_code == 400 and error_of(response)["code"] == code
    assert acme.api.get(f"{TOOLS}{tool['id']}/").json() == before


def test_a_patch_cannot_list_another_tenants_assistant(acme, globex, tool_server):
    tool = order_tool(acme, tool_server)
    response = acme.api.patch(f"{TOOLS}{tool['id']}/", {"assistants": [globex.assistant.pk]})
    assert response.status_code == 400 and error_of(response)["code"] == "invalid"
    assert acme.api.get(f"{TOOLS}{tool['id']}/").json()["assistants"] == [acme.assistant.pk]
