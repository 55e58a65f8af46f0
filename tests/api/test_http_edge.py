"""Hostile input at the API's edge, in process: deep JSON is a 400 in the usual shape, a refused request (4xx) and
an idempotent replay write nothing, a user being erased always gets 409 user_being_erased, and user ids with
characters that need encoding are addressable. (Body size and ids with '/' are tested against uvicorn in
tests/reliability/test_http_edge.py: they live in the ASGI layer.)"""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from django.utils import timezone

from api.models import IdempotencyRecord
from memory.models import MemoryNote
from tenancy.models import ChatSession, EndUser, Message
from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db
CHAT = "/api/v1/chat/"


def rows(tenant) -> dict:
    return {
        "users": EndUser.objects.for_tenant(tenant).count(),
        "sessions": ChatSession.objects.for_tenant(tenant).count(),
        "messages": Message.objects.for_tenant(tenant).count(),
        "notes": MemoryNote.objects.for_tenant(tenant).count(),
        "idempotency": IdempotencyRecord.objects.for_tenant(tenant).count(),
    }


# --- JSON depth ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        "[" * 100_000,  # unterminated: refused before it could be reported as malformed
        '{"a":' * 50_000,
        "[" * 65 + "]" * 65,  # well-formed, one level too deep
        json.dumps({"user": "u", "message": "深", "x": [{"y": [[[[[[[]]]]]]]}]})
        .replace("[[", "[" * 60 + "[[")
        .replace("]]", "]]" + "]" * 60),  # deep inside an ordinary body
    ],
)
def test_deeply_nested_json_is_a_400_not_a_crash(acme, raw):
    before = rows(acme.tenant)
    response = acme.api.post(CHAT, raw=raw)
    assert response.status_code == 400, response.content[:300]
    error = error_of(response)
    assert error["code"] == "json_too_deep" and "64 levels" in error["message"]
    assert error["details"] == {"max_depth": 64}
    assert rows(acme.tenant) == before


def test_nesting_up_to_the_limit_is_parsed_as_usual(acme):
    nested = "[" * 63 + "]" * 63  # 63 levels inside the body object: 64 in all
    response = acme.api.post(CHAT, raw='{"user": "深度", "message": "hi", "stream": ' + nested + "}")
    # Parsed (not refused for depth): the value is simply the wrong type for "stream".
    assert response.status_code == 400 and error_of(response)["code"] == "invalid"
    assert "stream" in error_of(response)["details"]["fields"]


def test_the_depth_limit_is_a_setting(acme, settings):
    settings.JSON_MAX_DEPTH = 3
    assert acme.api.post(CHAT, raw='{"user": "u", "message": "m", "stream": [[1]]}').status_code == 400
    assert (
        error_of(acme.api.post(CHAT, raw='{"user": "u", "message": "m", "stream": [[[1]]]}'))["code"] == "json_too_deep"
    )


# --- A refused request writes nothing --------------------------------------------------------------------------


def test_an_idempotent_replay_writes_nothing(acme):
    body = {"user": "replayer", "message": "订一张去上海的票"}
    first = acme.api.post(CHAT, body, headers={"Idempotency-Key": "once"})
    assert first.status_code == 200
    before = rows(acme.tenant)
    for accept in ("application/json", "text/event-stream"):
        again = acme.api.post(CHAT, body, headers={"Idempotency-Key": "once", "Accept": accept})
        assert again.status_code == 200 and again["Idempotent-Replayed"] == "true"
    assert rows(acme.tenant) == before


def test_a_reused_idempotency_key_writes_nothing_not_even_a_new_user(acme, globex):
    acme.api.post(CHAT, {"user": "first-user", "message": "one"}, headers={"Idempotency-Key": "shared"})
    before = rows(acme.tenant)
    reused = acme.api.post(CHAT, {"user": "brand-new-user", "message": "two"}, headers={"Idempotency-Key": "shared"})
    assert reused.status_code == 409 and error_of(reused)["code"] == "idempotency_key_reused"
    assert rows(acme.tenant) == before
    assert not EndUser.objects.for_tenant(acme.tenant).filter(external_id="brand-new-user").exists()
    # Keys are per tenant: the other tenant's same key is a fresh request of its own.
    assert (
        globex.api.post(
            CHAT, {"user": "brand-new-user", "message": "two"}, headers={"Idempotency-Key": "shared"}
        ).status_code
        == 200
    )


