"""Recall's notes statement runs as a server-side prepared statement, planned once per connection (a generic
plan), for a user with up to EXACT_SCAN_MAX notes, and as text planned for its values above it (the HNSW branch):
either way a user gets what the statement sent as text gives, and only their own notes."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from memory.services import recall, recall_sql
from memory.services.embeddings import embed_texts
from tests.scaling.test_recall_one_pass import QUESTIONS, _notes

TEXTS = [
    "我对花生过敏",
    "I play the cello in an amateur orchestra",
    "我在成都养了一只柯基",
    "My car is a blue Volvo estate",
    "周末常去青城山徒步",
    "I work night shifts at the hospital",
]


def _people(make_person):
    person = make_person(recall_all_below=0)
    neighbour, stranger = make_person(tenant=person.tenant), make_person()
    model = embed_texts(texts=TEXTS[:1])[0]
    vectors = embed_texts(texts=TEXTS, model=model)[1]
    own = set(_notes(person, TEXTS, model, vectors))
    for other in (neighbour, stranger):  # the same words, another user's
        _notes(other, TEXTS, model, vectors)
    return person, own


def _ranked(person, question):
    items = recall.memory_recall(tenant=person.tenant, end_user=person.end_user, query=question, k=5, touch=False)
    return [(i.type, i.id, round(i.score, 6)) for i in items]


def _notes_statements(captured):
    return [q["sql"] for q in captured if "memory_memorynote" in q["sql"] and "binary_quantize" in q["sql"]]


def test_the_prepared_statement_gives_what_the_text_gives_and_is_planned_once(make_person, settings):
    person, own = _people(make_person)
    for question in QUESTIONS:
        settings.RECALL_PREPARED_STATEMENTS = False
        as_text = _ranked(person, question)
        settings.RECALL_PREPARED_STATEMENTS = True
        prepared = _ranked(person, question)
        assert prepared == as_text and len(prepared) == 5, question
        assert {item_id for _, item_id, _ in prepared} <= own
    with connection.cursor() as cur:
        cur.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%binary_quantize%"],
        )
        plans = cur.fetchall()
    assert plans and all(generic >= 1 and custom == 0 for generic, custom in plans), plans


def test_a_user_above_the_exact_scan_size_is_asked_with_the_whole_statement_and_remembered(
    make_person, settings, monkeypatch
):
    person, own = _people(make_person)
    settings.RECALL_PREPARED_STATEMENTS = True
    monkeypatch.setattr(recall, "EXACT_SCAN_MAX", 2)  # this user's six notes are above it: the HNSW branch
    settings.RECALL_PREPARED_STATEMENTS = False
    as_text = _ranked(person, QUESTIONS[0])
    settings.RECALL_PREPARED_STATEMENTS = True
    with CaptureQueriesContext(connection) as first:
        assert _ranked(person, QUESTIONS[0]) == as_text
    with CaptureQueriesContext(connection) as second:
        assert _ranked(person, QUESTIONS[0]) == as_text
    assert {item_id for _, item_id, _ in as_text} <= own
    # the prepared statement (no HNSW branch) showed the count, then the whole one; next time the whole one only
    assert [("hnsw AS (SELECT NULL" in sql) for sql in _notes_statements(first.captured_queries)] == [True, False]
    assert [("hnsw AS (SELECT NULL" in sql) for sql in _notes_statements(second.captured_queries)] == [False]
    assert (person.tenant.pk, person.end_user.pk) in recall_sql._ABOVE_EXACT
