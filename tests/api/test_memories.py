"""Long-term memory endpoints: list/filter/search, add, get/patch/delete, history, forget by query."""

import pytest

from memory.models import MemoryNote
from tests.api.conftest import error_of
from tests.factories import MemoryNoteFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def notes(acme, globex):
    alice, bob = acme.user("alice"), acme.user("bob")
    return {
        "coffee": MemoryNoteFactory(end_user=alice, kind="preference", content="The user drinks americano."),
        "city": MemoryNoteFactory(
            end_user=alice, kind="profile", key="city", content="The user lives in Hangzhou.", source="admin"
        ),
        "old": MemoryNoteFactory(end_user=alice, kind="plan", key="budget", content="预算 10 万", status="superseded"),
        "bob": MemoryNoteFactory(end_user=bob, kind="preference", content="Bob drinks tea."),
        "globex": MemoryNoteFactory(end_user=globex.user("alice"), kind="preference", content="Globex alice note."),
    }


def ids(response):
    assert response.status_code == 200, response.content
    return {n["id"] for n in response.json()["results"]}


def test_list_defaults_to_active_and_filters(acme, notes):
    base = "/api/v1/users/alice/memories/"
    assert ids(acme.api.get(base)) == {notes["coffee"].pk, notes["city"].pk}
    assert ids(acme.api.get(base, {"kind": "profile"})) == {notes["city"].pk}
    assert ids(acme.api.get(base, {"source": "admin"})) == {notes["city"].pk}
    assert ids(acme.api.get(base, {"status": "superseded"})) == {notes["old"].pk}
    assert ids(acme.api.get(base, {"status": "all"})) == {notes["coffee"].pk, notes["city"].pk, notes["old"].pk}
    response = acme.api.get(base, {"kind": "hobby"})
    assert response.status_code == 400 and error_of(response)["message"].startswith("kind:")


def test_list_never_shows_another_users_or_tenants_notes(acme, globex, notes):
    assert notes["bob"].pk not in ids(acme.api.get("/api/v1/users/alice/memories/"))
    assert ids(globex.api.get("/api/v1/users/alice/memories/")) == {notes["globex"].pk}
    assert ids(acme.api.get("/api/v1/users/alice/memories/", {"q": "tea"})).isdisjoint(
        {notes["bob"].pk, notes["globex"].pk}
    )


def test_search_returns_scored_notes_from_recall(acme, notes):
    """?q= goes through memory_recall; scores appear once recall (issue 4) ranks notes."""
    response = acme.api.get("/api/v1/users/alice/memories/", {"q": "americano coffee", "k": 5})
    assert response.status_code == 200
    results = response.json()["results"]
    assert all(isinstance(n["score"], float) for n in results)
    assert [n["score"] for n in results] == sorted((n["score"] for n in results), reverse=True)
    assert {n["id"] for n in results} <= {notes["coffee"].pk, notes["city"].pk, notes["old"].pk}
    assert acme.api.get("/api/v1/users/alice/memories/", {"k": 0, "q": "x"}).status_code == 400


def test_add_a_note(acme, globex):
    response = acme.api.post(
        "/api/v1/users/erin/memories/",
        {
            "kind": "profile",
            "key": "diet",
            "content": "The user is vegetarian.",
            "source": "tool_result",
            "confidence": 0.95,
        },
    )
    assert response.status_code == 201, response.content
    body = response.json()
    note = MemoryNote.objects.for_tenant(acme.tenant).get(pk=body["id"])
    assert (note.end_user.external_id, note.kind, note.source, note.content) == (
        "erin",
        "profile",
        "tool_result",
        "The user is vegetarian.",
    )
    assert body["user"] == "erin" and body["confidence"] == 0.95
    assert globex.api.get("/api/v1/users/erin/memories/").status_code == 404  # globex has no erin
    assert globex.api.get(f"/api/v1/memories/{body['id']}/").status_code == 404


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "profile", "content": "x", "source": "user_stated"},  # only admin / tool_result from the API
        {"kind": "hobby", "content": "x"},
        {"kind": "profile", "content": ""},
        {"kind": "profile", "content": "x", "confidence": 1.5},
        {"kind": "profile", "content": "x", "confidence": "high"},
        {"kind": "profile", "content": "x", "colour": "red"},
    ],
)
def test_add_a_note_rejects_bad_input(acme, body):
    response = acme.api.post("/api/v1/users/erin/memories/", body)
    assert response.status_code == 400
    error_of(response)
    assert not MemoryNote.objects.for_tenant(acme.tenant).exists()


