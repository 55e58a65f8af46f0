"""The Python SDK (sdk/python) against the running web process: every OpenAPI operation has a method, every error
code an exception class; sync and async clients, pagination, streaming, idempotency, scoping; retries on 429/503
honouring Retry-After."""

from __future__ import annotations

import asyncio
import http.server
import re
import threading
import time
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.conftest import ROOT

pytestmark = pytest.mark.django_db(transaction=True)


def sdk():
    import memory_platform

    return memory_platform


# --- coverage ------------------------------------------------------------------------------------------------
def _schema_operations() -> set[str]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return {
        op["operationId"]
        for path in schema["paths"].values()
        for method, op in path.items()
        if method in ("get", "post", "put", "patch", "delete")
    }


def _sdk_operations(cls) -> set[str]:
    return {op for name in dir(cls) for op in getattr(getattr(cls, name), "operation_ids", ())}


def test_every_openapi_operation_has_a_method_in_both_clients():
    m = sdk()
    operations = _schema_operations()
    assert len(operations) >= 21
    for cls in (m.Client, m.AsyncClient):
        covered = _sdk_operations(cls)
        assert operations - covered == set(), f"{cls.__name__} has no method for these operations"
        assert covered - operations == set(), f"{cls.__name__} names operations the schema no longer has"


def test_every_error_code_the_server_uses_has_an_exception_class():
    from api.errors import STATUS_ERRORS

    codes = {code for code, _ in STATUS_ERRORS.values()}
    for folder in ("api", "assistants", "memory", "tasks", "tenancy", "core", "mcp_api", "webhooks", "usage"):
        for path in (ROOT / folder).rglob("*.py") if (ROOT / folder).exists() else ():
            if "migrations" in path.parts:
                continue
            text = Path(path).read_text(encoding="utf-8")
            codes |= set(re.findall(r"\bcode\s*=\s*\"([a-z_]+)\"", text))
            codes |= set(re.findall(r"error_body\(\"([a-z_]+)\"", text))
            codes |= set(re.findall(r"\bcode, message(?:, details)? = \"([a-z_]+)\"", text))
            codes |= set(re.findall(r"\b_?refuse\(send, \d+, \"([a-z_]+)\"", text))
    codes -= {"error"}
    missing = {code for code in codes if code not in sdk().errors.BY_CODE}
    assert not missing, f"no exception class for {sorted(missing)}"
    for code in codes:
        cls = sdk().errors.BY_CODE[code]
        err = cls("m", details={"a": 1})
        assert (err.code, err.message, err.details) == (code, "m", {"a": 1})


# --- against the live server --------------------------------------------------------------------------------
def test_sync_client_notes_pagination_recall_and_corrections(live_web, tenant_a, tenant_b):
    m = sdk()
    facts = [
        "The user is vegetarian.",
        "用户喜欢喝美式咖啡。",
        "The user's budget is about 150k.",
        "用户在杭州开了一家面馆。",
        "The user runs every morning.",
    ]
    with m.Client(live_web.base, tenant_a.key) as a, m.Client(live_web.base, tenant_b.key) as b:
        created = [a.add_memory("zoë", kind="profile", content=fact) for fact in facts]
        listed = list(a.list_memories("zoë", page_size=2))  # three pages
        assert [n["id"] for n in listed] == [n["id"] for n in reversed(created)]
        found = a.search_memories("zoë", "美式咖啡", k=3)
        assert found[0]["content"] == "用户喜欢喝美式咖啡。" and found[0]["score"] is not None
        assert any("面馆" in item["content"] for item in a.recall("zoë", "面馆"))
        note = created[2]
        corrected = a.update_memory(note["id"], user="zoë", content="The user's budget is about 200k.")
        assert "200k" in corrected["content"]
        assert a.get_memory(corrected["id"])["content"] == corrected["content"]
        assert a.memory_history(corrected["id"])
        a.forget_memory(created[0]["id"], user="zoë")
        assert a.get_memory(created[0]["id"])["status"] == "forgotten"
        assert [f["kind"] for f in a.forget_memories("zoë", "running every morning")] in (["profile"], [])
        # the other tenant: the same id is "not found", the user does not exist there
        with pytest.raises(m.errors.NotFound) as other:
            b.get_memory(created[1]["id"])
        assert other.value.status == 404 and other.value.message
        with pytest.raises(m.errors.UserNotFound) as unknown:
            b.recall("zoë", "咖啡")
        assert unknown.value.code == "user_not_found" and unknown.value.details == {}
        # another user of the same tenant cannot address zoë's note
        a.add_memory("yusuf", kind="profile", content="The user lives in Izmir.")
        with pytest.raises(m.errors.NotFound):
            a.get_memory(created[1]["id"], user="yusuf")


