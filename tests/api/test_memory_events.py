"""GET /api/v1/messages/<id>/memory-events/, its undo, and the `memory` event of the streaming chat (issue 16):
what a turn wrote, superseded or forgot, for the turn's own user only."""

import pytest

from memory.models import MemoryNote
from memory.services.writing.extraction import memory_extract_for_message
from tenancy.models import ChatSession
from tests.api.conftest import error_of
from tests.api.test_chat import parse_sse

CHAT = "/api/v1/chat/"


def turn(kit, user, text, session=None, extract=True):
    body = {"user": user, "message": text, **({"session": session} if session else {})}
    reply = kit.api.post(CHAT, body).json()
    if extract:
        memory_extract_for_message(tenant_id=kit.tenant.pk, message_id=reply["user_message_id"])
    return reply


def events_url(message_id):
    return f"/api/v1/messages/{message_id}/memory-events/"


def test_a_turn_lists_what_it_wrote_and_superseded_and_undo_restores_the_old_version(acme, globex):
    first = turn(acme, "alice", "我的预算是 20 万元。")
    body = acme.api.get(events_url(first["message_id"])).json()
    assert body["status"] == "done" and body["message_id"] == first["user_message_id"]
    assert [(e["action"], e["label"]) for e in body["events"]] == [("written", "budget 20 万元")]
    second = turn(acme, "alice", "预算改成 30 万元了。", session=first["session"])
    [event] = acme.api.get(events_url(second["message_id"])).json()["events"]
    assert event["action"] == "superseded" and event["before"]["label"] == "budget 20 万元"
    assert event["label"] == "budget 30 万元" and event["undoable"] and not event["undone"]

    # another tenant's key and another user of the same tenant get the same 404 as a missing message
    assert error_of(globex.api.get(events_url(second["message_id"])))["code"] == "not_found"
    acme.user("bob")
    assert acme.api.get(events_url(second["message_id"]), {"user": "bob"}).status_code == 404
    undo = f"{events_url(second['message_id'])}{event['note_id']}/undo/"
    assert globex.api.post(undo).status_code == 404

    done = acme.api.post(undo)
    assert done.status_code == 200 and done.json()["undone"] is True
    active = MemoryNote.objects.for_tenant(acme.tenant).filter(end_user__external_id="alice", status="active")
    assert [n.value["amount"] for n in active] == [200000]
    assert acme.api.get(events_url(second["message_id"])).json()["events"][0]["undone"] is True
    # the conversation's pinned facts follow the Undo (issue 42): they said 30 万 after the notes said 20 万
    pinned = ChatSession.objects.for_tenant(acme.tenant).get(pk=first["session"]).pinned_facts
    assert pinned["budget"]["value"].startswith("20 万")


def test_a_forget_is_an_event_without_the_forgotten_text(acme):
    first = turn(acme, "carol", "I'm allergic to shellfish.")
    forget = turn(acme, "carol", "Please forget that I'm allergic to shellfish.", session=first["session"])
    assert "shellfish" in forget["reply"] and "notes" in forget["reply"]
    [event] = acme.api.get(events_url(forget["user_message_id"])).json()["events"]
    # the allergy was a pinned fact of the session too: it is gone from both, and the event says so
    assert event["action"] == "forgotten" and event["places"] == ["notes", "pinned"] and not event["undoable"]
    assert "shellfish" not in str(event)
    session = ChatSession.objects.for_tenant(acme.tenant).get(pk=first["session"])
    assert "shellfish" not in str(session.pinned_facts) and "shellfish" not in session.summary
    assert acme.api.post(f"{events_url(forget['user_message_id'])}1/undo/").status_code == 404


def test_an_unfinished_turn_is_pending_and_bad_ids_are_404(acme):
    reply = turn(acme, "dave", "I have two dogs.", extract=False)
    assert acme.api.get(events_url(reply["user_message_id"])).json() == {
        "message_id": reply["user_message_id"],
        "status": "pending",
        "events": [],
    }
    assert acme.api.get(events_url(999999999)).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_the_stream_sends_the_memory_event_once_the_worker_has_extracted(celery_worker, acme, settings):
    settings.MEMORY_EVENTS_WAIT_SECONDS = 60
    response = acme.api.post(CHAT, {"user": "erin", "message": "Our budget is 12,000 euros.", "stream": True})
    events = parse_sse(b"".join(response.streaming_content))
    assert [kind for kind, _ in events][-2:] == ["done", "memory"]
    memory = events[-1][1]
    assert memory["status"] == "done" and memory["message_id"] == events[-2][1]["user_message_id"]
    assert [(e["action"], e["label"]) for e in memory["events"]] == [("written", "budget 12,000 euros")]


def test_a_patch_by_the_integrator_is_final_until_the_user_restates_it(acme):
    first = turn(acme, "frank", "Our budget is 40,000 dollars.")
    [note] = MemoryNote.objects.for_tenant(acme.tenant).filter(end_user__external_id="frank", status="active")
    patched = acme.api.patch(f"/api/v1/memories/{note.pk}/", {"content": "The user's budget is $45,000."})
    assert patched.status_code == 200
    for text in ("We're a team of 6 people.", "I use a MacBook Pro 14 at work.", "about 50,000 dollars, I think"):
        reply = turn(acme, "frank", text, session=first["session"])
        assert acme.api.get(events_url(reply["message_id"])).json()["events"] == [] or all(
            e["key"] != "budget" for e in acme.api.get(events_url(reply["message_id"])).json()["events"]
        )
    active = MemoryNote.objects.for_tenant(acme.tenant).filter(
        end_user__external_id="frank", status="active", key="budget"
    )
    assert [n.pk for n in active] == [note.pk]
    reply = turn(acme, "frank", "Our budget is now 60,000 dollars.", session=first["session"])
    [event] = acme.api.get(events_url(reply["message_id"])).json()["events"]
    assert event["action"] == "superseded" and event["before"]["label"] == "budget $45,000"
    assert event["label"] == "budget $60,000"


def test_the_forget_endpoint_reaches_every_place_too(acme):
    first = turn(acme, "gina", "I'm allergic to peanuts.")
    other = turn(acme, "hugo", "I'm allergic to peanuts.")
    body = acme.api.post("/api/v1/users/gina/memories/forget/", {"query": "that I'm allergic to peanuts"}).json()
    assert body["places"] == ["notes", "pinned"] and len(body["forgotten"]) == 1
    session = ChatSession.objects.for_tenant(acme.tenant).get(pk=first["session"])
    assert "peanut" not in str(session.pinned_facts)
    hugo = ChatSession.objects.for_tenant(acme.tenant).get(pk=other["session"])
    assert "peanut" in str(hugo.pinned_facts)  # another user's identical fact stays
