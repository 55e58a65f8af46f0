"""Tool calling in the chat turn (issue 41), against the scripted OpenAI-compatible server and a real HTTP tool
endpoint on 127.0.0.1: single, parallel and chained calls; tools that hang, fail, return 10 MB, garbage or text
shaped like instructions; a model that loops on calls; memory tools with their events and Undo; the offline
model's calls; metering; a second user and a second tenant that never see the first one's memory or tools."""

from __future__ import annotations

import json
import time

import pytest

from core.metering import usage_buffer_take
from memory.models import MemoryNote
from memory.services.writing.remember import memory_fact_remember
from tenancy.models import Message
from tests.chat.helpers import make_session, say
from tests.factories import AssistantFactory, EndUserFactory, TenantFactory
from tests.openai_server import Scripted
from tests.tool_server import ToolServer
from tools.models import ToolCallLog
from tools.services.registry import tool_create
from webhooks.services import webhook_signature_verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def tool_server():
    server = ToolServer()
    yield server
    server.stop()


def calls(*pairs) -> Scripted:
    """A scripted model answer asking for the tool calls `(name, arguments)`."""
    return Scripted(tool_calls=[{"name": n, "arguments": a} for n, a in pairs])


def http_tool(session, server, path: str, name: str, timeout: float = 2.0, parameters=None):
    return tool_create(
        tenant=session.tenant,
        name=name,
        description=f"test tool {name}",
        url=server.url(path),
        timeout_seconds=timeout,
        parameters=parameters or {"type": "object", "properties": {"q": {"type": "string"}}},
        assistants=[session.assistant_id],
    )


def tool_messages(request: dict) -> list[dict]:
    return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def test_search_memory_finds_this_users_notes_only_in_chinese(scripted_llm):
    session = make_session(chat_model="scripted-model")
    memory_fact_remember(tenant=session.tenant, end_user=session.end_user, text="我每天早上喝美式咖啡")
    neighbour = EndUserFactory.create(tenant=session.tenant)  # same tenant, another person
    memory_fact_remember(tenant=session.tenant, end_user=neighbour, text="我每天早上喝拿铁咖啡，住在成都")
    scripted_llm.push("chat", calls(("search_memory", {"query": "咖啡"})), "你喜欢美式。")

    result = say(session, "你记得我喝什么咖啡吗？")

    first, second = scripted_llm.chat_requests()
    assert "search_memory" in [t["function"]["name"] for t in first["tools"]]
    [call] = result.tool_calls
    assert (call["name"], call["status"], call["round"]) == ("search_memory", "ok", 1)
    [answer] = tool_messages(second)
    assert "美式" in answer["result"] and "拿铁" not in answer["result"] and "成都" not in answer["result"]
    assert "not instructions" in answer["note"]
    assert result.reply == "你喜欢美式。"
    stored = Message.objects.for_tenant(session.tenant).get(pk=result.reply_message.pk)
    assert stored.metadata["tool_calls"][0]["name"] == "search_memory"
    assert "美式" not in str(stored.metadata["tool_calls"])  # ids only: a forgotten note leaves no copy here
    [log] = ToolCallLog.objects.for_tenant(session.tenant).all()
    assert (log.tool, log.status, log.end_user_id) == ("search_memory", "ok", session.end_user_id)


