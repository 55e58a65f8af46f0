"""Optimistic concurrency on notes (issue 39): GET sends the note's version as ETag; PATCH and DELETE with
If-Match change the note only if it still has that version, else 412 with a sentence and nothing changes. Of
many simultaneous corrections made from the same version, exactly one wins."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from memory.models import MemoryNote
from tests.api.conftest import error_of
from tests.factories import MemoryNoteFactory


def note_of(acme):
    return MemoryNoteFactory(end_user=acme.user("alice"), kind="plan", key="budget", content="The budget is 100k.")


def read(acme, note):
    response = acme.api.get(f"/api/v1/memories/{note.pk}/")
    assert response.status_code == 200
    assert response["ETag"] == f'"{response.json()["version"]}"'
    return response["ETag"]


@pytest.mark.django_db
def test_a_stale_if_match_is_refused_with_412_and_changes_nothing(acme):
    note = note_of(acme)
    first = read(acme, note)
    response = acme.api.patch(f"/api/v1/memories/{note.pk}/", {"content": "The budget is 150k."}, {"If-Match": first})
    assert response.status_code == 200 and response["ETag"] != first
    second = response["ETag"]
    assert read(acme, note) == second

    stale = acme.api.patch(f"/api/v1/memories/{note.pk}/", {"content": "The budget is 90k."}, {"If-Match": first})
    assert stale.status_code == 412
    error = error_of(stale)
    assert error["code"] == "version_mismatch" and "changed since you read it" in error["message"]
    assert f'"{error["details"]["version"]}"' == second
    assert acme.api.delete(f"/api/v1/memories/{note.pk}/", {"If-Match": first}).status_code == 412
    note.refresh_from_db()
    assert note.content == "The budget is 150k." and note.status == MemoryNote.Status.ACTIVE

    weak = acme.api.patch(f"/api/v1/memories/{note.pk}/", {"pinned": True}, {"If-Match": f"W/{second}"})
    assert weak.status_code == 412  # If-Match compares strongly
    listed = acme.api.patch(f"/api/v1/memories/{note.pk}/", {"pinned": True}, {"If-Match": f'"nope", {second}'})
    assert listed.status_code == 200
    assert acme.api.delete(f"/api/v1/memories/{note.pk}/", {"If-Match": listed["ETag"]}).status_code == 204
    note.refresh_from_db()
    assert note.status == MemoryNote.Status.FORGOTTEN


@pytest.mark.django_db
@pytest.mark.parametrize("header", ["abc", '"abc', '"a" "b"', "", '"a",,x'])
def test_a_malformed_if_match_is_a_400_and_changes_nothing(acme, header):
    note = note_of(acme)
    response = acme.api.patch(f"/api/v1/memories/{note.pk}/", {"content": "Changed."}, {"If-Match": header})
    assert response.status_code == 400 and "If-Match" in error_of(response)["message"]
    assert acme.api.delete(f"/api/v1/memories/{note.pk}/", {"If-Match": header}).status_code == 400
    note.refresh_from_db()
    assert note.content == "The budget is 100k." and note.status == MemoryNote.Status.ACTIVE


@pytest.mark.django_db
def test_without_if_match_a_change_is_made_as_before_and_star_matches_any_version(acme):
    note = note_of(acme)
    assert acme.api.patch(f"/api/v1/memories/{note.pk}/", {"content": "The budget is 120k."}).status_code == 200
    assert acme.api.patch(f"/api/v1/memories/{note.pk}/", {"pinned": True}, {"If-Match": "*"}).status_code == 200


@pytest.mark.django_db
def test_being_recalled_does_not_make_a_version_stale(acme):
    note = note_of(acme)
    etag = read(acme, note)
    MemoryNote.objects.for_tenant(acme.tenant).filter(pk=note.pk).update(recall_count=5)
    assert read(acme, note) == etag


@pytest.mark.django_db
def test_another_user_or_tenant_gets_404_whatever_the_version(acme, globex):
    note = note_of(acme)
    etag = read(acme, note)
    acme.user("bob")
    url = f"/api/v1/memories/{note.pk}/"
    assert globex.api.get(url).status_code == 404
    assert globex.api.patch(url, {"content": "Hijacked."}, {"If-Match": etag}).status_code == 404
    assert globex.api.delete(url, {"If-Match": etag}).status_code == 404
    assert acme.api.patch(url + "?user=bob", {"content": "Hijacked."}, {"If-Match": etag}).status_code == 404
    note.refresh_from_db()
    assert note.content == "The budget is 100k." and read(acme, note) == etag


@pytest.mark.django_db(transaction=True)
def test_of_twelve_simultaneous_corrections_from_one_version_exactly_one_wins(acme):
    note = note_of(acme)
    etag = read(acme, note)
    start, statuses = threading.Barrier(12), []

    def correct(n):
        try:
            start.wait()
            response = acme.api.patch(
                f"/api/v1/memories/{note.pk}/", {"content": f"The budget is {n}0k."}, {"If-Match": etag}
            )
            statuses.append((response.status_code, n))
        finally:
            connection.close()

    threads = [threading.Thread(target=correct, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    winners = [n for status, n in statuses if status == 200]
    assert sorted(status for status, _ in statuses) == [200] + [412] * 11
    note.refresh_from_db()
    assert note.content == f"The budget is {winners[0]}0k."
