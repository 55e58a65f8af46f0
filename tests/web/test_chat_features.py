"""Server side of the chat's features: search across one's own conversations, Stop kept after a reload, the
"forgot everything" count, offline replies without internals, `make run` without debug pages."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from assistants.llm import sections
from assistants.llm.offline import offline_reply
from assistants.services.chat import chat_session_start, chat_turn, chat_turn_stream
from core.management.commands.runplatform import process_environment
from core.policy import memory_policy_for
from memory.models import MemoryNote
from memory.services.notes.notes import memory_note_create, memory_note_update
from tenancy.models import Message


def session_with(end_user, *texts, title=""):
    session = chat_session_start(tenant=end_user.tenant, end_user=end_user, title=title)
    for text in texts:
        chat_turn(tenant=end_user.tenant, session=session, text=text)
    return session


@pytest.mark.django_db
def test_search_finds_ones_own_titles_and_messages_in_chinese_and_english(make_person):
    alice, client = make_person(username="alice_search")
    bob, _ = make_person(tenant=alice.tenant, username="bob_search")
    carol, _ = make_person(username="carol_search")
    trip = session_with(alice, "下个月去成都出差，帮我列个行李清单。", title="出差准备")
    menu = session_with(alice, "Our café will serve Oolong and Pu'er.", title="Menu ideas")
    session_with(bob, "我也要去成都出差。 Oolong for me too.", title="成都 Bob")
    session_with(carol, "成都 Oolong 出差", title="成都 Carol")

    page = client.get(reverse("web:chat_search"), {"q": "成都"}).content.decode()
    assert f"/chat/{trip.pk}/#m" in page and "<mark>成都</mark>" in page
    assert "Bob" not in page and "Carol" not in page and "我也要去" not in page
    page = client.get(reverse("web:chat_search"), {"q": "oolong"}).content.decode()  # case-insensitive
    assert f"/chat/{menu.pk}/#m" in page and "<mark>Oolong</mark>" in page and "for me too" not in page
    page = client.get(reverse("web:chat_search"), {"q": "出差准备"}).content.decode()  # a title
    assert f'href="/chat/{trip.pk}/"' in page
    page = client.get(reverse("web:chat_search"), {"q": "<script>x</script>%_"}).content.decode()
    assert "<script>x</script>" not in page and "0 conversations match" in page
    assert client.get(reverse("web:chat_search"), {"q": "   "}).status_code == 200


@pytest.mark.django_db
def test_a_stop_is_kept_after_a_reload(make_person):
    alice, client = make_person(username="alice_stop")
    bob, bob_client = make_person(tenant=alice.tenant, username="bob_stop")
    session = chat_session_start(tenant=alice.tenant, end_user=alice)
    turn = chat_turn_stream(tenant=alice.tenant, session=session, text="Tell me a long story about the sea.")
    shown = ""
    for name, payload in turn:
        if name == "delta":
            shown += payload
            if len(shown) >= 20:
                break
    turn.close()  # the browser went away: what was streamed is stored, marked stopped
    reply = Message.objects.for_tenant(alice.tenant).get(session=session, role="assistant")
    assert reply.metadata["stopped"] is True and reply.content == shown
    user_message = Message.objects.for_tenant(alice.tenant).get(session=session, role="user")

    # Bob cannot stop Alice's reply; bad input changes nothing.
    assert bob_client.post(reverse("web:chat_stop", args=[session.pk]), {"chars": "3"}).status_code == 404
    assert client.post(reverse("web:chat_stop", args=[session.pk]), {"chars": "-1"}).status_code == 400
    reply.refresh_from_db()
    assert reply.content == shown
    response = client.post(
        reverse("web:chat_stop", args=[session.pk]), {"user_message_id": str(user_message.pk), "chars": "7"}
    )
    assert response.status_code == 200 and response.json()["reply_id"] == reply.pk
    reply.refresh_from_db()
    assert reply.content == shown[:7] and reply.metadata["stopped"]
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert "msg-stopped" in page and 'data-stopped="Stopped."' in page
    # A longer number never lengthens a reply.
    client.post(reverse("web:chat_stop", args=[session.pk]), {"user_message_id": str(user_message.pk), "chars": "500"})
    reply.refresh_from_db()
    assert reply.content == shown[:7]


@pytest.mark.django_db
def test_forget_everything_counts_the_notes_that_were_shown(make_person):
    alice, client = make_person(username="alice_forget")
    bob, _ = make_person(tenant=alice.tenant, username="bob_forget")
    tenant = alice.tenant
    shown = [
        memory_note_create(
            tenant=tenant,
            end_user=alice,
            kind="profile",
            content=f"Fact number {i}.",
            policy=memory_policy_for(tenant=tenant),
        )
        for i in range(3)
    ]
    memory_note_update(tenant=tenant, note=shown[0], content="Fact number zero, corrected.")  # history
    memory_note_create(
        tenant=tenant,
        end_user=alice,
        kind="profile",
        content="Waiting for review.",
        status=MemoryNote.Status.PENDING_REVIEW,
        policy=memory_policy_for(tenant=tenant),
    )
    memory_note_create(
        tenant=tenant, end_user=bob, kind="profile", content="Bob's fact.", policy=memory_policy_for(tenant=tenant)
    )
    active = MemoryNote.objects.for_tenant(tenant).filter(end_user=alice, status="active").count()
    page = client.get(reverse("web:memory")).content.decode()
    assert page.count('class="note card"') == active == 3
    response = client.post(reverse("web:memory_forget_all"), {"confirm": "yes"}, follow=True)
    assert "Forgot everything (3 notes)." in response.content.decode()
    assert not MemoryNote.objects.for_tenant(tenant).filter(end_user=alice).exclude(status="forgotten").exists()
    assert MemoryNote.objects.for_tenant(tenant).filter(end_user=bob, status="active").count() == 1


@pytest.mark.django_db
def test_a_whitespace_only_message_is_refused_with_a_sentence(make_person):
    alice, client = make_person(username="alice_ws")
    session = chat_session_start(tenant=alice.tenant, end_user=alice)
    for text in ("   ", "\n\n\t", "\u3000"):
        response = client.post(reverse("web:chat_stream", args=[session.pk]), {"text": text})
        assert response.status_code == 400 and "empty" in response.json()["error"]
    assert not Message.objects.for_tenant(alice.tenant).filter(session=session).exists()


def _context(user: str, task: str | None = None) -> list[dict]:
    messages = [{"role": "system", "content": "You are helpful."}]
    if task:
        messages.append({"role": "system", "content": f"{sections.TASK}\n- {task}"})
    return messages + [{"role": "user", "content": user}]


@pytest.mark.parametrize("user", ["你好，帮我看看这个方案", "Can you check this plan?", "明天天气怎么样", "Hi there"])
def test_offline_replies_show_no_internals(user):
    task = (
        '{"id": 41, "task": "项目计划", "state": "collecting", "progress": "3/4", "required": ["预算"], '
        '"collected": {"团队规模": "5人"}, "pending": ["预算"], "version": 7, "route": "continue"}'
    )
    reply = offline_reply(_context(user, task))
    assert not re.search(r"OPENAI|API_KEY|BASE_URL|[{}]|\"(?:id|state|version|route)\"", reply), reply
    chinese = bool(re.search(r"[\u4e00-\u9fff]", user))
    assert ("没有连接语言模型" if chinese else "no language model is connected") in reply
    assert "项目计划" in reply and "3/4" in reply and "预算" in reply  # the task, said as a sentence


def test_make_run_serves_the_product_pages_not_debug_pages(monkeypatch):
    monkeypatch.delenv("DJANGO_DEBUG", raising=False)
    assert process_environment("web")["DJANGO_DEBUG"] == "False"
    assert "DJANGO_DEBUG" not in process_environment("worker")
    monkeypatch.setenv("DJANGO_DEBUG", "True")  # someone who asks for debug pages gets them
    assert process_environment("web")["DJANGO_DEBUG"] == "True"


@pytest.mark.django_db
def test_unknown_pages_get_the_products_404(client, settings):
    settings.DEBUG = False
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert "This page does not exist" in response.content.decode() and "URLconf" not in response.content.decode()


@pytest.mark.django_db
def test_the_login_page_names_the_demo_account_under_make_run_with_debug_off(client, settings):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("demo", password=settings.DEMO_PASSWORD)
    settings.DEBUG, settings.SHOW_DEMO_ACCOUNT = False, True  # config.settings.local under `make run`
    assert "Demo account" in client.get("/login/").content.decode()
    settings.SHOW_DEMO_ACCOUNT = False  # production
    assert "Demo account" not in client.get("/login/").content.decode()