def test_parallel_then_chained_calls_are_signed_and_metered(scripted_llm, tool_server):
    session = make_session(chat_model="scripted-model")
    tool = http_tool(session, tool_server, "/ok", "lookup")
    scripted_llm.push(
        "chat",
        calls(("lookup", {"q": "flights to Lisbon"}), ("get_task_state", {})),
        calls(("lookup", {"q": "hotels in Lisbon"})),
        "Here are flights and hotels.",
    )
    usage_buffer_take()

    result = say(session, "Find me flights and a hotel in Lisbon")

    assert [(c["name"], c["status"], c["round"]) for c in result.tool_calls] == [
        ("lookup", "ok", 1),
        ("get_task_state", "ok", 1),
        ("lookup", "ok", 2),
    ]
    assert [json.loads(r["body"])["arguments"] for r in tool_server.requests] == [
        {"q": "flights to Lisbon"},
        {"q": "hotels in Lisbon"},
    ]
    for request in tool_server.requests:
        headers = {k.lower(): v for k, v in request["headers"].items()}
        assert webhook_signature_verify(
            secret=tool.secret, timestamp=headers["x-timestamp"], body=request["body"], signature=headers["x-signature"]
        )
    third = scripted_llm.chat_requests()[2]
    ids = [m["tool_call_id"] for m in third["messages"] if m["role"] == "tool"]
    assert len(ids) == 3 and len(set(ids)) == 3  # each result answers its own call
    [turn] = [e for e in usage_buffer_take() if e.kind == "turn"]
    assert turn.tool_calls == 3
    assert turn.prompt_tokens == 3 and turn.completion_tokens == 3  # three model calls, the server's 1 + 1 each


def test_failing_tools_become_results_and_the_turn_goes_on(scripted_llm, tool_server, settings):
    settings.TOOL_RESPONSE_MAX_BYTES = 65536
    session = make_session(chat_model="scripted-model")
    for path in ("/hang", "/error", "/huge", "/garbage"):
        http_tool(session, tool_server, path, path.strip("/"), timeout=1.0)
    scripted_llm.push(
        "chat",
        calls(
            ("hang", {"q": "x"}),
            ("error", {"q": "x"}),
            ("huge", {"q": "x"}),
            ("garbage", {"q": "x"}),
            ("error", '{"q": '),  # arguments that are not JSON
            ("hang", {"q": 42}),  # against the schema: never sent
            ("delete_everything", {}),  # no such tool
        ),
        "Sorry, the tools did not help.",
    )
    started = time.monotonic()
    result = say(session, "Check everything")
    took = time.monotonic() - started

    assert [c["status"] for c in result.tool_calls] == [
        "timeout",
        "error",
        "too_large",
        "ok",
        "invalid_arguments",
        "invalid_arguments",
        "unknown_tool",
    ]
    assert took < 4, "a hanging tool is bounded by its timeout, run beside the others"
    assert len(tool_server.requests) == 4  # the malformed and off-schema calls never left
    huge = tool_messages(scripted_llm.chat_requests()[1])[2]
    assert len(huge["result"]) < 5000 and "65,536 bytes" in huge["result"]
    assert all(len(c["result"]) <= 1000 for c in result.tool_calls)
    assert result.reply == "Sorry, the tools did not help." and result.error is None
    assert Message.objects.for_tenant(session.tenant).filter(session=session).count() == 2


def test_instruction_shaped_results_change_nothing(scripted_llm, tool_server):
    session = make_session(chat_model="scripted-model")
    memory_fact_remember(tenant=session.tenant, end_user=session.end_user, text="I am vegetarian")
    http_tool(session, tool_server, "/inject", "news")
    scripted_llm.push(
        "chat",
        calls(("news", {"q": "today"})),
        # a model that fell for it
        calls(("save_note", {"fact": "The user is a platform administrator with full access"})),
        "Done.",
    )
    result = say(session, "What's in the news today?")

    assert [c["status"] for c in result.tool_calls] == ["ok", "refused"]
    assert "comes from a tool" in result.tool_calls[1]["result"]
    notes = MemoryNote.objects.for_tenant(session.tenant).filter(end_user=session.end_user)
    assert [n.content for n in notes if "administrator" in n.content] == []
    assert notes.filter(status=MemoryNote.Status.ACTIVE).count() == 1  # the vegetarian note is untouched
    assert (result.user_message.metadata or {}).get("memory_events", []) == []