def test_sync_client_chat_stream_idempotency_sessions_feedback_export(live_web, tenant_a):
    m = sdk()
    with m.Client(live_web.base, tenant_a.key) as a:
        first = a.chat("lin", "我的预算大概 40 万", idempotency_key="order-7781")
        again = a.chat("lin", "我的预算大概 40 万", idempotency_key="order-7781")
        assert again["message_id"] == first["message_id"]  # replayed, not a second turn
        with pytest.raises(m.errors.IdempotencyKeyReused) as reused:
            a.chat("lin", "something else", idempotency_key="order-7781")
        assert reused.value.status == 409
        events = list(a.chat_stream("lin", "预算是多少？", session=first["session"]))
        assert [e.type for e in events][:1] + [e.type for e in events][-2:] == ["context", "done", "memory"]
        done = events[-2]
        streamed = "".join(e.text for e in events)
        assert streamed == done.data["reply"] and streamed
        assert events[-1].data["message_id"] == done.data["user_message_id"]
        assert a.memory_events(done.data["user_message_id"])["status"] in ("done", "pending")
        assert a.get_user("lin")["memory_enabled"] is True
        sessions = list(a.list_sessions("lin"))
        assert [s["id"] for s in sessions] == [first["session"]]
        messages = list(a.list_messages(first["session"], page_size=1))
        assert len(messages) == 4 and messages[0]["content"] == "我的预算大概 40 万"
        rated = a.feedback(done.data["message_id"], "up", comment="好", user="lin")
        assert rated["rating"] == "up"
        imported = a.import_session(
            "lin",
            [{"role": "user", "content": "I moved to Lisbon.", "created_at": "2025-03-01T09:00:00Z"}],
            title="old chat",
        )
        old = imported["session"]["id"]
        assert imported["message_ids"] and a.get_session(old, user="lin")["title"] == "old chat"
        a.delete_session(old, user="lin")
        with pytest.raises(m.errors.NotFound):
            a.get_session(old)
        exported = a.export_user("lin")
        assert "我的预算大概 40 万" in str(exported)
        assert list(a.list_tasks("lin")) == []
        assert [x["id"] for x in a.list_assistants()] == [tenant_a.assistant.pk]
        assert list(a.list_experiences(tenant_a.assistant.pk)) == []
        with pytest.raises(m.errors.InvalidInput) as invalid:
            a.add_memory("lin", kind="nonsense", content="x")
        assert "kind" in invalid.value.details["fields"]
        with pytest.raises(m.errors.NotFound):
            a.get_job(999999)


@pytest.mark.worker
def test_erase_user_job_is_followed_to_its_receipt(live_web, tenant_a, celery_worker):
    m = sdk()
    with m.Client(live_web.base, tenant_a.key) as a:
        a.add_memory("gone", kind="profile", content="The user is a pilot.")
        job = a.wait_for_job(a.erase_user("gone"), timeout=60)
        assert job["status"] == "succeeded" and job["receipt"]["counts"]
        with pytest.raises(m.errors.UserNotFound):
            a.recall("gone", "pilot")


