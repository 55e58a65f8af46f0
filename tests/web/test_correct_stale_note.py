"""The web chat's Correct carries the note's version (issue 39): a correction made from a page drawn before the
note changed elsewhere (another tab, the API) is refused with a sentence instead of overwriting that change."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from memory.models import MemoryNote
from memory.services.notes.notes import memory_note_update
from tests.factories import MemoryNoteFactory

pytestmark = pytest.mark.django_db


def version_on_page(client, note) -> str:
    page = client.get(reverse("web:memory")).content.decode()
    found = re.search(rf'name="n{note.pk}-version" value="([0-9a-f]+)"', page)
    assert found, "the Correct form carries the note's version"
    return found.group(1)


def correct(client, note, content, version):
    url = reverse("web:memory_correct", args=[note.pk])
    return client.post(url, {f"n{note.pk}-content": content, f"n{note.pk}-version": version}, follow=True)


def test_a_correction_from_a_stale_page_is_refused_and_the_newer_wording_kept(alice, bob_same_tenant):
    end_user, client = alice
    note = MemoryNoteFactory(end_user=end_user, content="Budget is 100k")
    stale = version_on_page(client, note)
    memory_note_update(tenant=end_user.tenant, note=note, actor="another tab", content="Budget is 120k")

    page = correct(client, note, "Budget is 90k", stale).content.decode()
    assert "changed since this page was opened" in page and "nothing was saved" in page
    note.refresh_from_db()
    assert note.content == "Budget is 120k" and note.status == MemoryNote.Status.ACTIVE

    # Bob, in the same tenant, cannot correct Alice's note with her version.
    _bob, bob_client = bob_same_tenant
    assert correct(bob_client, note, "Budget is 1k", version_on_page(client, note)).status_code == 404

    page = correct(client, note, "Budget is 90k", version_on_page(client, note)).content.decode()
    assert "Corrected" in page
    note.refresh_from_db()
    assert note.content == "Budget is 90k"
