"""Python tools (ASSISTANT_PYTHON_TOOLS, issue 41) driven by the scripted model: offered only to the assistants
that list them; one that raises, one that returns what JSON cannot hold, and one that hangs each become a result
that says so, within the tool's timeout, and the turn goes on. Identifiers in a Python or HTTP tool's result never
reach the model."""

from __future__ import annotations

import json
import time

import pytest
from django.core.exceptions import ValidationError

from assistants.services.chat import chat_session_start
from tests.chat import python_tools_for_tests
from tests.chat.helpers import make_session, say
from tests.factories import AssistantFactory
from tests.openai_server import Scripted
from tests.tool_server import ToolServer
from tools.models import ToolCallLog
from tools.services.registry import tool_create

pytestmark = pytest.mark.django_db
MODULE = "tests.chat.python_tools_for_tests"
NAMES = ["order_total", "broken", "odd_values", "circular", "hang", "customer_card"]


@pytest.fixture
def python_tools(settings):
    settings.ASSISTANT_PYTHON_TOOLS = [f"{MODULE}.{name}" for name in NAMES]
    python_tools_for_tests.RELEASE.clear()
    yield
    python_tools_for_tests.RELEASE.set()


@pytest.fixture
def tool_server():
    server = ToolServer()
    yield server
    server.stop()


def session_with(*names):
    session = make_session(chat_model="scripted-model")
    session.assistant.python_tools = list(names)
    session.assistant.save()
    return session


def calls(*pairs) -> Scripted:
    return Scripted(tool_calls=[{"name": n, "arguments": a} for n, a in pairs])


def offered(request: dict) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools") or []}


def tool_results(request: dict) -> list[dict]:
    return [json.loads(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def test_python_tools_answer_fail_and_return_garbage_for_the_assistant_that_lists_them(scripted_llm, python_tools):
    session = session_with("order_total", "broken", "odd_values", "circular")
    scripted_llm.push(
        "chat",
        calls(
            ("order_total", {"order": "A-17"}),
            ("broken", {}),
            ("odd_values", {}),
            ("circular", {}),
            ("order_total", {}),  # against its schema: never run
        ),
        "Your order A-17 comes to 42.50 euros.",
    )

    result = say(session, "How much was order A-17?")

    first, second = scripted_llm.chat_requests()
    assert {"order_total", "broken", "odd_values", "circular"} <= offered(first)
    assert not {"hang", "customer_card"} & offered(first)  # configured, but this assistant does not list them
    described = {t["function"]["name"]: t["function"]["description"] for t in first["tools"]}
    assert described["order_total"] == "The total of one of the user's orders, in euros."
    assert [c["status"] for c in result.tool_calls] == ["ok", "error", "ok", "error", "invalid_arguments"]
    total, failed, odd, loop, _ = tool_results(second)
    assert json.loads(total["result"]) == {"order": "A-17", "total_eur": 42.5}
    assert failed["result"] == "The tool failed (RuntimeError)."
    assert "hunter2" not in json.dumps(scripted_llm.chat_requests()) and "hunter2" not in str(result.tool_calls)
    assert json.loads(odd["result"])["when"] == "2025-03-01"  # what JSON cannot hold is sent as text
    assert "cannot be read as JSON" in loop["result"]
    assert result.reply == "Your order A-17 comes to 42.50 euros." and result.error is None
    logged = ToolCallLog.objects.for_tenant(session.tenant).order_by("id")
    assert [(row.tool, row.kind, row.status) for row in logged][:2] == [
        ("order_total", "python", "ok"),
        ("broken", "python", "error"),
    ]

    # Another assistant of the same tenant lists none: it is offered none and cannot call one.
    other = chat_session_start(
        tenant=session.tenant, end_user=session.end_user, assistant=AssistantFactory.create(tenant=session.tenant)
    )
    other.assistant.chat_model = "scripted-model"
    other.assistant.save()
    scripted_llm.reset()
    scripted_llm.push("chat", calls(("order_total", {"order": "A-17"})), "I cannot look that up.")
    result = say(other, "How much was order A-17?")
    assert not set(NAMES) & offered(scripted_llm.chat_requests()[0])
    assert result.tool_calls[0]["status"] == "unknown_tool"


def test_an_assistant_lists_only_configured_python_tools(python_tools):
    assistant = AssistantFactory.create(python_tools=["order_total", "rm_rf"])
    with pytest.raises(ValidationError, match="rm_rf"):
        assistant.full_clean()


def test_a_hanging_python_tool_is_reported_at_its_timeout(scripted_llm, python_tools):
    session = session_with("hang", "order_total")
    scripted_llm.push("chat", calls(("hang", {}), ("order_total", {"order": "B-2"})), "The lookup timed out.")

    started = time.monotonic()
    result = say(session, "Check order B-2")
    took = time.monotonic() - started

    assert [c["status"] for c in result.tool_calls] == ["timeout", "ok"]
    assert took < 2.5, "the hanging tool's 1 s timeout bounds the round"
    assert tool_results(scripted_llm.chat_requests()[1])[0]["result"] == "The tool did not finish within 1 s."
    assert result.reply == "The lookup timed out."


def test_identifiers_in_a_tool_result_never_reach_the_model(scripted_llm, python_tools, tool_server):
    session = session_with("customer_card")
    tool_create(
        tenant=session.tenant,
        name="lookup",
        description="Looks a customer up.",
        url=tool_server.url("/ok"),
        assistants=[session.assistant_id],
    )
    scripted_llm.push(
        "chat",
        calls(("customer_card", {}), ("lookup", {"q": "write to bo.li@example.org or call 13812345678"})),
        "Ana is on the gold plan.",
    )
    result = say(session, "Which plan is the customer on?")

    sent = json.dumps(scripted_llm.chat_requests()[1], ensure_ascii=False)
    for identifier in ("ana.souza@example.com", "7700 900123"):
        assert identifier not in sent and identifier not in json.dumps(result.tool_calls)
    card, echoed = tool_results(scripted_llm.chat_requests()[1])
    for identifier in ("bo.li@example.org", "13812345678"):  # the model wrote them in its call; the echo is redacted
        assert identifier not in echoed["result"]
    assert "write to" in echoed["result"]
    card = json.loads(card["result"])
    assert (card["name"], card["plan"]) == ("Ana", "gold")  # the rest of the result is intact
    assert [c["status"] for c in result.tool_calls] == ["ok", "ok"]