def test_get_patch_delete_a_note(acme, notes):
    path = f"/api/v1/memories/{notes['city'].pk}/"
    assert acme.api.get(path).json()["content"] == "The user lives in Hangzhou."
    response = acme.api.patch(path, {"content": "The user lives in Suzhou.", "pinned": True})
    assert response.status_code == 200, response.content
    assert response.json()["content"] == "The user lives in Suzhou." and response.json()["pinned"] is True
    notes["city"].refresh_from_db()
    assert notes["city"].content == "The user lives in Suzhou."
    assert acme.api.patch(path, {}).status_code == 400
    assert acme.api.patch(path, {"status": "active"}).status_code == 400  # not a correctable field
    assert acme.api.delete(path).status_code == 204
    notes["city"].refresh_from_db()
    assert notes["city"].status == "forgotten" and "Suzhou" not in notes["city"].content
    response = acme.api.patch(path, {"content": "back"})
    assert response.status_code == 409 and error_of(response)["code"] == "note_forgotten"
    assert acme.api.delete(path).status_code == 204  # forgetting twice is fine


def test_note_endpoints_are_404_for_another_tenant_or_user(acme, globex, notes):
    pk = notes["coffee"].pk
    for call in (
        lambda api, p: api.get(p),
        lambda api, p: api.patch(p, {"content": "hacked"}),
        lambda api, p: api.delete(p),
    ):
        assert call(globex.api, f"/api/v1/memories/{pk}/").status_code == 404
        assert call(acme.api, f"/api/v1/memories/{pk}/?user=bob").status_code == 404
    assert globex.api.get(f"/api/v1/memories/{pk}/history/").status_code == 404
    assert acme.api.get(f"/api/v1/memories/{pk}/history/", {"user": "bob"}).status_code == 404
    notes["coffee"].refresh_from_db()
    assert notes["coffee"].content == "The user drinks americano." and notes["coffee"].status == "active"


def test_history_is_the_supersede_chain(acme, notes):
    new = MemoryNoteFactory(
        end_user=notes["old"].end_user, kind="plan", key="budget", content="预算 15 万", supersedes=notes["old"]
    )
    response = acme.api.get(f"/api/v1/memories/{new.pk}/history/")
    assert [n["content"] for n in response.json()["results"]] == ["预算 10 万", "预算 15 万"]
    assert response.json()["results"][0]["superseded_by"] == [new.pk]


def test_forget_by_query_returns_the_contract_and_touches_no_one_else(acme, globex, notes):
    response = acme.api.post("/api/v1/users/alice/memories/forget/", {"query": "americano"})
    assert response.status_code == 200
    forgotten = response.json()["forgotten"]
    for item in forgotten:  # filled by the long-term memory layer (issue 4)
        assert set(item) == {"id", "kind", "content"}
        assert item["id"] in {notes["coffee"].pk, notes["city"].pk}
    for key in ("bob", "globex"):
        notes[key].refresh_from_db()
        assert notes[key].status == "active"
    assert acme.api.post("/api/v1/users/alice/memories/forget/", {"query": ""}).status_code == 400
    assert acme.api.post("/api/v1/users/nobody/memories/forget/", {"query": "x"}).status_code == 404
    assert globex.api.post("/api/v1/users/bob/memories/forget/", {"query": "tea"}).status_code == 404
