""" "What I remember about you": provenance, correcting (re-embedded), forgetting, history, export, erasure."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse

from assistants.services.chat import chat_session_start, chat_turn
from memory.models import MemoryNote
from tests.factories import MemoryNoteFactory
from tests.web.conftest import PASSWORD
from tests.web.layers import needs_long_term_memory, needs_privacy

pytestmark = pytest.mark.django_db


def test_every_active_note_shows_kind_source_confidence_and_a_link_to_its_message(alice):
    end_user, client = alice
    session = chat_session_start(tenant=end_user.tenant, end_user=end_user)
    result = chat_turn(tenant=end_user.tenant, session=session, text="I am vegetarian.")
    note = MemoryNoteFactory(
        end_user=end_user,
        kind="profile",
        content="The user is vegetarian.",
        source="user_stated",
        confidence=0.85,
        session=session,
    )
    note.source_messages.add(result.user_message, through_defaults={"tenant": end_user.tenant})
    MemoryNoteFactory(end_user=end_user, content="Old forgotten thing", status="forgotten")
    page = client.get(reverse("web:memory")).content.decode()
    assert "The user is vegetarian." in page
    assert "About you" in page and "You said it" in page and "85%" in page
    assert f'href="/chat/{session.pk}/#m{result.user_message.pk}"' in page
    assert "Old forgotten thing" not in page


@needs_long_term_memory
def test_correcting_a_note_changes_what_is_shown_and_re_embeds_it(alice):
    end_user, client = alice
    note = MemoryNoteFactory(end_user=end_user, content="Budget is 100k")
    response = client.post(
        reverse("web:memory_correct", args=[note.pk]), {f"n{note.pk}-content": "Budget is 150k"}, follow=True
    )
    page = response.content.decode()
    assert "Budget is 150k" in page and "Corrected" in page
    current = MemoryNote.objects.for_tenant(end_user.tenant).get(end_user=end_user, status="active")
    assert current.content == "Budget is 150k"
    assert current.embedding is not None  # re-embedded, so recall finds the corrected wording


def test_an_empty_correction_is_refused_and_the_note_kept(alice):
    end_user, client = alice
    note = MemoryNoteFactory(end_user=end_user, content="Likes jazz")
    page = client.post(
        reverse("web:memory_correct", args=[note.pk]), {f"n{note.pk}-content": "  "}, follow=True
    ).content.decode()
    assert "empty" in page and "Likes jazz" in page


def test_forget_one_note_removes_its_content(alice):
    end_user, client = alice
    keep = MemoryNoteFactory(end_user=end_user, content="Lives in Chengdu", key="city")
    drop = MemoryNoteFactory(end_user=end_user, content="Drinks americano")
    page = client.post(reverse("web:memory_forget", args=[drop.pk]), follow=True).content.decode()
    assert "Drinks americano" not in page and "Lives in Chengdu" in page
    drop.refresh_from_db()
    assert drop.status == "forgotten" and drop.content == ""
    keep.refresh_from_db()
    assert keep.status == "active"


def test_forget_everything_needs_confirmation_then_clears_history_too(alice, bob_same_tenant):
    end_user, client = alice
    old = MemoryNoteFactory(end_user=end_user, content="Budget 10万", status="superseded")
    MemoryNoteFactory(end_user=end_user, content="Budget 15万", supersedes=old)
    MemoryNoteFactory(end_user=end_user, content="Prefers tea")
    bobs = MemoryNoteFactory(end_user=bob_same_tenant[0], content="Bob likes chess")
    page = client.post(reverse("web:memory_forget_all"), follow=True).content.decode()
    assert "Tick the box" in page and "Prefers tea" in page
    page = client.post(reverse("web:memory_forget_all"), {"confirm": "yes"}, follow=True).content.decode()
    assert "Nothing remembered yet" in page
    assert not MemoryNote.objects.for_tenant(end_user.tenant).filter(end_user=end_user).exclude(content="").exists()
    bobs.refresh_from_db()
    assert bobs.status == "active" and bobs.content == "Bob likes chess"


def test_superseded_history_can_be_expanded(alice):
    end_user, client = alice
    old = MemoryNoteFactory(end_user=end_user, content="预算大概10万", status="superseded", key="budget")
    MemoryNoteFactory(end_user=end_user, content="预算改成15万", supersedes=old, key="budget")
    page = client.get(reverse("web:memory")).content.decode()
    assert "预算改成15万" in page
    assert "1 earlier version" in page and "预算大概10万" in page


@needs_privacy
def test_download_my_data_is_a_json_file_with_my_notes_only(alice, bob_same_tenant):
    end_user, client = alice
    MemoryNoteFactory(end_user=end_user, content="Allergic to peanuts")
    MemoryNoteFactory(end_user=bob_same_tenant[0], content="Bob's private note")
    response = client.get(reverse("web:account_export"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert "attachment" in response["Content-Disposition"]
    text = response.content.decode()
    json.loads(text)
    assert "Allergic to peanuts" in text and "Bob's private note" not in text


@needs_privacy
def test_delete_account_asks_for_confirmation_then_erases_and_logs_out(alice):
    end_user, client = alice
    page = client.get(reverse("web:account_delete")).content.decode()
    assert "cannot be undone" in page
    response = client.post(reverse("web:account_delete"), {})
    assert response.status_code == 400 and "Tick the box" in response.content.decode()
    end_user.refresh_from_db()
    assert end_user.erasure_requested_at is None
    username = end_user.user.username
    response = client.post(reverse("web:account_delete"), {"confirm": "yes"})
    assert response.status_code == 200 and "being deleted" in response.content.decode()
    assert client.get("/").status_code == 302  # logged out
    assert not Client().login(username=username, password=PASSWORD)  # the login is gone
