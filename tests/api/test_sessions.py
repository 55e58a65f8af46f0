"""Sessions: list, get (summary, pinned facts), messages, delete, and importing a conversation."""

from datetime import UTC, datetime, timedelta

import pytest

from core.models import JobRecord
from memory.models import MemoryNote
from tenancy.models import ChatSession, Message
from tests.api.conftest import error_of
from tests.conftest import wait_for

pytestmark = pytest.mark.django_db

CHAT = "/api/v1/chat/"


def chat(kit, user, message, session=None):
    body = {"user": user, "message": message}
    if session:
        body["session"] = session
    return kit.api.post(CHAT, body).json()


def test_list_get_messages_and_delete(acme):
    first = chat(acme, "alice", "first")
    chat(acme, "alice", "second", first["session"])
    other = chat(acme, "alice", "another conversation")
    ChatSession.objects.for_tenant(acme.tenant).filter(pk=first["session"]).update(
        summary="Alice is opening a café.", pinned_facts={"budget": {"value": "40万", "message_id": 1}}
    )

    listing = acme.api.get("/api/v1/users/alice/sessions/").json()
    assert [s["id"] for s in listing["results"]] == [other["session"], first["session"]]  # recent first
    assert listing["count"] == 2 and listing["next"] is None
    by_id = {s["id"]: s for s in listing["results"]}
    assert by_id[first["session"]]["message_count"] == 4

    detail = acme.api.get(f"/api/v1/sessions/{first['session']}/").json()
    assert detail["summary"] == "Alice is opening a café."
    assert detail["pinned_facts"]["budget"]["value"] == "40万"
    assert detail["user"] == "alice"

    messages = acme.api.get(f"/api/v1/sessions/{first['session']}/messages/").json()
    assert [(m["role"], m["content"]) for m in messages["results"][::2]] == [("user", "first"), ("user", "second")]

    assert acme.api.delete(f"/api/v1/sessions/{first['session']}/").status_code == 204
    assert not Message.objects.for_tenant(acme.tenant).filter(session_id=first["session"]).exists()
    assert acme.api.get(f"/api/v1/sessions/{first['session']}/").status_code == 404
    assert acme.api.get("/api/v1/users/alice/sessions/").json()["count"] == 1


def test_pagination_has_next_and_page_size(acme):
    for n in range(3):
        chat(acme, "alice", f"m{n}")
    page = acme.api.get("/api/v1/users/alice/sessions/", {"page_size": 2}).json()
    assert len(page["results"]) == 2 and page["next"] and "page=2" in page["next"]
    last = acme.api.get("/api/v1/users/alice/sessions/", {"page_size": 2, "page": 2}).json()
    assert len(last["results"]) == 1 and last["next"] is None
    assert acme.api.get("/api/v1/users/alice/sessions/", {"page": 9}).status_code == 404


def test_sessions_are_invisible_to_other_tenants_and_other_users(acme, globex):
    alice = chat(acme, "alice", "private")
    chat(acme, "bob", "bob's")
    sid = alice["session"]
    for path in (f"/api/v1/sessions/{sid}/", f"/api/v1/sessions/{sid}/messages/"):
        assert globex.api.get(path).status_code == 404
        assert acme.api.get(path, {"user": "bob"}).status_code == 404  # the ?user= safeguard
        assert acme.api.get(path, {"user": "alice"}).status_code == 200
    assert globex.api.delete(f"/api/v1/sessions/{sid}/").status_code == 404
    assert acme.api.delete(f"/api/v1/sessions/{sid}/?user=bob").status_code == 404
    assert ChatSession.objects.for_tenant(acme.tenant).filter(pk=sid).exists()
    assert globex.api.get("/api/v1/users/alice/sessions/").status_code == 404  # globex has no alice
    bob = acme.api.get("/api/v1/users/bob/sessions/").json()
    assert sid not in [s["id"] for s in bob["results"]]


def test_unknown_user_reads_are_404_and_bad_user_ids_are_400(acme):
    response = acme.api.get("/api/v1/users/nobody/sessions/")
    assert response.status_code == 404 and error_of(response)["code"] == "user_not_found"
    response = acme.api.post("/api/v1/users/" + "x" * 201 + "/sessions/", {"messages": []})
    assert response.status_code == 400


HISTORY = [
    {"role": "user", "content": "I'm planning a bakery in Chengdu.", "created_at": "2025-03-01T09:00:00Z"},
    {"role": "assistant", "content": "Great, what's your budget?", "created_at": "2025-03-01T09:00:30Z"},
    {"role": "user", "content": "我的预算大概 30 万", "created_at": "2025-03-01T09:02:00+08:00"},
]


def _import(kit, user="carol", messages=HISTORY, **extra):
    return kit.api.post(f"/api/v1/users/{user}/sessions/", {"messages": messages, "title": "Old chat", **extra})