def test_a_404_for_another_users_session_creates_no_user(acme, globex):
    alice = acme.api.post(CHAT, {"user": "alice", "message": "我的秘密计划"}).json()
    before = rows(acme.tenant)
    for user in ("mallory", "alice-2", "陌生人"):
        response = acme.api.post(
            CHAT,
            {"user": user, "message": "let me in", "session": alice["session"]},
            headers={"Idempotency-Key": f"k-{user}"},
        )
        assert response.status_code == 404 and error_of(response)["code"] == "not_found"
    # The same answer as a session that does not exist for an existing user: nothing tells them apart.
    missing = acme.api.post(CHAT, {"user": "alice", "message": "x", "session": alice["session"] + 999})
    assert error_of(missing)["message"].replace(str(alice["session"] + 999), "N") == error_of(response)[
        "message"
    ].replace(str(alice["session"]), "N")
    other_tenant = globex.api.post(CHAT, {"user": "alice", "message": "x", "session": alice["session"]})
    assert other_tenant.status_code == 404
    assert rows(acme.tenant) == before and rows(globex.tenant)["users"] == 0


def test_a_404_for_another_tenants_assistant_creates_no_user_or_session(acme, globex):
    before = rows(acme.tenant)
    response = acme.api.post(CHAT, {"user": "newcomer", "message": "hi", "assistant": globex.assistant.pk})
    assert response.status_code == 404
    imported = acme.api.post(
        "/api/v1/users/newcomer/sessions/",
        {
            "assistant": globex.assistant.pk,
            "messages": [{"role": "user", "content": "hello", "created_at": "2025-03-01T09:00:00Z"}],
        },
    )
    assert imported.status_code == 404
    assert rows(acme.tenant) == before


def test_an_import_the_service_refuses_leaves_no_new_user(acme):
    before = rows(acme.tenant)
    response = acme.api.post(
        f"/api/v1/users/{quote('导入 用户')}/sessions/",
        {
            "messages": [
                {"role": "user", "content": "later", "created_at": "2025-03-02T09:00:00Z"},
                {"role": "assistant", "content": "earlier", "created_at": "2025-03-01T09:00:00Z"},
            ]
        },
    )
    assert response.status_code == 400 and "chronological" in error_of(response)["message"]
    assert rows(acme.tenant) == before


# --- Erasure: always 409 -------------------------------------------------------------------------------------


def test_a_user_being_erased_always_gets_409(acme):
    turn = acme.api.post(CHAT, {"user": "leaving", "message": "我要注销账号"}).json()
    bob = acme.api.post(CHAT, {"user": "bob", "message": "I stay"}).json()
    EndUser.objects.for_tenant(acme.tenant).filter(external_id="leaving").update(erasure_requested_at=timezone.now())
    before = rows(acme.tenant)
    attempts = [
        acme.api.post(CHAT, {"user": "leaving", "message": "one more"}),
        acme.api.post(CHAT, {"user": "leaving", "message": "one more", "session": turn["session"]}),
        acme.api.post("/api/v1/users/leaving/memories/", {"kind": "preference", "content": "Likes tea."}),
        acme.api.post(
            "/api/v1/users/leaving/sessions/",
            {"messages": [{"role": "user", "content": "hello", "created_at": "2025-03-01T09:00:00Z"}]},
        ),
    ]
    # Mid-erasure the sessions are already gone: still 409, not the 404 of a missing session.
    ChatSession.objects.for_tenant(acme.tenant).filter(pk=turn["session"]).delete()
    attempts.append(acme.api.post(CHAT, {"user": "leaving", "message": "again", "session": turn["session"]}))
    for response in attempts:
        assert response.status_code == 409 and error_of(response)["code"] == "user_being_erased", response.content
    after = rows(acme.tenant)
    assert after["users"] == before["users"] and after["notes"] == before["notes"]
    # Bob, in the same tenant, is unaffected.
    assert acme.api.post(CHAT, {"user": "bob", "message": "still here", "session": bob["session"]}).status_code == 200


