"""Regenerate (another reply to the same message, the old one kept as an earlier version) and edit-and-resend
(a corrected latest message; the old exchange kept as an earlier version). The model is never sent an earlier
version again. A second user can do neither to the first user's conversation."""

from __future__ import annotations

import pytest
from django.urls import reverse

from assistants.services.chat import chat_session_start, chat_turn
from tenancy.models import Message
from tests.web.sse import parse_sse


def scripted(end_user):
    tenant = end_user.tenant
    tenant.chat_model = "scripted-chat"
    tenant.save(update_fields=["chat_model"])


def stream(client, url, data=None):
    response = client.post(url, data or {})
    if response["Content-Type"].startswith("text/event-stream"):
        return response.status_code, parse_sse(b"".join(response.streaming_content))
    if response["Content-Type"].startswith("application/json"):
        return response.status_code, response.json()
    return response.status_code, {}  # the 404 page


def sent_to_model(scripted_llm) -> str:
    return " ".join(m["content"] for m in scripted_llm.chat_requests()[-1]["messages"])


@pytest.mark.django_db
def test_regenerate_keeps_the_old_reply_as_an_earlier_version(make_person, scripted_llm):
    alice, client = make_person(username="alice_regen")
    bob, bob_client = make_person(tenant=alice.tenant, username="bob_regen")
    scripted(alice)
    session = chat_session_start(tenant=alice.tenant, end_user=alice)
    scripted_llm.push("chat", "Try a bowl of beef noodles.", "第一个回答：苹果。")
    first = chat_turn(tenant=alice.tenant, session=session, text="What should I eat tonight?")
    second = chat_turn(tenant=alice.tenant, session=session, text="推荐一种水果？")

    status, body = stream(client, reverse("web:regenerate", args=[first.reply_message.pk]))
    assert status == 400 and "latest" in body["error"]  # an older reply: the later ones would answer nothing
    status, _ = stream(bob_client, reverse("web:regenerate", args=[second.reply_message.pk]))
    assert status == 404

    scripted_llm.push("chat", "第二个回答：**梨**。")
    status, events = stream(client, reverse("web:regenerate", args=[second.reply_message.pk]))
    assert status == 200 and events[-1][0] == "done"
    done = events[-1][1]
    new = Message.objects.for_tenant(alice.tenant).get(pk=done["reply_id"])
    old = Message.objects.for_tenant(alice.tenant).get(pk=second.reply_message.pk)
    assert new.content == "第二个回答：**梨**。" and new.metadata["alternative_of"] == old.pk
    assert old.metadata["replaced_by"] == new.pk and old.content == "第一个回答：苹果。"
    assert "<strong>梨</strong>" in done["html"] and "第一个回答：苹果。" in done["html"]  # the earlier version
    assert "推荐一种水果" in sent_to_model(scripted_llm)

    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert "1 earlier reply" in page and page.count("regen-btn") == 1
    assert page.index("第一个回答") > page.index("推荐一种水果")

    scripted_llm.push("chat", "OK.")
    chat_turn(tenant=alice.tenant, session=session, text="谢谢")
    context = sent_to_model(scripted_llm)
    assert "梨" in context and "苹果" not in context  # the earlier version is never sent again


@pytest.mark.django_db
def test_edit_and_resend_replaces_the_latest_exchange(make_person, scripted_llm):
    alice, client = make_person(username="alice_edit")
    bob, bob_client = make_person(tenant=alice.tenant, username="bob_edit")
    scripted(alice)
    session = chat_session_start(tenant=alice.tenant, end_user=alice)
    scripted_llm.push("chat", "Hello!", "Sure: 3 days in Chengdu.")
    first = chat_turn(tenant=alice.tenant, session=session, text="Hi.")
    latest = chat_turn(tenant=alice.tenant, session=session, text="Plan a trip to Chengu for 3 days.")
    url = reverse("web:edit", args=[latest.user_message.pk])

    for bad in ({"text": "   "}, {"text": "Plan a trip to Chengu for 3 days."}):
        status, body = stream(client, url, bad)
        assert status == 400 and body["error"], bad
    assert stream(client, reverse("web:edit", args=[first.user_message.pk]), {"text": "Hello."})[0] == 400
    assert stream(bob_client, url, {"text": "Something else"})[0] == 404
    assert not Message.objects.for_tenant(alice.tenant).filter(metadata__has_key="replaced_by").exists()

    scripted_llm.push("chat", "Sure: 4 days in 成都.")
    status, events = stream(client, url, {"text": "Plan a trip to 成都 for 4 days."})
    assert status == 200 and events[-1][0] == "done"
    done = events[-1][1]
    new_user = Message.objects.for_tenant(alice.tenant).get(pk=done["user_message_id"])
    assert (
        new_user.content == "Plan a trip to 成都 for 4 days." and new_user.metadata["edit_of"] == latest.user_message.pk
    )
    for old in (latest.user_message, latest.reply_message):
        old.refresh_from_db()
        assert old.metadata["replaced_by"] == new_user.pk
    context = sent_to_model(scripted_llm)
    assert "成都 for 4 days" in context and "Chengu" not in context and "Hi." in context

    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert "Edited: earlier wording" in page and "Plan a trip to Chengu for 3 days." in page
    assert "Sure: 3 days in Chengdu." not in page  # the old reply answered the old wording: not shown
    assert page.count("edit-btn") == 1 and f"/messages/{new_user.pk}/edit/" in page
