"""The connected model's contract (memory.reading.model_engine), against the scripted OpenAI-compatible server: the
model is shown the user's nearest notes by id, and answers with acts on those ids; code decides what they may do.
A second user holds the same words every time."""

import json

import pytest

from core.policy import memory_policy_for
from memory.models import MemoryNote
from memory.services.notes.notes import memory_note_create
from memory.services.writing.extraction import memory_extract_for_message

pytestmark = pytest.mark.django_db


def _note(person, content, key=""):
    return memory_note_create(
        tenant=person.tenant,
        end_user=person.end_user,
        kind="profile",
        key=key,
        content=content,
        source="user_stated",
        confidence=0.85,
        actor="test",
        policy=memory_policy_for(tenant=person.tenant),
    )


def _model_says(person, scripted_llm, text, candidates):
    turn = person.say(text, extract=False)
    scripted_llm.reset()
    scripted_llm.push("chat", {"candidates": candidates})
    result = memory_extract_for_message(tenant_id=person.tenant.pk, message_id=turn.user_message.pk)
    return result, scripted_llm.chat_requests()


def _status(note):
    return MemoryNote.objects.for_tenant(note.tenant).get(pk=note.pk).status


def test_the_model_is_shown_the_users_own_nearest_notes_by_id_and_never_another_users(make_person, scripted_llm):
    alice = make_person(chat_model="scripted-model")
    bob = make_person(tenant=alice.tenant)
    mine = _note(alice, "The user plays tennis every Sunday morning.")
    theirs = _note(bob, "The user plays tennis every Saturday evening.")
    _result, requests = _model_says(alice, scripted_llm, "I play tennis on Sundays at the club.", [])
    shown = json.dumps(requests[-1]["messages"], ensure_ascii=False)
    assert f"[{mine.pk}] The user plays tennis every Sunday morning." in shown
    assert f"[{theirs.pk}]" not in shown and "Saturday" not in shown


def test_an_update_on_a_shown_id_replaces_that_note(make_person, scripted_llm):
    alice = make_person(chat_model="scripted-model")
    old = _note(alice, "The user lives in Paris.")
    text = "I moved to Berlin last month."
    update = {
        "op": "update",
        "note_id": old.pk,
        "kind": "profile",
        "content": "The user moved to Berlin last month.",
        "confidence": 0.9,
        "quote": text,
    }
    result, _requests = _model_says(alice, scripted_llm, text, [update])
    assert result.get("superseded") == 1, result
    assert _status(old) == MemoryNote.Status.SUPERSEDED
    assert [n.content for n in alice.notes()] == ["The user moved to Berlin last month."]


def test_an_id_the_model_was_not_shown_changes_nothing_of_anyone(make_person, scripted_llm):
    alice = make_person(chat_model="scripted-model")
    bob = make_person(tenant=alice.tenant)
    theirs = _note(bob, "The user lives in Rome.")
    text = "I moved to Berlin last month."
    acts = [
        {
            "op": "update",
            "note_id": theirs.pk,
            "kind": "profile",
            "content": "The user moved to Berlin.",
            "confidence": 0.9,
            "quote": text,
        },
        {
            "op": "delete",
            "note_id": theirs.pk,
            "kind": "profile",
            "content": "The user lives in Rome.",
            "confidence": 0.9,
        },
    ]
    _model_says(alice, scripted_llm, text, acts)
    assert _status(theirs) == MemoryNote.Status.ACTIVE
    assert [n.content for n in alice.notes()] == ["The user moved to Berlin."]  # an addition for her, no more


def test_a_delete_is_applied_only_for_a_forget_request_the_reader_also_read(make_person, scripted_llm):
    alice = make_person(chat_model="scripted-model")
    gym = _note(alice, "The user is a member of PureGym.")
    padel = {"op": "add", "kind": "profile", "content": "The user plays padel on Sundays.", "confidence": 0.9}
    delete = {"op": "delete", "note_id": gym.pk, "kind": "profile", "content": gym.content, "confidence": 0.9}
    text = "I play padel on Sundays."
    _model_says(alice, scripted_llm, text, [dict(padel, quote=text), delete])
    assert _status(gym) == MemoryNote.Status.ACTIVE  # no forget request: the model's delete is not applied
    text = "I play squash on Mondays too. Please delete the gym membership note."
    squash = dict(padel, content="The user plays squash on Mondays.", quote="I play squash on Mondays too.")
    _model_says(alice, scripted_llm, text, [squash, delete])
    assert _status(gym) != MemoryNote.Status.ACTIVE
    assert any("squash" in n.content for n in alice.notes())


def test_an_unknown_op_is_garbage_and_changes_nothing(make_person, scripted_llm):
    from memory.services.writing.extraction import ExtractionOutputInvalid

    alice = make_person(chat_model="scripted-model")
    old = _note(alice, "The user lives in Paris.")
    turn = alice.say("I moved to Berlin.", extract=False)
    scripted_llm.reset()
    scripted_llm.push(
        "chat", {"candidates": [{"op": "overwrite_all", "kind": "profile", "content": "x y", "confidence": 1}]}
    )
    with pytest.raises(ExtractionOutputInvalid):
        memory_extract_for_message(tenant_id=alice.tenant.pk, message_id=turn.user_message.pk)
    assert _status(old) == MemoryNote.Status.ACTIVE and len(alice.notes()) == 1
