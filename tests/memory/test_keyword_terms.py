"""Keyword recall matches an English word in any of its forms ("won" / "win", "commuting" / "commute"), for notes
and past messages alike, and the migration that recomputes stored terms leaves forgotten rows unsearchable."""

import importlib
from dataclasses import replace
from types import SimpleNamespace

import pytest
from django.db import connection

from core.policy import memory_policy_for
from memory.models import MemoryNote
from memory.services.recall.recall import WEIGHTS, memory_recall
from memory.services.vectors.embeddings import search_terms
from tenancy.models import Message
from tests.factories import MemoryNoteFactory

KEYWORDS_ONLY = replace(WEIGHTS, vector=0.0)  # only the keyword evidence ranks: the embedder cannot help

# (what was said, the question in another form of the deciding word, a word only the right answer holds)
FORMS = [
    (
        ["We won the regional quiz final in March", "The quiz final moved to a bigger venue"],
        "Did we win the quiz final?",
        "won",
    ),
    (
        ["I started commuting by ferry last spring", "The ferry timetable changed last spring"],
        "how do I commute",
        "commuting",
    ),
]


@pytest.mark.parametrize("said, question, answer_word", FORMS, ids=["irregular-verb", "regular-verb"])
def test_keyword_recall_matches_another_form_of_the_word(make_person, said, question, answer_word):
    person = make_person(recall_all_below=0)
    for text in said:
        person.say(text)
    person.new_session()
    items = memory_recall(
        tenant=person.tenant,
        end_user=person.end_user,
        query=question,
        exclude_session_id=person.session.pk,
        touch=False,
        weights=KEYWORDS_ONLY,
        policy=memory_policy_for(tenant=person.tenant),
    )
    assert items and items[0].score > 0, [(i.content, i.score) for i in items]
    assert answer_word in items[0].content, [(i.content, i.score) for i in items]


@pytest.mark.parametrize(
    "one, other",
    [("won", "win"), ("children", "child"), ("bought", "buying"), ("commuting", "commute"), ("married", "marry")],
)
def test_two_forms_of_a_word_give_the_same_term(one, other):
    assert search_terms(one) == search_terms(other) != []


def test_chinese_terms_stay_bigrams():
    assert search_terms("我喜欢跳舞") == ["我喜", "喜欢", "欢跳", "跳舞"]


def test_the_migration_recomputes_stored_terms_but_not_of_forgotten_rows(make_person):
    migration = importlib.import_module("memory.migrations.0012_i14_keyword_terms_lemma_stem")
    person = make_person(recall_all_below=0)
    person.say("We won the regional quiz final in March")
    message = person.last.user_message
    Message.objects.for_tenant(person.tenant).filter(pk=message.pk).update(search_vector="won regional quiz final")
    stale = MemoryNoteFactory(tenant=person.tenant, end_user=person.end_user, content="The user bought a cello.")
    forgotten = MemoryNoteFactory(
        tenant=person.tenant, end_user=person.end_user, content="", status=MemoryNote.Status.FORGOTTEN
    )
    MemoryNote.objects.for_tenant(person.tenant).filter(pk=stale.pk).update(search_text="user bought cello")
    MemoryNote.objects.for_tenant(person.tenant).filter(pk=forgotten.pk).update(search_text="")

    migration.recompute_terms(None, SimpleNamespace(connection=connection))

    message.refresh_from_db()
    stale.refresh_from_db()
    forgotten.refresh_from_db()
    assert "win" in message.search_vector.split() and "won" not in message.search_vector.split()
    assert "buy" in stale.search_text.split()
    assert forgotten.search_text == ""
