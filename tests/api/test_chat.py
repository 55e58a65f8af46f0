"""POST /api/v1/chat/: the reply contract, sessions, isolation, streaming (WSGI and ASGI), idempotency."""

import json

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.test import AsyncClient

from api.models import IdempotencyRecord
from tenancy.models import ChatSession, Message
from tests.api.conftest import error_of
from tests.openai_server import Scripted

pytestmark = pytest.mark.django_db

CHAT = "/api/v1/chat/"


def parse_sse(raw: bytes) -> list[tuple[str, dict]]:
    events = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def test_chat_returns_the_reply_with_its_context_and_stores_both_messages(acme):
    response = acme.api.post(CHAT, {"user": "alice", "message": "我的预算大概 40 万"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert {"session", "message_id", "user_message_id", "reply", "memories_used", "context", "error"} <= set(body)
    assert {"summary", "pinned_facts", "memories", "task"} <= set(body["context"])
    assert body["error"] is None and body["reply"].strip()
    messages = Message.objects.for_tenant(acme.tenant).filter(session_id=body["session"]).order_by("id")
    assert [(m.role, m.pk) for m in messages] == [("user", body["user_message_id"]), ("assistant", body["message_id"])]
    assert messages[0].content == "我的预算大概 40 万"
    assert messages[1].content == body["reply"]
    assert messages[0].end_user.external_id == "alice"  # created on first use
    for item in body["memories_used"]:
        assert {"id", "kind", "content", "score"} <= set(item)


def test_passing_the_session_continues_it(acme):
    first = acme.api.post(CHAT, {"user": "alice", "message": "one"}).json()
    second = acme.api.post(CHAT, {"user": "alice", "message": "two", "session": first["session"]}).json()
    assert second["session"] == first["session"]
    assert Message.objects.for_tenant(acme.tenant).filter(session_id=first["session"]).count() == 4
    without = acme.api.post(CHAT, {"user": "alice", "message": "three"}).json()
    assert without["session"] != first["session"]


def test_another_users_or_tenants_session_is_404_and_nothing_is_stored(acme, globex):
    alice = acme.api.post(CHAT, {"user": "alice", "message": "mine"}).json()
    before = Message.objects.for_tenant(acme.tenant).count()
    response = acme.api.post(CHAT, {"user": "bob", "message": "let me in", "session": alice["session"]})
    assert response.status_code == 404
    missing = acme.api.post(CHAT, {"user": "alice", "message": "x", "session": alice["session"] + 1000})
    assert error_of(response)["code"] == error_of(missing)["code"] == "not_found"
    other = globex.api.post(CHAT, {"user": "alice", "message": "let me in", "session": alice["session"]})
    assert other.status_code == 404
    assert Message.objects.for_tenant(acme.tenant).count() == before
    assert Message.objects.for_tenant(globex.tenant).count() == 0


def test_assistant_choice_and_another_tenants_assistant(acme, globex):
    ok = acme.api.post(CHAT, {"user": "alice", "message": "hi", "assistant": acme.assistant.pk})
    assert ok.status_code == 200
    assert ChatSession.objects.for_tenant(acme.tenant).get(pk=ok.json()["session"]).assistant == acme.assistant
    response = acme.api.post(CHAT, {"user": "alice", "message": "hi", "assistant": globex.assistant.pk})
    assert response.status_code == 404 and "Assistant" in error_of(response)["message"]


def test_stream_true_sends_context_deltas_and_the_same_final_object(acme):
    response = acme.api.post(CHAT, {"user": "alice", "message": "stream me please", "stream": True})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    events = parse_sse(b"".join(response.streaming_content))
    kinds = [kind for kind, _ in events]
    # after `done` comes `memory`: what the turn changed in memory (issue 16; pending here: no worker runs)
    assert kinds[0] == "context" and kinds[-2:] == ["done", "memory"] and "delta" in kinds
    final = events[-2][1]
    assert "".join(data["text"] for kind, data in events if kind == "delta") == final["reply"]
    assert {"session", "message_id", "reply", "memories_used", "context"} <= set(final)
    stored = Message.objects.for_tenant(acme.tenant).get(pk=final["message_id"])
    assert stored.content == final["reply"]


def test_accept_event_stream_also_streams_and_errors_stay_json(acme):
    response = acme.api.post(CHAT, {"user": "alice", "message": "hello"}, headers={"Accept": "text/event-stream"})
    assert response["Content-Type"].startswith("text/event-stream")
    assert [kind for kind, _ in parse_sse(b"".join(response.streaming_content))][-2:] == ["done", "memory"]
    bad = acme.api.post(CHAT, {"user": "alice", "message": ""}, headers={"Accept": "text/event-stream"})
    assert bad.status_code == 400 and error_of(bad)["code"] == "invalid"


@pytest.mark.django_db(transaction=True)
def test_under_asgi_the_stream_is_an_async_iterator(acme):
    """Django buffers a sync iterator under ASGI (uvicorn); the API must hand it an async one."""
    import asyncio

    async def run():
        client = AsyncClient()
        response = await client.post(
            CHAT,
            {"user": "alice", "message": "async hello", "stream": True},
            content_type="application/json",
            headers={"Authorization": f"Bearer {acme.key}"},
        )
        assert response.is_async
        chunks = [chunk async for chunk in response.streaming_content]
        await sync_to_async(connections.close_all)()  # the request's sync thread is not the test's thread
        return response, chunks

    response, chunks = asyncio.run(run())
    assert len(chunks) >= 3  # context, deltas and done arrive as separate chunks, not one buffered body
    events = parse_sse(b"".join(chunks))
    assert events[0][0] == "context" and events[-2][0] == "done" and events[-1][0] == "memory"
    assert Message.objects.for_tenant(acme.tenant).filter(pk=events[-2][1]["message_id"]).exists()


def test_idempotency_key_returns_the_first_result_without_a_second_turn(acme):
    body = {"user": "alice", "message": "book the table"}
    first = acme.api.post(CHAT, body, headers={"Idempotency-Key": "req-1"})
    count = Message.objects.for_tenant(acme.tenant).count()
    again = acme.api.post(CHAT, body, headers={"Idempotency-Key": "req-1"})
    assert again.status_code == 200 and again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Message.objects.for_tenant(acme.tenant).count() == count == 2
    streamed = acme.api.post(CHAT, {**body}, headers={"Idempotency-Key": "req-1", "Accept": "text/event-stream"})
    assert parse_sse(b"".join(streamed.streaming_content))[0] == ("done", first.json())
    assert Message.objects.for_tenant(acme.tenant).count() == 2


def test_idempotency_key_with_another_body_is_409_and_keys_are_per_tenant(acme, globex):
    acme.api.post(CHAT, {"user": "alice", "message": "one"}, headers={"Idempotency-Key": "k"})
    reused = acme.api.post(CHAT, {"user": "alice", "message": "two"}, headers={"Idempotency-Key": "k"})
    assert reused.status_code == 409 and error_of(reused)["code"] == "idempotency_key_reused"
    other = globex.api.post(CHAT, {"user": "alice", "message": "one"}, headers={"Idempotency-Key": "k"})
    assert other.status_code == 200 and "Idempotent-Replayed" not in other
    assert Message.objects.for_tenant(globex.tenant).count() == 2


def test_streamed_turn_is_stored_for_idempotent_replay(acme):
    first = acme.api.post(CHAT, {"user": "alice", "message": "s", "stream": True}, headers={"Idempotency-Key": "s1"})
    final = parse_sse(b"".join(first.streaming_content))[-2][1]
    replay = acme.api.post(CHAT, {"user": "alice", "message": "s", "stream": True}, headers={"Idempotency-Key": "s1"})
    events = parse_sse(b"".join(replay.streaming_content))
    assert events[0] == ("done", final) and events[1][0] == "memory" and len(events) == 2
    assert events[1][1]["message_id"] == final["user_message_id"]
    assert IdempotencyRecord.objects.for_tenant(acme.tenant).get(key="s1").response_body == final


def test_failed_validation_does_not_burn_the_idempotency_key(acme):
    bad = acme.api.post(
        CHAT, {"user": "alice", "message": "hi", "session": 999999}, headers={"Idempotency-Key": "retry-me"}
    )
    assert bad.status_code == 404
    assert not IdempotencyRecord.objects.for_tenant(acme.tenant).filter(key="retry-me").exists()


def test_a_user_being_erased_gets_no_new_turn(acme):
    from django.utils import timezone

    user = acme.user("leaving")
    user.erasure_requested_at = timezone.now()
    user.save()
    response = acme.api.post(CHAT, {"user": "leaving", "message": "hi"})
    assert response.status_code == 409 and error_of(response)["code"] == "user_being_erased"
    assert Message.objects.for_tenant(acme.tenant).count() == 0


def test_model_failure_keeps_the_user_message_and_says_why(acme, scripted_llm):
    """The endpoint fails on every call: the turn still answers (the offline model's fallback) and says why."""
    acme.assistant.chat_model = "scripted-model"
    acme.assistant.save()
    scripted_llm.push("chat", *[Scripted(status=500)] * 40)  # the task router may call the model too
    response = acme.api.post(CHAT, {"user": "alice", "message": "are you there?"})
    body = response.json()
    assert response.status_code == 200
    assert body["error"] and body["reply"].startswith("(offline model)")
    assert any(r["path"].endswith("/chat/completions") for r in scripted_llm.requests)
    assert Message.objects.for_tenant(acme.tenant).get(pk=body["user_message_id"]).content == "are you there?"


def test_continuing_a_session_checks_its_user_erasure_and_spaces_as_a_new_one_does(acme, globex):
    """The continuing turn reads session, user and assistant in one statement (issue 22): same answers as before."""
    from django.utils import timezone

    first = acme.api.post(CHAT, {"user": "王芳", "message": "我住在杭州"}).json()
    again = acme.api.post(CHAT, {"user": " 王芳 ", "message": "还记得吗", "session": first["session"]})
    assert again.status_code == 200 and again.json()["session"] == first["session"]
    globex.api.post(CHAT, {"user": "王芳", "message": "another tenant's 王芳"})
    foreign = globex.api.post(CHAT, {"user": "王芳", "message": "let me in", "session": first["session"]})
    assert foreign.status_code == 404 and error_of(foreign)["code"] == "not_found"
    user = acme.user("王芳")
    user.erasure_requested_at = timezone.now()
    user.save()
    before = Message.objects.for_tenant(acme.tenant).count()
    leaving = acme.api.post(CHAT, {"user": "王芳", "message": "one more", "session": first["session"]})
    assert leaving.status_code == 409 and error_of(leaving)["code"] == "user_being_erased"
    assert Message.objects.for_tenant(acme.tenant).count() == before
