"""The chat pages through Django's test client: login, conversations, streaming and plain replies, feedback."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tenancy.models import Assistant, ChatSession, Feedback, Message
from tests.factories import AuthUserFactory
from tests.web.conftest import PASSWORD
from tests.web.sse import parse_sse

pytestmark = pytest.mark.django_db


def start_session(client) -> ChatSession:
    response = client.post(reverse("web:chat_new"))
    assert response.status_code == 302
    return ChatSession.objects.unscoped().get(pk=int(response["Location"].rstrip("/").split("/")[-1]))


def test_anonymous_visitors_are_sent_to_login():
    client = Client()
    for url in ["/", "/memory/", "/chat/1/", "/account/export/"]:
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/"), url


def test_login_with_wrong_password_says_so_and_right_password_opens_chat(alice):
    end_user, _ = alice
    client = Client()
    response = client.post("/login/", {"username": end_user.user.username, "password": "nope"})
    assert response.status_code == 200
    assert "do not match" in response.content.decode()
    response = client.post("/login/", {"username": end_user.user.username, "password": PASSWORD}, follow=True)
    assert response.status_code == 200
    assert "New conversation" in response.content.decode()


def test_logout_ends_the_session(alice):
    _, client = alice
    assert client.post("/logout/").status_code in (200, 302)
    assert client.get("/").status_code == 302


def test_an_account_without_end_user_gets_a_clear_page_not_a_crash():
    AuthUserFactory(username="staffer")
    client = Client()
    assert client.login(username="staffer", password="pw-123456")
    response = client.get("/")
    assert response.status_code == 403
    assert "no assistant" in response.content.decode()


def test_new_conversation_send_plain_post_and_see_reply(alice):
    end_user, client = alice
    session = start_session(client)
    response = client.post(reverse("web:chat_send", args=[session.pk]), {"text": "I prefer green tea."})
    assert response.status_code == 302
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert "I prefer green tea." in page
    replies = Message.objects.for_tenant(end_user.tenant).filter(session=session, role="assistant")
    assert replies.count() == 1
    assert f'id="m{replies[0].pk}"' in page
    session.refresh_from_db()
    assert session.title == "I prefer green tea."  # named after the first message


def test_streaming_turn_sends_context_deltas_and_a_rendered_done(alice):
    end_user, client = alice
    session = start_session(client)
    response = client.post(reverse("web:chat_stream", args=[session.pk]), {"text": "Hello there, I live in Lyon."})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    events = parse_sse(b"".join(response.streaming_content))
    names = [name for name, _ in events]
    assert names[0] == "context" and names[-1] == "done" and "delta" in names
    streamed = "".join(data["text"] for name, data in events if name == "delta")
    done = events[-1][1]
    reply = Message.objects.for_tenant(end_user.tenant).get(pk=done["reply_id"])
    assert reply.content == streamed and streamed
    assert f'id="m{reply.pk}"' in done["html"] and "memor" in done["html"]


def test_empty_message_is_refused_with_a_sentence_and_nothing_stored(alice):
    end_user, client = alice
    session = start_session(client)
    response = client.post(reverse("web:chat_stream", args=[session.pk]), {"text": "   "})
    assert response.status_code == 400
    assert "empty" in response.json()["error"]
    response = client.post(reverse("web:chat_send", args=[session.pk]), {"text": "   "})
    assert response.status_code == 400
    assert "empty" in response.content.decode()
    assert not Message.objects.for_tenant(end_user.tenant).filter(session=session).exists()


def test_rename_and_delete_a_conversation(alice):
    end_user, client = alice
    session = start_session(client)
    client.post(reverse("web:chat_rename", args=[session.pk]), {"title": "Trip to Kyoto"})
    assert "Trip to Kyoto" in client.get("/", follow=True).content.decode()
    response = client.post(reverse("web:chat_rename", args=[session.pk]), {"title": "  "})
    assert response.status_code == 400 and "name is empty" in response.content.decode()
    client.post(reverse("web:chat_delete", args=[session.pk]))
    assert not ChatSession.objects.for_tenant(end_user.tenant).filter(pk=session.pk).exists()


def test_user_picks_one_of_several_assistants(alice):
    end_user, client = alice
    second = Assistant.objects.for_tenant(end_user.tenant).create(
        tenant=end_user.tenant, name="Travel planner", system_prompt="You plan trips."
    )
    page = client.get("/").content.decode()
    assert "Travel planner" in page  # the picker is shown when there is more than one
    response = client.post(reverse("web:chat_new"), {"assistant": second.pk})
    session = ChatSession.objects.for_tenant(end_user.tenant).get(pk=int(response["Location"].split("/")[-2]))
    assert session.assistant == second


def test_thumbs_up_then_down_is_recorded_for_the_reply(alice):
    end_user, client = alice
    session = start_session(client)
    client.post(reverse("web:chat_send", args=[session.pk]), {"text": "hi"})
    reply = Message.objects.for_tenant(end_user.tenant).get(session=session, role="assistant")
    url = reverse("web:feedback", args=[reply.pk])
    assert client.post(url, {"rating": "up"}, HTTP_ACCEPT="application/json").json()["rating"] == "up"
    client.post(url, {"rating": "down"}, HTTP_ACCEPT="application/json")
    feedback = Feedback.objects.for_tenant(end_user.tenant).get(message=reply)
    assert feedback.rating == "down"
    assert (
        'value="down" class="icon-btn" aria-pressed="true"'
        in client.get(reverse("web:chat", args=[session.pk])).content.decode()
    )


def test_offline_model_notice_is_visible(alice):
    _, client = alice
    start_session(client)
    assert "no language model is connected" in client.get("/", follow=True).content.decode()


def test_used_memories_and_task_strip_come_from_the_reply_context(alice):
    end_user, client = alice
    session = start_session(client)
    context = {
        "summary": "The user is planning a bakery.",
        "pinned_facts": {"budget": {"value": "400k"}},
        "memories": [
            {"type": "note", "id": 1, "kind": "preference", "content": "Prefers quiet streets", "score": 0.9},
            {"type": "note", "id": 2, "kind": "profile", "content": "Lives in Hangzhou", "score": 0.8},
        ],
        # The working-memory layer's context shape (tasks.selectors.task_state_as_context).
        "task": {
            "id": 7,
            "task": "项目计划",
            "state": "collecting_info",
            "progress": "3/4",
            "required": ["地点", "面积", "时间", "预算"],
            "collected": {"地点": "杭州", "面积": "80平", "时间": "下月"},
            "pending": ["预算"],
        },
        "hints": [],
        "token_count": 100,
    }
    Message.objects.for_tenant(end_user.tenant).create(
        tenant=end_user.tenant,
        session=session,
        end_user=end_user,
        role="assistant",
        content="Noted.",
        metadata={"context": context},
    )
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert "used 2 memories" in page
    assert "Prefers quiet streets" in page and "Lives in Hangzhou" in page
    assert "The user is planning a bakery." in page
    assert "项目计划" in page and "3/4" in page and "still missing: 预算" in page
    assert 'class="task-strip"' in page


def test_the_task_strip_disappears_when_the_task_is_done(alice):
    end_user, client = alice
    session = start_session(client)
    task = {"task": "项目计划", "state": "completed", "progress": "4/4", "required": ["预算"], "pending": []}
    Message.objects.for_tenant(end_user.tenant).create(
        tenant=end_user.tenant,
        session=session,
        end_user=end_user,
        role="assistant",
        content="Done.",
        metadata={"context": {"memories": [], "task": task}},
    )
    assert 'class="task-strip"' not in client.get(reverse("web:chat", args=[session.pk])).content.decode()


def test_csrf_is_enforced():
    from assistants.services.tenants import end_user_create_with_login, tenant_create

    tenant, _ = tenant_create(slug="csrf-co")
    end_user_create_with_login(tenant=tenant, external_id="c1", username="csrfuser", password=PASSWORD)
    client = Client(enforce_csrf_checks=True)
    client.login(username="csrfuser", password=PASSWORD)
    assert client.post(reverse("web:chat_new")).status_code == 403


def test_chinese_follows_the_browser_and_can_be_switched(make_person):
    _, client = make_person(username="lin", language="zh-CN")
    client.post(reverse("web:chat_new"))
    page = client.get("/", follow=True).content.decode()
    assert "发送" in page and "新对话" in page
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    page = client.get("/", follow=True).content.decode()
    assert "Send" in page and "发送" not in page
