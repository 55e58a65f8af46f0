"""Extreme data for one user, CI size (the full size is load/scale_check.py: 10,000 sessions, 100,000 notes).

One user has thousands of sessions, another thousands of notes. Every page that lists them (REST API, web chat,
"What I remember", admin) answers one page, with a number of queries that does not grow with the data: the same
as for a user with a little more than one page. Export reads in batches and streams; erasure removes everything.
"""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from assistants.services.privacy import EXPORT_BATCH, user_erase
from assistants.services.tenants import api_key_create, end_user_create_with_login, tenant_create
from load.scale_data import bulk_notes, bulk_sessions
from memory.models import MemoryNote
from tenancy.models import Assistant, ChatSession, EndUser, Message

MANY = 2_000
FEW = 60  # a little more than one page (50)


def person(tenant, name: str) -> tuple[EndUser, Client]:
    user = end_user_create_with_login(
        tenant=tenant, external_id=name, username=f"{tenant.slug}-{name}", password="scale-test-pw"
    )
    client = Client()
    assert user.user is not None  # end_user_create_with_login gives the end user a login
    client.force_login(user.user)
    return user, client


@pytest.fixture
def world(db):
    tenant, _ = tenant_create(slug="scale", name="Scale Co")
    assistant = Assistant.objects.for_tenant(tenant).get()
    _, key = api_key_create(tenant=tenant, name="scale")
    users = {}
    for name, sessions, notes in [
        ("big-sessions", MANY, 0),
        ("few-sessions", FEW, 0),
        ("big-notes", 0, MANY),
        ("few-notes", 0, FEW),
    ]:
        user, client = person(tenant, name)
        bulk_sessions(tenant=tenant, end_user=user, assistant=assistant, count=sessions)
        bulk_notes(tenant=tenant, end_user=user, count=notes)
        users[name] = (user, client)
    return tenant, Client(HTTP_AUTHORIZATION=f"Bearer {key}"), users


def queries(fn):
    """The response and how many SQL queries it took (run once before, so one-off work such as marking an API key
    used is not counted)."""
    fn()
    with CaptureQueriesContext(connection) as ctx:
        response = fn()
    assert response.status_code == 200, response.status_code
    return response, len(ctx.captured_queries)


