"""Recall's statements run as server-side prepared statements, planned once per connection (a generic plan): the
notes statement for a user with up to EXACT_SCAN_MAX notes and the messages statement for one with up to
MESSAGE_EXACT_SCAN_MAX message vectors, as text planned for their values above (the HNSW branches); the neighbours
statement always. Either way a user gets what the statements sent as text give, and only their own notes and
messages."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.policy import memory_policy_for
from memory.services.recall import recall, recall_messages, recall_messages_sql, recall_sql
from memory.services.recall.query_terms import query_terms
from memory.services.recall.recall_messages import message_candidates
from memory.services.vectors.embeddings import embed_texts
from tests.factories import ChatSessionFactory, MessageFactory
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


NOW = timezone.now()


def _ranked(person, question):
    """The ranked list at one fixed time: scores decay with age, so two rankings a moment apart differ in the
    sixth decimal, which made the comparison flaky."""
    items = recall.memory_recall_ranked(
        tenant=person.tenant,
        end_user=person.end_user,
        query=question,
        k=5,
        policy=memory_policy_for(tenant=person.tenant),
        now=NOW,
    )
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


MESSAGES = [
    "I went to Lisbon with my sister in May",
    "我们在成都吃了火锅，太辣了",
    "My cello lesson moved to Thursday evenings",
    "周末去青城山徒步，下雨了",
    "The Volvo needs new tyres before winter",
]
EPISODE_QUESTIONS = [
    "where did I go with my sister?",
    "我们在成都吃了什么？",
    "when is my cello lesson",
    "周末去哪里徒步",
]


def _past_messages(person, model):
    """The user's past messages, indexed as the extraction job indexes them, with their vectors."""
    from memory.services.recall.episodes import message_vectors_write
    from memory.services.writing.extraction import message_search_text

    session = ChatSessionFactory(end_user=person.end_user)
    messages = [
        MessageFactory(session=session, content=text, search_vector=message_search_text(text)) for text in MESSAGES
    ]
    message_vectors_write(tenant=person.tenant, messages=messages, model=model)
    return {m.pk for m in messages}


def _message_people(make_person):
    person = make_person(recall_all_below=0)
    neighbour, stranger = make_person(tenant=person.tenant), make_person()
    model = embed_texts(texts=MESSAGES[:1])[0]
    own = _past_messages(person, model)
    for other in (neighbour, stranger):  # the same words, another user's
        _past_messages(other, model)
    return person, own, model


def _episodes(person, question, model):
    vector = embed_texts(texts=[question], model=model)[1][0]
    rows = message_candidates(
        tenant_id=person.tenant.pk,
        end_user_id=person.end_user.pk,
        terms=query_terms(question),
        vector=vector,
        model=model,
        exclude_session_id=None,
        top=3,
    )
    return [
        (mid, round(coverage, 6), round(previous, 6), round(sim or 0, 6))
        for mid, _, _, _, coverage, previous, sim in rows
    ]


def test_the_messages_statement_prepared_gives_what_the_text_gives_and_only_the_users_own(make_person, settings):
    """The messages side (keyword pool through the user's terms index, vectors, neighbours) prepared gives the rows
    and scores of the same statements sent as text, only the user's messages, with a generic plan."""
    person, own, model = _message_people(make_person)
    for question in EPISODE_QUESTIONS:
        settings.RECALL_PREPARED_STATEMENTS = False
        as_text, text_list = _episodes(person, question, model), _ranked(person, question)
        settings.RECALL_PREPARED_STATEMENTS = True
        prepared, prepared_list = _episodes(person, question, model), _ranked(person, question)
        assert prepared == as_text and len(prepared) >= 3, question
        assert any(coverage > 0 for _, coverage, _, _ in prepared), question  # the keyword pool found some
        assert {mid for mid, *_ in prepared} <= own
        assert prepared_list == text_list and {i for t, i, _ in prepared_list if t == "message"} <= own
    with connection.cursor() as cur:
        cur.execute(
            "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%assistants_message%"],
        )
        plans = cur.fetchall()
    assert any("memory_messagevector" in s and "vcnt" in s for s, _, _ in plans)  # the messages statement
    assert any("CROSS JOIN LATERAL" in s for s, _, _ in plans)  # the neighbours statement
    assert all(generic >= 1 and custom == 0 for _, generic, custom in plans), plans


@pytest.mark.parametrize("size", ["MESSAGE_EXACT_SCAN_MAX", "MESSAGE_PREPARED_MAX"])
def test_a_user_above_the_message_vectors_exact_scan_size_or_the_prepared_pools_is_asked_with_the_whole_statement(
    make_person, settings, monkeypatch, size
):
    """Five messages and their vectors: above 2 vectors, the HNSW branch; above 2 messages, the keyword pool
    planned for the question's terms. A user found above the vectors' size once is asked without counting them."""
    person, own, model = _message_people(make_person)
    user = (person.tenant.pk, person.end_user.pk)
    monkeypatch.setattr(recall_messages, size, 2)
    settings.RECALL_PREPARED_STATEMENTS = False
    as_text = _episodes(person, EPISODE_QUESTIONS[0], model)
    vectors_above = size == "MESSAGE_EXACT_SCAN_MAX"
    assert (user in recall_messages_sql._VECTORS_ABOVE_EXACT) == vectors_above
    recall_messages_sql._VECTORS_ABOVE_EXACT._users.pop(user, None)  # as a process that has not asked for this user yet
    settings.RECALL_PREPARED_STATEMENTS = True

    def messages_statements(captured):
        return [q["sql"] for q in captured if "vcnt AS" in q["sql"]]

    with CaptureQueriesContext(connection) as first:
        assert _episodes(person, EPISODE_QUESTIONS[0], model) == as_text
    with CaptureQueriesContext(connection) as second:
        assert _episodes(person, EPISODE_QUESTIONS[0], model) == as_text
    assert {mid for mid, *_ in as_text} <= own and as_text
    no_hnsw = "vhnsw AS (SELECT NULL"
    assert [no_hnsw in sql for sql in messages_statements(first.captured_queries)] == [True, False]
    again = messages_statements(second.captured_queries)
    assert [no_hnsw in sql for sql in again] == [False]
    assert ("vcnt AS MATERIALIZED" in again[0]) == (not vectors_above)  # counted again only below the vectors' size
    assert user in recall_messages_sql._MESSAGES_ABOVE_EXACT
    assert user not in recall_sql._ABOVE_EXACT  # its notes are another matter
