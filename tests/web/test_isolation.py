"""A user can never see or touch another user's conversation, message or note by changing an id in the URL:
the answer is 404, the same as for a missing object, and nothing changes."""

from __future__ import annotations

import pytest
from django.urls import reverse

from assistants.services.chat import chat_session_start, chat_turn
from memory.models import MemoryNote
from tenancy.models import ChatSession, Feedback, Message
from tests.factories import MemoryNoteFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def alices_things(alice):
    end_user, client = alice
    session = chat_session_start(tenant=end_user.tenant, end_user=end_user, title="Alice's secret plans")
    result = chat_turn(tenant=end_user.tenant, session=session, text="My salary is 9000 a month.")
    note = MemoryNoteFactory(end_user=end_user, content="Alice earns 9000 a month", kind="profile")
    return {"session": session, "reply": result.reply_message, "user_message": result.user_message, "note": note}


def attempts(things):
    s, r, n = things["session"].pk, things["reply"].pk, things["note"].pk
    return [
        ("get", reverse("web:chat", args=[s]), {}),
        ("post", reverse("web:chat_rename", args=[s]), {"title": "pwned"}),
        ("post", reverse("web:chat_send", args=[s]), {"text": "injected"}),
        ("post", reverse("web:chat_stream", args=[s]), {"text": "injected"}),
        ("post", reverse("web:feedback", args=[r]), {"rating": "down"}),
        ("post", reverse("web:memory_correct", args=[n]), {f"n{n}-content": "pwned"}),
        ("post", reverse("web:memory_forget", args=[n]), {}),
        ("post", reverse("web:chat_delete", args=[s]), {}),
    ]


@pytest.mark.parametrize("intruder", ["bob_same_tenant", "carol_other_tenant"])
def test_another_user_gets_404_everywhere_and_changes_nothing(request, alices_things, intruder):
    _, client = request.getfixturevalue(intruder)
    for method, url, data in attempts(alices_things):
        response = getattr(client, method)(url, data)
        assert response.status_code == 404, (intruder, url, response.status_code)
        assert "Alice" not in response.content.decode() and "9000" not in response.content.decode()
    session = ChatSession.objects.unscoped().get(pk=alices_things["session"].pk)
    assert session.title == "Alice's secret plans"
    assert Message.objects.unscoped().filter(session=session).count() == 2
    assert not Feedback.objects.unscoped().exists()
    note = MemoryNote.objects.unscoped().get(pk=alices_things["note"].pk)
    assert note.status == "active" and note.content == "Alice earns 9000 a month"


@pytest.mark.parametrize("intruder", ["bob_same_tenant", "carol_other_tenant"])
def test_lists_show_only_ones_own_conversations_and_notes(request, alices_things, intruder):
    _, client = request.getfixturevalue(intruder)
    chat = client.get("/", follow=True).content.decode()
    memory = client.get(reverse("web:memory")).content.decode()
    for page in (chat, memory):
        assert "Alice's secret plans" not in page
        assert "9000" not in page


def test_the_owner_still_reaches_everything(alice, alices_things):
    """Every URL the intruders were refused works for Alice, and does what it says: the 404s above are isolation,
    not broken views."""
    _, client = alice
    session, note = alices_things["session"], alices_things["note"]
    assert "Alice earns 9000 a month" in client.get(reverse("web:memory")).content.decode()
    messages = Message.objects.unscoped().filter(session=session)
    effects = [
        lambda r: "Alice&#x27;s secret plans" in r.content.decode() or "Alice's secret plans" in r.content.decode(),
        lambda r: ChatSession.objects.unscoped().get(pk=session.pk).title == "pwned",
        lambda r: messages.filter(role="user", content="injected").count() == 1 and messages.count() == 4,
        lambda r: b"event: done" in b"".join(r.streaming_content) and messages.count() == 6,
        lambda r: Feedback.objects.unscoped().filter(message=alices_things["reply"], rating="down").exists(),
        lambda r: (
            MemoryNote.objects.unscoped().filter(end_user=note.end_user, status="active", content="pwned").exists()
        ),
        lambda r: not MemoryNote.objects.unscoped().filter(end_user=note.end_user, status="active").exists(),
        lambda r: not ChatSession.objects.unscoped().filter(pk=session.pk).exists(),
    ]
    steps = attempts(alices_things)
    assert len(steps) == len(effects) == 8
    for (method, url, data), effect in zip(steps, effects, strict=True):
        response = getattr(client, method)(url, data)
        assert response.status_code in (200, 302), (url, response.status_code)
        assert effect(response), url


@pytest.mark.parametrize("intruder", ["bob_same_tenant", "carol_other_tenant"])
def test_the_session_service_answers_not_found_for_anothers_session(request, alices_things, intruder):
    """The web chat and the API delete and rename through one service: someone else's session is NotFound
    (the web's 404), never a 400 that would tell the id exists, and it stays as it was."""
    from assistants.services.sessions import session_delete, session_rename
    from core.exceptions import NotFound

    other, _ = request.getfixturevalue(intruder)
    session = alices_things["session"]
    with pytest.raises(NotFound):
        session_delete(tenant=other.tenant, end_user=other, session=session)
    with pytest.raises(NotFound):
        session_rename(tenant=other.tenant, end_user=other, session=session, title="pwned")
    kept = ChatSession.objects.unscoped().get(pk=session.pk)
    assert kept.title == "Alice's secret plans"
    assert Message.objects.unscoped().filter(session=kept).count() == 2
