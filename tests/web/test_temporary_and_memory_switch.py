"""Temporary chats and the memory switch are enforced by the chat turn, not only shown by the UI: nothing is
written to long-term memory or experiences and nothing is recalled; the session goes when its time is up. Checked
through the web chat and the REST API, with a second user and a second tenant."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from assistants.services.chat import chat_session_start, chat_turn
from assistants.services.feedback import feedback_record
from assistants.services.sessions import sessions_temporary_purge
from assistants.services.tenants import api_key_create
from core.policy import memory_policy_for
from memory.models import AuditLog, MemoryNote
from memory.services.notes.notes import memory_note_create
from tenancy.models import ChatSession, EndUser, Message
from tests.api.conftest import Api
from tests.conftest import wait_for


def remember(end_user, content, kind="profile"):
    return memory_note_create(
        tenant=end_user.tenant,
        end_user=end_user,
        kind=kind,
        content=content,
        source="user_stated",
        policy=memory_policy_for(tenant=end_user.tenant),
    )


def recalled(result) -> str:
    return " ".join(m.content for m in result.context.memories)


def new_web_session(client, *, temporary: bool) -> ChatSession:
    response = client.post(reverse("web:chat_new"), {"temporary": "1"} if temporary else {})
    assert response.status_code == 302
    session_id = int(response["Location"].rstrip("/").split("/")[-1])
    return ChatSession.objects.unscoped().get(pk=session_id)


@pytest.mark.django_db
def test_temporary_chat_recalls_nothing_and_says_so(make_person):
    alice, client = make_person(username="alice_tmp")
    bob, bob_client = make_person(tenant=alice.tenant, username="bob_tmp")
    remember(alice, "The user lives in Hangzhou.")
    remember(bob, "The user lives in Xiamen.")
    normal = new_web_session(client, temporary=False)
    assert "Hangzhou" in recalled(chat_turn(tenant=alice.tenant, session=normal, text="Where do I live?"))

    before = timezone.now()
    temporary = new_web_session(client, temporary=True)
    assert temporary.temporary and not normal.temporary
    ttl = timedelta(hours=alice.tenant.temporary_chat_ttl_hours)
    assert before + ttl <= temporary.expires_at <= timezone.now() + ttl
    result = chat_turn(tenant=alice.tenant, session=temporary, text="我住在哪里？Where do I live?")
    assert result.context.memories == [] and "Hangzhou" not in result.reply
    stored = Message.objects.for_tenant(alice.tenant).get(pk=result.reply_message.pk)
    assert stored.metadata["context"]["memories"] == []
    page = client.get(reverse("web:chat", args=[temporary.pk])).content.decode()
    assert 'id="temporary-notice"' in page and "24 hours" in page
    # Bob's ordinary chat is untouched by Alice's temporary one.
    bob_session = new_web_session(bob_client, temporary=False)
    assert "Xiamen" in recalled(chat_turn(tenant=bob.tenant, session=bob_session, text="Where do I live?"))


@pytest.mark.django_db
def test_memory_switch_in_the_web_stops_recall_but_pinned_facts_still_work(make_person):
    alice, client = make_person(username="alice_sw", language="zh-hans")
    bob, _ = make_person(tenant=alice.tenant, username="bob_sw")
    remember(alice, "用户喜欢喝乌龙茶。", kind="preference")
    remember(bob, "用户喜欢喝乌龙茶。", kind="preference")
    assert client.post(reverse("web:memory_switch"), {"enabled": "maybe"}).status_code == 302
    assert EndUser.objects.for_tenant(alice.tenant).get(pk=alice.pk).memory_enabled  # bad input changes nothing

    response = client.post(reverse("web:memory_switch"), {"enabled": "off"}, follow=True)
    assert "记忆已关闭" in response.content.decode() and "打开记忆" in response.content.decode()
    assert not EndUser.objects.for_tenant(alice.tenant).get(pk=alice.pk).memory_enabled
    assert EndUser.objects.for_tenant(bob.tenant).get(pk=bob.pk).memory_enabled
    switched = AuditLog.objects.for_tenant(alice.tenant).get(action="memory_switch")
    assert switched.actor == f"user:{alice.external_id}" and switched.after == {"memory_enabled": False}
    alice.refresh_from_db()
    session = chat_session_start(tenant=alice.tenant, end_user=alice)
    chat_turn(tenant=alice.tenant, session=session, text="这次开店预算是 30 万。")
    result = chat_turn(tenant=alice.tenant, session=session, text="我喜欢喝什么茶？预算多少？")
    assert result.context.memories == []
    assert "30 万" in json.dumps(result.context.pinned_facts, ensure_ascii=False)  # the conversation's own facts
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert 'id="memory-off-notice"' in page

    bob_session = chat_session_start(tenant=bob.tenant, end_user=bob)
    assert "乌龙茶" in recalled(chat_turn(tenant=bob.tenant, session=bob_session, text="我喜欢喝什么茶？"))
    client.post(reverse("web:memory_switch"), {"enabled": "on"})
    alice.refresh_from_db()
    assert "乌龙茶" in recalled(chat_turn(tenant=alice.tenant, session=session, text="我喜欢喝什么茶？"))


@pytest.mark.django_db
def test_no_experience_is_learnt_from_a_temporary_or_memory_off_reply(make_person, django_capture_on_commit_callbacks):
    alice, _ = make_person(username="alice_exp")
    normal = chat_turn(
        tenant=alice.tenant,
        session=chat_session_start(tenant=alice.tenant, end_user=alice),
        text="Translate 'good morning' into French.",
    )
    temporary = chat_turn(
        tenant=alice.tenant,
        text="Translate 'good night' into French.",
        session=chat_session_start(tenant=alice.tenant, end_user=alice, temporary=True),
    )
    with django_capture_on_commit_callbacks(execute=False) as scheduled:
        feedback_record(tenant=alice.tenant, end_user=alice, message_id=normal.reply_message.pk, rating="up")
    assert len(scheduled) == 1  # the experience job, for an ordinary reply
    with django_capture_on_commit_callbacks(execute=False) as scheduled:
        feedback_record(tenant=alice.tenant, end_user=alice, message_id=temporary.reply_message.pk, rating="up")
    assert scheduled == []
    alice.memory_enabled = False
    alice.save(update_fields=["memory_enabled"])
    with django_capture_on_commit_callbacks(execute=False) as scheduled:
        feedback_record(tenant=alice.tenant, end_user=alice, message_id=normal.reply_message.pk, rating="up")
    assert scheduled == []


@pytest.mark.django_db(transaction=True)
@pytest.mark.worker
def test_nothing_is_extracted_from_temporary_or_memory_off_turns(celery_worker, make_person):
    alice, client = make_person(username="alice_ext")
    temporary = new_web_session(client, temporary=True)
    chat_turn(tenant=alice.tenant, session=temporary, text="I am allergic to peanuts.")
    client.post(reverse("web:memory_switch"), {"enabled": "off"})
    alice.refresh_from_db()
    normal = new_web_session(client, temporary=False)
    chat_turn(tenant=alice.tenant, session=normal, text="My favourite colour is teal.")
    client.post(reverse("web:memory_switch"), {"enabled": "on"})
    alice.refresh_from_db()
    chat_turn(tenant=alice.tenant, session=normal, text="I live in Chengdu.")

    def notes():
        return " ".join(
            MemoryNote.objects.for_tenant(alice.tenant).filter(end_user=alice).values_list("content", flat=True)
        )

    wait_for(lambda: "Chengdu" in notes(), timeout=120, message="the note from the ordinary turn")
    assert "peanut" not in notes().lower() and "teal" not in notes().lower()
    unindexed = Message.objects.for_tenant(alice.tenant).filter(
        content__in=["I am allergic to peanuts.", "My favourite colour is teal."]
    )
    assert unindexed.count() == 2 and set(unindexed.values_list("search_vector", flat=True)) == {""}


@pytest.mark.django_db
def test_an_expired_temporary_chat_is_hidden_refused_and_purged(make_person):
    alice, client = make_person(username="alice_exp2")
    carol, _ = make_person(username="carol_exp2")  # another tenant
    expired = new_web_session(client, temporary=True)
    chat_turn(tenant=alice.tenant, session=expired, text="Something private for a moment.")
    live = new_web_session(client, temporary=True)
    kept = new_web_session(client, temporary=False)
    carol_expired = chat_session_start(tenant=carol.tenant, end_user=carol, temporary=True)
    past = timezone.now() - timedelta(minutes=1)
    ChatSession.objects.unscoped().filter(pk__in=[expired.pk, carol_expired.pk]).update(expires_at=past)

    listing = client.get(reverse("web:chat", args=[kept.pk])).content.decode()
    assert f"/chat/{expired.pk}/" not in listing and f"/chat/{live.pk}/" in listing
    assert client.get(reverse("web:chat", args=[expired.pk])).status_code == 404
    assert client.post(reverse("web:chat_send", args=[expired.pk]), {"text": "hi"}).status_code == 404
    expired.refresh_from_db()
    with pytest.raises(Exception) as refused:
        chat_turn(tenant=alice.tenant, session=expired, text="still there?")
    assert "expired" in str(refused.value)

    assert sessions_temporary_purge(tenant=alice.tenant) == 1
    assert not ChatSession.objects.unscoped().filter(pk=expired.pk).exists()
    assert not Message.objects.unscoped().filter(session_id=expired.pk).exists()
    assert ChatSession.objects.unscoped().filter(pk__in=[live.pk, kept.pk, carol_expired.pk]).count() == 3
    assert sessions_temporary_purge(tenant=alice.tenant) == 0  # idempotent
    assert sessions_temporary_purge(tenant=carol.tenant) == 1


@pytest.mark.django_db
def test_api_temporary_chat_and_memory_switch(make_person):
    alice, _ = make_person(username="alice_api")
    carol, _ = make_person(username="carol_api")  # another tenant
    _key, raw = api_key_create(tenant=alice.tenant)
    api = Api(raw)
    remember(alice, "The user's dog is called Biscuit.")

    body = api.post("/api/v1/chat/", {"user": alice.external_id, "message": "What is my dog called?"}).json()
    assert body["temporary"] is False and body["expires_at"] is None and body["memories_used"]
    normal_session = body["session"]
    body = api.post(
        "/api/v1/chat/", {"user": alice.external_id, "message": "What is my dog called?", "temporary": True}
    ).json()
    assert body["temporary"] is True and body["expires_at"] and body["memories_used"] == []
    assert "Biscuit" not in body["reply"]
    listed = {s["id"]: s for s in api.get(f"/api/v1/users/{alice.external_id}/sessions/").json()["results"]}
    assert listed[body["session"]]["temporary"] is True and listed[normal_session]["temporary"] is False
    refused = api.post(
        "/api/v1/chat/", {"user": alice.external_id, "message": "hi", "session": normal_session, "temporary": True}
    )
    assert refused.status_code == 400
    assert (
        api.post("/api/v1/chat/", {"user": alice.external_id, "message": "hi", "temporary": "yes"}).status_code == 400
    )

    url = f"/api/v1/users/{alice.external_id}/"
    assert api.get(url).json() == {"user": alice.external_id, "memory_enabled": True}
    for bad in ({"memory_enabled": "false"}, {"memory_enabled": 0}, {}, {"memory_enabled": False, "x": 1}):
        assert api.patch(url, bad).status_code == 400, bad
    assert EndUser.objects.for_tenant(alice.tenant).get(pk=alice.pk).memory_enabled  # nothing changed
    assert api.patch(f"/api/v1/users/{carol.external_id}/", {"memory_enabled": False}).status_code == 404
    assert EndUser.objects.for_tenant(carol.tenant).get(pk=carol.pk).memory_enabled
    assert api.patch(url, {"memory_enabled": False}).json() == {"user": alice.external_id, "memory_enabled": False}
    assert AuditLog.objects.for_tenant(alice.tenant).get(action="memory_switch").actor.startswith("api-key:")
    body = api.post(
        "/api/v1/chat/", {"user": alice.external_id, "message": "What is my dog called?", "session": normal_session}
    ).json()
    assert body["memories_used"] == [] and "Biscuit" not in body["reply"]
    assert api.patch(url, {"memory_enabled": True}).json()["memory_enabled"] is True
    body = api.post(
        "/api/v1/chat/", {"user": alice.external_id, "message": "What is my dog called?", "session": normal_session}
    ).json()
    assert any("Biscuit" in m["content"] for m in body["memories_used"])
