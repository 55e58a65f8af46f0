"""Stop names the reply it stops (issue 39): by the browser's name for the turn (`turn`), or by the user message;
a Stop that names nothing, or names a turn that has not reached the server yet, never reaches an earlier reply."""

from __future__ import annotations

import pytest
from django.urls import reverse

from assistants.services.chat import chat_session_start, chat_turn
from tenancy.models import Message
from web.services import streamed_turn_begin, streamed_turn_stop_requested

KEY = "a1b2c3d4e5f60718"


def replies(session):
    return list(Message.objects.for_tenant(session.tenant).filter(session=session, role="assistant").order_by("pk"))


def stop(client, session, **fields):
    return client.post(reverse("web:chat_stop", args=[session.pk]), {"chars": "0", **fields})


@pytest.mark.django_db
def test_a_stop_for_a_turn_not_yet_arrived_is_kept_for_it_and_touches_no_earlier_reply(make_person):
    alice, client = make_person(username="alice_race")
    session = chat_session_start(tenant=alice.tenant, end_user=alice)
    chat_turn(tenant=alice.tenant, session=session, text="First question.")
    (finished,) = replies(session)
    whole = finished.content

    response = stop(client, session, turn=KEY, chars="0")  # the new message has not reached the server
    assert response.status_code == 200 and response.json()["reply_id"] is None
    assert replies(session)[0].content == whole and not replies(session)[0].metadata.get("stopped")

    # The turn arrives: it finds its Stop and ends before answering.
    assert streamed_turn_begin(tenant=alice.tenant, session=session, key=KEY) == 0
    assert replies(session)[0].content == whole


@pytest.mark.django_db
def test_a_stop_while_regenerating_never_reaches_the_reply_being_replaced(make_person):
    alice, client = make_person(username="alice_regen_stop")
    session = chat_session_start(tenant=alice.tenant, end_user=alice)
    chat_turn(tenant=alice.tenant, session=session, text="A question.")
    (old,) = replies(session)
    assert streamed_turn_begin(tenant=alice.tenant, session=session, key=KEY) is None  # regenerate starts
    response = stop(client, session, turn=KEY, chars="3")  # the new reply is not stored yet
    assert response.status_code == 200 and response.json()["reply_id"] is None
    old.refresh_from_db()
    assert len(old.content) > 3 and not old.metadata.get("stopped")
    assert streamed_turn_stop_requested(tenant=alice.tenant, session=session, key=KEY) == 3


@pytest.mark.django_db
def test_a_stop_naming_a_message_trims_only_that_messages_reply(make_person):
    alice, client = make_person(username="alice_two_turns")
    session = chat_session_start(tenant=alice.tenant, end_user=alice)
    chat_turn(tenant=alice.tenant, session=session, text="First question.")
    chat_turn(tenant=alice.tenant, session=session, text="Second question.")
    first, second = replies(session)
    first_user = Message.objects.for_tenant(alice.tenant).filter(session=session, role="user").order_by("pk")[0]
    response = stop(client, session, user_message_id=str(first_user.pk), chars="2")
    assert response.status_code == 200 and response.json()["reply_id"] == first.pk
    assert replies(session)[1].content == second.content and not replies(session)[1].metadata.get("stopped")


@pytest.mark.django_db
def test_a_stop_that_names_no_reply_or_a_bad_one_is_refused_and_changes_nothing(make_person):
    alice, client = make_person(username="alice_bad_stop")
    bob, bob_client = make_person(tenant=alice.tenant, username="bob_bad_stop")
    session = chat_session_start(tenant=alice.tenant, end_user=alice)
    chat_turn(tenant=alice.tenant, session=session, text="A question.")
    before = [(m.content, m.metadata) for m in replies(session)]

    response = stop(client, session)  # names nothing: it used to stop "the latest message"
    assert response.status_code == 400 and "which reply" in response.json()["error"]
    for bad in ("short", "x" * 65, "a1b2c3d4 e5f6", "<script>alert(1)</script>"):
        response = stop(client, session, turn=bad)
        assert response.status_code == 400 and "reload the page" in response.json()["error"]
    stream = client.post(reverse("web:chat_stream", args=[session.pk]), {"text": "More.", "turn": "bad key"})
    assert stream.status_code == 400
    assert Message.objects.for_tenant(alice.tenant).filter(session=session, role="user").count() == 1
    # Bob, in the same tenant, cannot stop Alice's turn: her conversation is not his (the same answer as missing).
    assert stop(bob_client, session, turn=KEY).status_code == 404
    assert [(m.content, m.metadata) for m in replies(session)] == before
    assert streamed_turn_stop_requested(tenant=alice.tenant, session=session, key=KEY) is None