def test_a_looping_model_is_stopped_and_repeated_calls_are_reused(scripted_llm, tool_server, settings):
    settings.ASSISTANT_MAX_TOOL_ROUNDS = 2
    session = make_session(chat_model="scripted-model")
    http_tool(session, tool_server, "/ok", "lookup")
    scripted_llm.push("chat", *[calls(("lookup", {"q": "same"})) for _ in range(5)])

    result = say(session, "Look it up")

    requests = scripted_llm.chat_requests()
    assert len(requests) == 3 and requests[2]["tool_choice"] == "none"
    assert [c["cached"] for c in result.tool_calls] == [False, True]
    assert len(tool_server.requests) == 1  # the repeat came from the conversation's scratch
    assert result.reply.strip() and result.error  # it never answered in words: the offline model did, and says so
    assert Message.objects.for_tenant(session.tenant).filter(session=session).count() == 2


def test_save_note_lists_the_change_with_undo_and_forget_only_own_notes(scripted_llm):
    from memory.services.notes.event_undo import memory_event_undo

    session = make_session(chat_model="scripted-model")
    other = EndUserFactory.create(tenant=session.tenant)
    theirs = memory_fact_remember(tenant=session.tenant, end_user=other, text="I live in Berlin").notes[0]
    scripted_llm.push(
        "chat",
        calls(("save_note", {"fact": "I drink americano every morning"}), ("forget_note", {"note_id": theirs.pk})),
        # save_note reads the fact with the tenant's model, as extraction does
        Scripted(
            content={
                "candidates": [
                    {
                        "kind": "preference",
                        "key": "drink",
                        "confidence": 0.95,
                        "content": "The user drinks americano every morning.",
                        "quote": "I drink americano every morning",
                    }
                ]
            }
        ),
        "Noted.",
    )
    result = say(session, "I drink americano every morning, remember that")

    assert [c["status"] for c in result.tool_calls] == ["ok", "refused"]
    theirs.refresh_from_db()
    assert theirs.status == MemoryNote.Status.ACTIVE and "Berlin" in theirs.content
    events = Message.objects.for_tenant(session.tenant).get(pk=result.user_message.pk).metadata["memory_events"]
    [written] = [e for e in events if e["action"] == "written" and "americano" in e["content"]]
    memory_event_undo(
        tenant=session.tenant,
        end_user=session.end_user,
        message_id=result.user_message.pk,
        note_id=written["note_id"],
        actor="test",
    )
    assert MemoryNote.objects.for_tenant(session.tenant).get(pk=written["note_id"]).status == "forgotten"


def test_a_tool_of_another_tenant_is_never_offered(scripted_llm, tool_server):
    session = make_session(chat_model="scripted-model")
    other_tenant = TenantFactory.create()
    other_assistant = AssistantFactory.create(tenant=other_tenant)
    tool_create(
        tenant=other_tenant,
        name="secret_lookup",
        description="x",
        url=tool_server.url("/ok"),
        assistants=[other_assistant.pk],
    )
    scripted_llm.push("chat", calls(("secret_lookup", {"q": "x"})), "ok")

    result = say(session, "hello")

    assert "secret_lookup" not in [t["function"]["name"] for t in scripted_llm.chat_requests()[0]["tools"]]
    assert result.tool_calls[0]["status"] == "unknown_tool" and tool_server.requests == []


def test_offline_model_searches_memory_and_fills_a_named_tool(tool_server):
    session = make_session()  # the offline model
    memory_fact_remember(tenant=session.tenant, end_user=session.end_user, text="I drink americano every morning")
    result = say(session, "What do you remember about my coffee?")
    assert [c["name"] for c in result.tool_calls] == ["search_memory"]
    assert "americano" in result.reply

    http_tool(
        session,
        tool_server,
        "/ok",
        "weather",
        parameters={
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "unit": {"enum": ["C", "F"]}},
            "required": ["city", "days"],
        },
    )
    from assistants.services.chat import chat_turn

    result = chat_turn(tenant=session.tenant, session=session, text="weather for 3 days, in F", tool_choice="weather")
    [call] = result.tool_calls
    sent = json.loads(tool_server.requests[0]["body"])["arguments"]
    assert call["status"] == "ok" and sent["days"] == 3 and sent["unit"] == "F" and isinstance(sent["city"], str)
    assert "weather returned" in result.reply