def test_api_lists_sessions_and_notes_one_page_at_a_time(world):
    _tenant, api, _users = world
    big, big_queries = queries(lambda: api.get("/api/v1/users/big-sessions/sessions/"))
    _few, few_queries = queries(lambda: api.get("/api/v1/users/few-sessions/sessions/"))
    body = big.json()
    assert body["count"] == MANY and len(body["results"]) == 50 and body["next"]
    assert big_queries == few_queries
    last, _ = queries(lambda: api.get("/api/v1/users/big-sessions/sessions/", {"page": MANY // 50}))
    assert len(last.json()["results"]) == 50 and last.json()["next"] is None
    ids = {s["id"] for s in body["results"]} | {s["id"] for s in last.json()["results"]}
    assert len(ids) == 100  # different pages, different sessions

    notes, notes_queries = queries(lambda: api.get("/api/v1/users/big-notes/memories/"))
    _few, few_notes_queries = queries(lambda: api.get("/api/v1/users/few-notes/memories/"))
    assert notes.json()["count"] == MANY and len(notes.json()["results"]) == 50
    assert notes_queries == few_notes_queries


def test_recall_for_a_user_with_thousands_of_notes_returns_only_theirs(world):
    _tenant, api, users = world
    big_notes_user = users["big-notes"][0]
    response, _ = queries(lambda: api.get("/api/v1/users/big-notes/recall/", {"q": "成都 火锅 开店"}))
    results = response.json()["results"]
    assert results, "recall found nothing among thousands of matching notes"
    own = set(
        MemoryNote.objects.for_tenant(big_notes_user.tenant)
        .filter(end_user=big_notes_user)
        .values_list("pk", flat=True)
    )
    assert all(item["id"] in own for item in results if item["type"] == "note")


def test_web_and_admin_pages_show_one_page_with_bounded_queries(world, admin_client):
    _tenant, _api, users = world
    big, big_q = queries(lambda: users["big-sessions"][1].get("/", follow=True))
    _few, few_q = queries(lambda: users["few-sessions"][1].get("/", follow=True))
    html = big.content.decode()
    assert html.count('class="session-link') == 50 and "?sessions=2" in html
    assert big_q == few_q
    older, _ = queries(lambda: users["big-sessions"][1].get(big.redirect_chain[-1][0], {"sessions": 2}))
    assert older.content.decode().count('class="session-link') == 50

    memory, memory_q = queries(lambda: users["big-notes"][1].get("/memory/"))
    _few, few_memory_q = queries(lambda: users["few-notes"][1].get("/memory/"))
    assert memory.content.decode().count('class="note card"') == 50 and "?page=2" in memory.content.decode()
    assert memory_q == few_memory_q
    last, _ = queries(lambda: users["big-notes"][1].get("/memory/", {"page": "last"}))
    assert last.content.decode().count('class="note card"') == (MANY % 50 or 50)

    for path, name in [
        ("/admin/tenancy/chatsession/", "big-sessions"),
        ("/admin/memory/memorynote/", "big-notes"),
        ("/admin/tenancy/message/", "big-sessions"),
    ]:
        user = users[name][0]
        _page, big_admin_q = queries(lambda: admin_client.get(path, {"end_user__id__exact": user.pk}))  # noqa: B023 - called at once
        few = users[name.replace("big", "few")][0]
        _page, few_admin_q = queries(lambda: admin_client.get(path, {"end_user__id__exact": few.pk}))  # noqa: B023 - called at once
        assert big_admin_q == few_admin_q, path


def test_export_reads_in_batches_and_streams(world, settings):
    tenant, api, users = world
    settings.EXPORT_MEMORY_BYTES = 10_000  # far below this export: it must be streamed from a temporary file
    with CaptureQueriesContext(connection) as ctx:
        response = api.get("/api/v1/users/big-sessions/export/")
        body = b"".join(response.streaming_content)
    assert response.status_code == 200 and response.streaming
    assert int(response["Content-Length"]) == len(body)
    document = json.loads(body)
    assert len(document["sessions"]) == MANY
    assert all(len(s["messages"]) == 1 and s["messages"][0]["session_id"] == s["id"] for s in document["sessions"])
    # a few queries per batch of EXPORT_BATCH sessions, not a few per session
    assert len(ctx.captured_queries) < 20 + 4 * (MANY // EXPORT_BATCH)

    response = users["big-notes"][1].get("/account/export/")
    document = json.loads(b"".join(response.streaming_content))
    assert len(document["memory_notes"]) == MANY and document["sessions"] == []
    settings.EXPORT_MEMORY_BYTES = 10_000_000  # small exports are answered whole
    response = api.get("/api/v1/users/few-sessions/export/")
    assert not response.streaming and len(response.json()["sessions"]) == FEW


def test_erasure_of_users_with_thousands_of_rows_removes_everything_and_nothing_else(world, settings):
    tenant, _api, users = world
    settings.ERASURE_BATCH_SIZE = 500
    notes_user, sessions_user = users["big-notes"][0], users["big-sessions"][0]
    kept_notes = MemoryNote.objects.for_tenant(tenant).exclude(end_user__in=[notes_user, sessions_user]).count()
    with CaptureQueriesContext(connection) as ctx:
        counts = user_erase(tenant_id=tenant.pk, end_user_id=notes_user.pk, requested_by="test")
    assert counts["memory.MemoryNote"] == MANY
    assert len(ctx.captured_queries) < 40 * (MANY // 500 + 2)  # per batch, not per row
    counts = user_erase(tenant_id=tenant.pk, end_user_id=sessions_user.pk, requested_by="test")
    assert counts["assistants.ChatSession"] == MANY and counts["assistants.Message"] == MANY
    assert not EndUser.objects.for_tenant(tenant).filter(pk__in=[notes_user.pk, sessions_user.pk]).exists()
    assert not ChatSession.objects.for_tenant(tenant).filter(end_user_id=sessions_user.pk).exists()
    assert not Message.objects.for_tenant(tenant).filter(end_user_id=sessions_user.pk).exists()
    assert MemoryNote.objects.for_tenant(tenant).count() == kept_notes == FEW
