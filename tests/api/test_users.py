"""Recall, task states, assistants and experiences, feedback, jobs, erasure and export."""

import pytest

from core.ledger import job_record_create
from core.models import JobRecord
from memory.models import Experience
from tasks.models import TaskState
from tenancy.models import EndUser, Feedback
from tests.api.conftest import error_of
from tests.conftest import wait_for
from tests.factories import MemoryNoteFactory

pytestmark = pytest.mark.django_db

CHAT = "/api/v1/chat/"


def test_recall_shape_isolation_and_no_turn(acme, globex):
    MemoryNoteFactory(end_user=acme.user("alice"), kind="plan", key="budget", content="预算大概 40 万")
    MemoryNoteFactory(end_user=acme.user("bob"), kind="plan", key="budget", content="Bob 预算 90 万")
    MemoryNoteFactory(end_user=globex.user("alice"), kind="plan", key="budget", content="Globex 预算 70 万")
    response = acme.api.get("/api/v1/users/alice/recall/", {"q": "预算", "k": 5})
    assert response.status_code == 200
    body = response.json()
    assert body["query"] == "预算" and len(body["results"]) <= 5
    for item in body["results"]:  # items appear once recall (issue 4) is in
        assert {"type", "id", "kind", "content", "score", "session", "message_ids", "created_at"} <= set(item)
        assert "90" not in item["content"] and "70" not in item["content"]
    other = globex.api.get("/api/v1/users/alice/recall/", {"q": "预算", "k": 5}).json()
    assert all("40" not in item["content"] and "90" not in item["content"] for item in other["results"])
    from tenancy.models import Message

    assert not Message.objects.for_tenant(acme.tenant).exists()  # no turn was added
    assert acme.api.get("/api/v1/users/alice/recall/").status_code == 400  # q is required
    assert acme.api.get("/api/v1/users/alice/recall/", {"q": "x", "k": 101}).status_code == 400
    assert acme.api.get("/api/v1/users/nobody/recall/", {"q": "x"}).status_code == 404


def test_task_states_of_a_user(acme, globex):
    alice = acme.user("alice")
    task = TaskState.objects.for_tenant(acme.tenant).create(
        tenant=acme.tenant,
        end_user=alice,
        task_name="项目计划",
        state="collecting_info",
        required_fields=["预算", "城市"],
        collected={"城市": {"value": "杭州", "message_id": 1}},
        pending_fields=["预算"],
    )
    TaskState.objects.for_tenant(acme.tenant).create(tenant=acme.tenant, end_user=acme.user("bob"), task_name="bob's")
    response = acme.api.get("/api/v1/users/alice/tasks/")
    assert response.status_code == 200
    results = response.json()["results"]
    assert [t["id"] for t in results] == [task.pk]
    assert results[0]["pending_fields"] == ["预算"] and results[0]["collected"]["城市"]["value"] == "杭州"
    assert acme.api.get("/api/v1/users/alice/tasks/", {"state": "completed"}).json()["results"] == []
    assert acme.api.get("/api/v1/users/alice/tasks/", {"state": "done"}).status_code == 400
    assert globex.api.get("/api/v1/users/alice/tasks/").status_code == 404


def test_assistants_and_their_experiences(acme, globex):
    Experience.objects.for_tenant(acme.tenant).create(
        tenant=acme.tenant,
        assistant=acme.assistant,
        task_summary="large batch text classification",
        solution="Use a small model with batching.",
    )
    listing = acme.api.get("/api/v1/assistants/").json()
    assert [a["id"] for a in listing["results"]] == [acme.assistant.pk]
    response = acme.api.get(f"/api/v1/assistants/{acme.assistant.pk}/experiences/")
    assert [e["task_summary"] for e in response.json()["results"]] == ["large batch text classification"]
    assert "contributed_by" not in response.json()["results"][0]
    assert globex.api.get(f"/api/v1/assistants/{acme.assistant.pk}/experiences/").status_code == 404
    assert acme.api.get(f"/api/v1/assistants/{globex.assistant.pk}/experiences/").status_code == 404


