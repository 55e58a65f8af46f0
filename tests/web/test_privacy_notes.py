"""The web chat and issue 15: a correction with an identifier is refused and the note kept, a conversation is
never named after an identifier, and the thumbs say what a thumbs-up shares (or that nothing is shared)."""

import pytest
from django.urls import reverse

from assistants.services.chat import chat_session_start
from memory.models import MemoryNote
from tenancy.models import ChatSession
from tests.factories import MemoryNoteFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "correction", ["My car is 京A12345", "我的车牌是沪C 8K9Z2", "Call me on 07700 900123", "我住在建国路88号3单元502室"]
)
def test_a_correction_with_an_identifier_is_refused_and_the_note_kept(alice, correction):
    end_user, client = alice
    note = MemoryNoteFactory(end_user=end_user, content="Drives a blue car")
    page = client.post(
        reverse("web:memory_correct", args=[note.pk]), {f"n{note.pk}-content": correction}, follow=True
    ).content.decode()
    assert "identifier" in page and "Drives a blue car" in page
    assert MemoryNote.objects.for_tenant(end_user.tenant).get(pk=note.pk).content == "Drives a blue car"


def test_a_conversation_is_not_named_after_an_identifier(alice):
    end_user, client = alice
    session = chat_session_start(tenant=end_user.tenant, end_user=end_user)
    client.post(
        reverse("web:chat_send", args=[session.pk]),
        {"text": "Text the results to 07700 900123 when the weekly plan is done"},
    )
    title = ChatSession.objects.for_tenant(end_user.tenant).get(pk=session.pk).title
    assert title and "900123" not in title and "07700" not in title


def test_the_thumbs_say_what_is_shared(alice):
    end_user, client = alice
    session = chat_session_start(tenant=end_user.tenant, end_user=end_user)
    client.post(reverse("web:chat_send", args=[session.pk]), {"text": "Hello"})
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert "without your personal details, to improve answers for others" in page
    end_user.tenant.experience_sharing = False
    end_user.tenant.save()
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert "nothing is shared with other users" in page and "improve answers for others" not in page