def test_import_keeps_order_and_original_times(acme):
    # HISTORY's third message is 09:02+08:00 = 01:02Z, earlier than the first: refused, nothing stored
    response = _import(acme)
    assert response.status_code == 400 and "chronological" in error_of(response)["message"]

    messages = [dict(m) for m in HISTORY]
    messages[2]["created_at"] = "2025-03-01T17:02:00+08:00"
    response = _import(acme, messages=messages)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["session"]["user"] == "carol" and body["session"]["title"] == "Old chat"
    stored = list(
        Message.objects.for_tenant(acme.tenant).filter(session_id=body["session"]["id"]).order_by("created_at", "id")
    )
    assert [m.pk for m in stored] == body["message_ids"]
    assert [m.content for m in stored] == [m["content"] for m in messages]
    assert stored[0].created_at == datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
    assert stored[2].created_at == datetime(2025, 3, 1, 9, 2, tzinfo=UTC)
    session = ChatSession.objects.for_tenant(acme.tenant).get(pk=body["session"]["id"])
    assert session.created_at == stored[0].created_at and session.last_activity_at == stored[2].created_at
    job = JobRecord.objects.get(pk=body["job"])
    assert job.kind == "session_import" and job.tenant_id == acme.tenant.pk
    assert acme.api.get(f"/api/v1/jobs/{job.pk}/").json()["progress"]["total"] == 2


@pytest.mark.parametrize(
    "messages, problem",
    [
        ([], "messages"),
        ([{"role": "system", "content": "x", "created_at": "2025-01-01T00:00:00Z"}], "messages"),
        ([{"role": "user", "content": "x"}], "messages"),
        ([{"role": "user", "content": "x", "created_at": "yesterday"}], "messages"),
        ([{"role": "user", "content": "x", "created_at": "2025-01-01T00:00:00Z", "extra": 1}], "messages"),
        ([{"role": "user", "content": "", "created_at": "2025-01-01T00:00:00Z"}], "messages"),
        ([{"role": "user", "content": "x", "created_at": "2999-01-01T00:00:00Z"}], "messages[0]"),
        ("not a list", "messages"),
    ],
)
def test_import_rejects_bad_messages_and_stores_nothing(acme, messages, problem):
    response = _import(acme, messages=messages)
    assert response.status_code == 400, response.content
    assert error_of(response)["message"].startswith(problem)
    assert not ChatSession.objects.for_tenant(acme.tenant).exists()


def test_import_limit_on_message_count(acme, settings):
    from api.views.sessions import ImportRequest

    limit = ImportRequest().fields["messages"].max_length
    assert limit == settings.API_IMPORT_MAX_MESSAGES
    too_many = [{"role": "user", "content": "x", "created_at": "2025-01-01T00:00:00Z"}] * (limit + 1)
    response = _import(acme, messages=too_many)
    assert response.status_code == 400


def test_import_into_another_tenants_assistant_is_404(acme, globex):
    messages = [dict(m) for m in HISTORY[:2]]
    response = _import(acme, messages=messages, assistant=globex.assistant.pk)
    assert response.status_code == 404
    assert not ChatSession.objects.for_tenant(acme.tenant).exists()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_large_import_is_processed_by_a_job_with_progress(acme, celery_worker):
    start = datetime(2024, 6, 1, 8, 0, tzinfo=UTC)
    messages = []
    for n in range(300):
        role = "user" if n % 2 == 0 else "assistant"
        text = f"I like hiking trip number {n}" if role == "user" else f"Noted {n}."
        messages.append({"role": role, "content": text, "created_at": (start + timedelta(minutes=n)).isoformat()})
    response = _import(acme, user="dave", messages=messages)
    assert response.status_code == 201
    body = response.json()
    assert len(body["message_ids"]) == 300

    def finished():
        job = acme.api.get(f"/api/v1/jobs/{body['job']}/").json()
        return job if job["status"] in ("succeeded", "failed") else None

    job = wait_for(finished, timeout=120, message="the import job")
    assert job["status"] == "succeeded", job
    assert job["progress"] == {"stage": "done", "done": 150, "total": 150}
    assert job["result"]["user_messages"] == 150
    assert job["result"]["message_vectors"] == 150  # every user message embedded for episodic recall
    # Notes learnt from imported messages say when the user said it (observed_at), and live from when learnt.
    notes = MemoryNote.objects.for_tenant(acme.tenant).filter(end_user__external_id="dave")
    for note in notes.prefetch_related("source_messages"):
        sources = list(note.source_messages.all())
        if sources:
            assert note.observed_at <= max(m.created_at for m in sources) + timedelta(seconds=1)
            assert note.observed_at < start + timedelta(days=1)
            assert note.expires_at is None or note.expires_at > datetime.now(UTC)