def test_feedback_on_a_reply(acme, globex):
    reply = acme.api.post(CHAT, {"user": "alice", "message": "hello"}).json()
    path = f"/api/v1/messages/{reply['message_id']}/feedback/"
    response = acme.api.post(path, {"rating": "up", "comment": "great"})
    assert response.status_code == 201, response.content
    assert response.json()["rating"] == "up"
    acme.api.post(path, {"rating": "down"})
    stored = Feedback.objects.for_tenant(acme.tenant).get()
    assert stored.rating == "down" and stored.end_user.external_id == "alice"  # replaced, not duplicated
    assert acme.api.post(path, {"rating": "meh"}).status_code == 400
    assert acme.api.post(path, {"rating": "up", "stars": 5}).status_code == 400
    user_message = f"/api/v1/messages/{reply['user_message_id']}/feedback/"
    assert acme.api.post(user_message, {"rating": "up"}).status_code == 404  # only replies are rated
    assert globex.api.post(path, {"rating": "up"}).status_code == 404
    assert acme.api.post(path + "?user=bob", {"rating": "up"}).status_code == 404
    assert Feedback.objects.for_tenant(acme.tenant).count() == 1
    assert Feedback.objects.for_tenant(globex.tenant).count() == 0


def test_jobs_are_visible_to_their_tenant_only(acme, globex):
    job = job_record_create(kind="session_import", tenant_id=acme.tenant.pk, progress={"done": 1, "total": 3})
    body = acme.api.get(f"/api/v1/jobs/{job.pk}/").json()
    assert body["status"] == "queued" and body["progress"] == {"done": 1, "total": 3} and body["receipt"] is None
    assert globex.api.get(f"/api/v1/jobs/{job.pk}/").status_code == 404
    platform = job_record_create(kind="ping")  # a platform job has no tenant
    assert acme.api.get(f"/api/v1/jobs/{platform.pk}/").status_code == 404


def _privacy_ready(response) -> None:
    if response.status_code == 501:
        assert error_of(response)["code"] == "not_implemented"
        pytest.skip("the privacy services (issue 7) are not merged yet; the endpoint answers 501")


def test_export_of_a_user(acme, globex):
    acme.api.post(CHAT, {"user": "alice", "message": "export me"})
    assert globex.api.get("/api/v1/users/alice/export/").status_code == 404
    assert acme.api.get("/api/v1/users/nobody/export/").status_code == 404
    response = acme.api.get("/api/v1/users/alice/export/")
    _privacy_ready(response)
    assert response.status_code == 200
    assert "export me" in response.content.decode()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_erasure_is_a_job_with_a_receipt(acme, globex, celery_worker):
    acme.api.post(CHAT, {"user": "alice", "message": "forget me"})
    globex.api.post(CHAT, {"user": "alice", "message": "globex alice stays"})
    assert globex.api.delete("/api/v1/users/bob/").status_code == 404
    response = acme.api.delete("/api/v1/users/alice/")
    _privacy_ready(response)
    assert response.status_code == 202
    job_id = response.json()["job"]
    assert globex.api.get(f"/api/v1/jobs/{job_id}/").status_code == 404

    def done():
        body = acme.api.get(f"/api/v1/jobs/{job_id}/").json()
        return body if body["status"] in ("succeeded", "failed") else None

    job = wait_for(done, timeout=60, message="the erasure job")
    assert job["status"] == "succeeded", job
    assert job["receipt"] and job["receipt"]["counts"]
    assert "alice" not in str(job["receipt"])
    assert not EndUser.objects.for_tenant(acme.tenant).filter(external_id="alice").exists()
    assert EndUser.objects.for_tenant(globex.tenant).filter(external_id="alice").exists()
    assert JobRecord.objects.filter(pk=job_id).exists()
