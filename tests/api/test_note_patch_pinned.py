"""A note corrected through the API (PATCH /api/v1/memories/<id>/) keeps the conversation in step, as the web
correction does (issue 42): the pinned fact the note's message set says the corrected value, so the chat's
"What we have settled" line says it too. Only that user's conversations change; a refused or failed PATCH
changes neither the note nor the pinned facts."""

from memory.models import MemoryNote
from tenancy.models import ChatSession
from tests.api.test_memory_events import turn


def _budget(kit, external_id) -> MemoryNote:
    return MemoryNote.objects.for_tenant(kit.tenant).get(
        end_user__external_id=external_id, status="active", key__endswith="budget"
    )


def _pinned_budget(kit, session_id) -> str:
    return ChatSession.objects.for_tenant(kit.tenant).get(pk=session_id).pinned_facts["budget"]["value"]


def test_a_patched_note_moves_the_pinned_fact_and_the_settled_line(acme):
    alice = turn(acme, "alice", "My budget is about 400k.")
    bob = turn(acme, "bob", "My budget is about 400k.")
    note = _budget(acme, "alice")
    assert _pinned_budget(acme, alice["session"]) == "400k"

    response = acme.api.patch(f"/api/v1/memories/{note.pk}/", {"content": "The user's budget is 300k."})
    assert response.status_code == 200
    assert _pinned_budget(acme, alice["session"]) == "300k"
    reply = turn(acme, "alice", "What should I spend first?", session=alice["session"], extract=False)["reply"]
    settled = next(line for line in reply.splitlines() if "settled" in line)
    assert "300k" in settled and "400k" not in settled
    assert _pinned_budget(acme, bob["session"]) == "400k"  # another user's identical fact stays


def test_a_refused_or_failed_patch_changes_neither_the_note_nor_the_pinned_fact(acme, globex, monkeypatch):
    alice = turn(acme, "alice", "我的预算大概 40 万。")
    note = _budget(acme, "alice")
    url = f"/api/v1/memories/{note.pk}/"
    body = {"content": "用户的预算为 30 万元。"}
    assert acme.api.patch(url, body, headers={"If-Match": '"stale"'}).status_code == 412
    assert globex.api.patch(url, body).status_code == 404
    acme.user("bob")
    assert acme.api.patch(f"{url}?user=bob", body).status_code == 404

    def broken(**kwargs):
        raise RuntimeError("the pinned facts could not be written")

    monkeypatch.setattr("api.views.memories.session_pinned_follow_notes", broken)
    acme.api.client.raise_request_exception = False
    assert acme.api.patch(url, body).status_code == 500
    assert _budget(acme, "alice").content == note.content
    assert _pinned_budget(acme, alice["session"]) == "40 万"