def test_a_turn_racing_the_erasure_flag_gets_409(acme):
    """The turn itself re-checks under the user's row lock (the flag may land after the view looked)."""
    from assistants.services.chat import chat_session_start, chat_turn
    from core.exceptions import Conflict

    user = acme.user("racer")
    session = chat_session_start(tenant=acme.tenant, end_user=user)
    EndUser.objects.for_tenant(acme.tenant).filter(pk=user.pk).update(erasure_requested_at=timezone.now())
    with pytest.raises(Conflict) as refused:
        chat_turn(tenant=acme.tenant, session=session, text="hello")
    assert refused.value.code == "user_being_erased" and refused.value.status == 409


# --- User ids that need encoding ----------------------------------------------------------------------------


@pytest.mark.parametrize("external_id", ["50%off", "what?", "a#b", "two words", "李雷", "ünïcödé", "%41", "a+b"])
def test_ids_that_need_encoding_reach_every_endpoint(acme, globex, external_id):
    assert acme.api.post(CHAT, {"user": external_id, "message": f"hello, I am {external_id}"}).status_code == 200
    globex.api.post(CHAT, {"user": external_id, "message": "other tenant's twin"})
    base = f"/api/v1/users/{quote(external_id, safe='')}"
    sessions = acme.api.get(f"{base}/sessions/").json()["results"]
    assert [s["user"] for s in sessions] == [external_id]
    assert acme.api.post(f"{base}/memories/", {"kind": "preference", "content": "Prefers email."}).status_code == 201
    assert [n["user"] for n in acme.api.get(f"{base}/memories/").json()["results"]] == [external_id]
    export = acme.api.get(f"{base}/export/")
    content = b"".join(export.streaming_content) if export.streaming else export.content
    assert export.status_code == 200 and f"hello, I am {external_id}".encode() in content
    assert b"other tenant's twin" not in content
    assert acme.api.delete(f"{base}/").status_code == 202
    assert EndUser.objects.for_tenant(acme.tenant).get(external_id=external_id).erasure_requested_at
    assert EndUser.objects.for_tenant(globex.tenant).get(external_id=external_id).erasure_requested_at is None


@pytest.mark.parametrize("external_id", [".", "..", "bad\x07bell", "x" * 201])
def test_ids_that_cannot_be_addressed_are_refused_at_creation_saying_what_is_allowed(acme, external_id):
    before = rows(acme.tenant)
    response = acme.api.post(CHAT, {"user": external_id, "message": "hi"})
    assert response.status_code == 400 and "user" in error_of(response)["message"]
    if external_id in (".", ".."):
        assert "percent-encode" in error_of(response)["message"]  # the rule, with the encoding to use
    assert rows(acme.tenant) == before


# --- /healthz ------------------------------------------------------------------------------------------------


def test_healthz_tells_the_public_only_the_status(client, django_user_model, settings):
    settings.HEALTH_TOKEN = "h3alth-t0ken-for-monitoring"
    public = client.get("/healthz")
    assert public.status_code in (200, 503) and set(public.json()) == {"status"}
    assert public["Cache-Control"].startswith("max-age=0")
    for headers in (
        {"Authorization": "Bearer wrong-token"},
        {"X-Health-Token": "h3alth"},
        {"Authorization": "Basic h3alth-t0ken-for-monitoring"},
    ):
        assert set(client.get("/healthz", headers=headers).json()) == {"status"}
    # A logged-in end user of the web chat is not staff: status only.
    member = django_user_model.objects.create_user("member", password="pw-member-123")
    client.force_login(member)
    assert set(client.get("/healthz").json()) == {"status"}
    for headers in (
        {"Authorization": "Bearer h3alth-t0ken-for-monitoring"},
        {"X-Health-Token": "h3alth-t0ken-for-monitoring"},
    ):
        detailed = client.get("/healthz", headers=headers).json()
        assert detailed["database"]["version"] and detailed["pgvector"]["ok"] and "worker" in detailed
    settings.HEALTH_TOKEN = ""  # no token configured: an empty bearer is not a match
    assert set(client.get("/healthz", headers={"Authorization": "Bearer "}).json()) == {"status"}


def test_healthz_gives_staff_every_part(admin_client):
    body = admin_client.get("/healthz").json()
    assert {"status", "database", "pgvector", "broker", "worker"} <= set(body)