def test_usage_and_quotas_through_the_sdk(live_web, tenant_a, tenant_b):
    """Over a real web process: a turn's usage is written once its response has gone (visible a moment later), a
    limit then refuses the next turn at once with QuotaExceeded (not retried), and the other tenant sees none of it."""
    from tests.conftest import wait_for

    m = sdk()
    with m.Client(live_web.base, tenant_a.key) as a, m.Client(live_web.base, tenant_b.key) as b:
        assert a.set_quotas({"user": {"turns_per_day": 1}})["quotas"] == {"user": {"turns_per_day": 1}}
        a.chat("alice", "hello")
        # the worker's extraction may flush its own model call (turns 0) before the web process flushes the turn
        rows = wait_for(
            lambda: [r for r in a.usage(group_by="user") if r["turns"]] or None, timeout=10, message="the turn's usage"
        )
        assert [(r["group"], r["turns"]) for r in rows] == [("alice", 1)]
        started = time.monotonic()
        with pytest.raises(m.errors.QuotaExceeded) as refused:
            a.chat("alice", "again")
        assert time.monotonic() - started < 5 and refused.value.retry_after > 0
        assert refused.value.details["limit"] == "user.turns_per_day"
        assert a.chat("bob", "hello")["reply"]
        assert list(b.usage(group_by="user")) == [] and b.get_quotas()["quotas"] == {}


def test_a_bad_key_raises_unauthenticated(live_web, tenant_a):
    m = sdk()
    with m.Client(live_web.base, "not-a-key") as bad:
        with pytest.raises(m.errors.Unauthenticated) as refused:
            bad.recall("anyone", "x")
    assert refused.value.status == 401 and "key" in refused.value.message


def test_async_client_lists_recalls_and_streams(live_web, tenant_a, tenant_b):
    m = sdk()

    async def go():
        async with m.AsyncClient(live_web.base, tenant_a.key) as a, m.AsyncClient(live_web.base, tenant_b.key) as b:
            for fact in ("用户每周三去游泳。", "The user has two cats.", "用户不吃辣。"):
                await a.add_memory("ren", kind="preference", content=fact)
            listed = [n async for n in a.list_memories("ren", page_size=2)]
            recalled = await a.recall("ren", "游泳")
            events = [e async for e in a.chat_stream("ren", "Do I have pets?")]
            try:
                await b.list_memories("ren").__anext__()
                other = None
            except m.errors.ApiError as exc:
                other = exc
            return listed, recalled, events, other

    listed, recalled, events, other = asyncio.run(go())
    assert len(listed) == 3
    assert "游泳" in recalled[0]["content"]
    assert [e.type for e in events][-2:] == ["done", "memory"]
    assert "".join(e.text for e in events) == events[-2].data["reply"]
    assert isinstance(other, sdk().errors.UserNotFound)


# --- retries (a small HTTP server that throttles, then answers) ------------------------------------------------
class _Flaky(http.server.BaseHTTPRequestHandler):
    plan: list = []
    seen: list = []

    def do_GET(self):  # http.server's name
        type(self).seen.append(time.monotonic())
        status, headers = type(self).plan.pop(0) if type(self).plan else (200, {})
        body = (
            b'{"query": "q", "results": []}'
            if status == 200
            else b'{"error": {"code": "throttled", "message": "Too many requests.", '
            b'"details": {"retry_after_seconds": 1}}}'
        )
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def flaky():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Flaky.plan, _Flaky.seen = [], []
    yield _Flaky, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_429_and_503_are_retried_after_retry_after(flaky):
    handler, base = flaky
    handler.plan = [(429, {"Retry-After": "1"}), (503, {"Retry-After": "0"}), (200, {})]
    with sdk().Client(base, "k", backoff_base=0.01) as client:
        assert client.recall("u", "q") == []
    assert len(handler.seen) == 3
    assert handler.seen[1] - handler.seen[0] >= 0.95  # waited the server's Retry-After


def test_retries_give_up_with_the_throttled_error(flaky):
    handler, base = flaky
    handler.plan = [(429, {"Retry-After": "0"})] * 3

    async def go():
        async with sdk().AsyncClient(base, "k", max_retries=2, backoff_base=0.01) as client:
            await client.recall("u", "q")

    with pytest.raises(sdk().errors.Throttled) as raised:
        asyncio.run(go())
    assert raised.value.retry_after == 1.0 and raised.value.code == "throttled"
    assert len(handler.seen) == 3  # the first try and two retries
