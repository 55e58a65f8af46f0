"""The notes side of recall reads a user's index entries once, and rows only for candidates (issue 22): the count
and the vector candidates come from one pass over the user's entries of a covering index (binary-quantised vectors,
re-ranked on half and then full precision), the keyword matches from the user's terms index. It was three passes over
a heavy user's 10,000 rows, then one (docs/benchmarks-history.md "Performance at scale", "Recall, seventh round"), and each
time the candidates are what the exact searches find."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.policy import memory_policy_for
from memory.services.recall import recall
from memory.services.recall.recall_messages import MESSAGE_EXACT_SCAN_MAX, MESSAGE_PREPARED_MAX, message_candidates
from memory.services.recall.recall_messages_sql import episodes_sql
from memory.services.recall.recall_sql import (
    RERANK_FACTOR,
    notes_sql,
    stage_limits,
    tsquery_of,
)
from memory.services.vectors.embeddings import embed_texts, search_terms
from tenancy.models import Message
from tests.factories import ChatSessionFactory, MemoryNoteFactory, MessageFactory
from tests.memory.test_recall_ranking import PLACES, THINGS, _exact_full_precision, same_notes_for_three_users

QUESTIONS = ["我对什么过敏？", "what instrument do I play", "我在成都养的狗", "do I still play the cello in Berlin?"]


def _notes(person, texts, model, vectors):
    return [
        MemoryNoteFactory(
            end_user=person.end_user,
            tenant=person.tenant,
            key="",
            content=text,
            search_text=" ".join(search_terms(text)),
            embedding=vector,
            embedding_model=model,
        ).pk
        for text, vector in zip(texts, vectors, strict=True)
    ]


def _keyword_best(person, tsquery, limit):
    """The user's active notes that share a term with the query, best ts_rank first: what recall's keyword
    candidates must hold (ties at the cut-off make the last place ambiguous, so callers compare rank values)."""
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id, ts_rank(search_tsv, to_tsquery('simple', %s)) FROM memory_memorynote WHERE tenant_id = %s "
            "AND end_user_id = %s AND status = 'active' AND search_tsv @@ to_tsquery('simple', %s) "
            "ORDER BY 2 DESC, id",
            [tsquery, person.tenant.pk, person.end_user.pk, tsquery],
        )
        return cur.fetchall()[:limit]


def _params(person, vector, tsquery, model, limit):
    return {
        "tenant": person.tenant.pk,
        "user": person.end_user.pk,
        "model": model,
        "vector": recall.vector_literal(vector),
        "tsquery": tsquery,
        "limit": limit,
        **stage_limits(limit),
        "exact_max": recall.EXACT_SCAN_MAX,
        "count_limit": recall.EXACT_SCAN_MAX + 1,
        "all_below": 0,
        "session": -1,
    }


def _user_scans_run(plan: dict) -> list[tuple[str, str]]:
    """(node type, conditions) of each scan of the notes table that selects the user's active, unexpired notes (the
    expiry test is what tells them apart from the look-ups of candidates by id) and ran: the gated branches that
    did not run have no loops."""
    found = []
    if plan.get("Relation Name", "").startswith("memory_memorynote") and plan.get("Actual Loops", 0) > 0:
        conditions = " ".join(plan.get(k, "") for k in ("Index Cond", "Recheck Cond", "Filter"))
        if "expires_at" in conditions:
            found.append((plan["Node Type"], conditions))
    for child in plan.get("Plans", []):
        found += _user_scans_run(child)
    return found


def _passes_and_keyword_scans(plan: dict) -> tuple[list[str], list[str]]:
    """The node types of the user's scans that ran, split into the pass (count and vector candidates) and the
    keyword match (the one through the user's terms index, recall_sql.USER_TERMS)."""
    scans = _user_scans_run(plan)
    keyword = [kind for kind, conditions in scans if "array_to_tsvector" in conditions]
    return [kind for kind, conditions in scans if "array_to_tsvector" not in conditions], keyword


@pytest.fixture
def people(make_person):
    """A person with 3 x CANDIDATES notes, another user of the same tenant and a user of another tenant holding the
    same notes (which must never come back)."""
    return same_notes_for_three_users(make_person, _notes)


def test_the_notes_statement_reads_the_users_rows_once_and_finds_the_nearest_and_the_keyword_matches(people):
    person, own, model = people
    limit = 10
    with connection.cursor() as cur:
        cur.execute("ANALYZE memory_memorynote")  # as autovacuum would: the plan below is the one a live store gets
    for question, vector in zip(QUESTIONS, embed_texts(texts=QUESTIONS, model=model)[1], strict=True):
        tsquery = tsquery_of(search_terms(question))
        assert tsquery, question
        params = _params(person, vector, tsquery, model, limit)
        with connection.cursor() as cur:
            cur.execute(notes_sql(keywords=True), params)
            rows = cur.fetchall()
            cur.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + notes_sql(keywords=True), params)
            plan = cur.fetchone()[0][0]["Plan"]
        found = {row[1] for row in rows}
        assert rows[0][0] == len(own)  # the count recall chooses the branch (and recall_all) by
        assert found <= own
        nearest = _exact_full_precision(person, recall.vector_literal(vector), model)[:limit]
        assert set(nearest) <= found, question
        best = _keyword_best(person, tsquery, limit)
        assert best, question
        cut = best[-1][1]  # every note ranked above the last place's rank is in; ties at it may go either way
        assert {i for i, rank in best if rank > cut} <= found, question
        passes, keyword = _passes_and_keyword_scans(plan)
        assert len(passes) == 1 and keyword == ["Bitmap Heap Scan"], (question, passes, keyword)


def test_the_pass_reads_only_the_covering_index_and_rows_for_the_nearest_by_hamming_distance_alone(
    people, transactional_db
):
    """On a vacuumed store (pages all-visible, as autovacuum leaves most of a live one) the pass over the user's notes
    is an index-only scan of note_user_active_bits (memory.0014: the count and each note's binary-quantised
    vector), with no heap fetch. The rows read for their vectors are the BIT_FACTOR x rerank nearest by Hamming
    distance only, and what comes back is still the exact full-precision nearest (the heavy user of the bench:
    recall@10 1.000, docs/benchmarks.md)."""
    person, own, model = people
    limit = 5  # coarse 40 of the 150 notes: the Hamming stage really cuts
    vector = embed_texts(texts=[QUESTIONS[1]], model=model)[1][0]
    params = _params(person, vector, "", model, limit)
    assert params["coarse"] < len(own)
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE memory_memorynote")
        cur.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + notes_sql(keywords=False), params)
        plan = cur.fetchone()[0][0]["Plan"]
        cur.execute(notes_sql(keywords=False), params)
        found = {row[1] for row in cur.fetchall()}
    passes, _ = _passes_and_keyword_scans(plan)
    assert passes == ["Index Only Scan"]
    assert _heap_fetches(plan) == 0
    nearest = _exact_full_precision(person, recall.vector_literal(vector), model)[:limit]
    assert found <= own and set(nearest) <= found


def _heap_fetches(plan: dict) -> int:
    own = plan.get("Heap Fetches", 0) if plan.get("Relation Name", "").startswith("memory_memorynote") else 0
    return own + sum(_heap_fetches(child) for child in plan.get("Plans", []))


def test_above_the_exact_scan_size_keyword_matches_still_come_through_their_index(people, monkeypatch):
    """Above EXACT_SCAN_MAX the pass is only a count: the nearest notes come through the HNSW index and the keyword
    matches through the GIN index, so a note that shares the rare word but is not among the nearest is still a
    candidate."""
    person, own, model = people
    monkeypatch.setattr(recall, "EXACT_SCAN_MAX", 2)
    question = "Volvo"
    vector = embed_texts(texts=["我对什么过敏？"], model=model)[1][0]  # a vector far from the Volvo notes
    tsquery = tsquery_of(search_terms(question))
    params = _params(person, vector, tsquery, model, limit=1)
    with connection.cursor() as cur:
        cur.execute(notes_sql(keywords=True), params)
        rows = cur.fetchall()
    found = {row[1] for row in rows}
    best = _keyword_best(person, tsquery, limit=50)
    assert best and found <= own
    assert found & {i for i, _ in best}, "no keyword match among the candidates above EXACT_SCAN_MAX"
    assert len(found) == 2  # one nearest (HNSW), one keyword match


def _vectors_of_messages(person, texts, model):
    from memory.services.recall.episodes import message_vectors_write

    session = ChatSessionFactory(end_user=person.end_user)
    messages = [MessageFactory(session=session, content=text) for text in texts]
    message_vectors_write(tenant=person.tenant, messages=messages, model=model)
    return {m.pk for m in messages}


def test_past_messages_are_ranked_on_their_half_precision_copy_as_the_full_precision_sort_ranks_them(make_person):
    """The messages side ranks a user's message vectors on memory_messagevector.embedding_half (memory.0013) and
    re-ranks the best on the full vectors: the candidates are those of the exact full-precision sort, and never
    another user's of the same tenant or a user's of another tenant holding the same messages."""
    person = make_person(recall_all_below=0)
    neighbour, stranger = make_person(tenant=person.tenant), make_person()
    texts = [f"{verb} {thing}, {place}" for place in PLACES for verb, thing in THINGS][: 3 * recall.CANDIDATES]
    model = embed_texts(texts=texts[:1])[0]
    own = _vectors_of_messages(person, texts, model)
    _vectors_of_messages(neighbour, texts, model)
    _vectors_of_messages(stranger, texts, model)
    for question, vector in zip(QUESTIONS, embed_texts(texts=QUESTIONS, model=model)[1], strict=True):
        literal = recall.vector_literal(vector)
        rows = message_candidates(
            tenant_id=person.tenant.pk,
            end_user_id=person.end_user.pk,
            terms=[],  # no keyword side: the vector candidates alone
            vector=vector,
            model=model,
            exclude_session_id=None,
            top=recall.CANDIDATES,
        )
        with connection.cursor() as cur:
            cur.execute(
                "SELECT message_id FROM memory_messagevector WHERE tenant_id = %s AND end_user_id = %s "
                "AND embedding_model = %s ORDER BY (embedding <=> %s::vector) + 0, id LIMIT %s",
                [person.tenant.pk, person.end_user.pk, model, literal, recall.CANDIDATES],
            )
            exact = {row[0] for row in cur.fetchall()}
            cur.execute(
                "EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) " + episodes_sql(keywords=False),
                _vector_side_params(person, model, literal),
            )
            plan = cur.fetchone()[0][0]["Plan"]
        found = {row[0] for row in rows}
        assert found <= own
        assert len(exact) == recall.CANDIDATES and found == exact, question
        assert _sorted_on_half_precision(plan), "the exact branch did not rank on embedding_half"


def test_a_past_message_cosine_is_taken_for_the_candidates_only(make_person):
    """The messages statement takes each candidate's cosine once the candidates are known: as a column of the
    outer-joined candidates it was computed for every message of the user a scan read (in a small tenant the plan
    reads the user's messages whole, 1,020 cosines for 50 candidates). Counted from the plan's loops; the
    candidates are the user's own, with a neighbour in the tenant holding the same messages."""
    person = make_person(recall_all_below=0)
    neighbour = make_person(tenant=person.tenant)
    texts = [f"{verb} {thing}, {place}" for place in PLACES for verb, thing in THINGS][: 3 * recall.CANDIDATES]
    model = embed_texts(texts=texts[:1])[0]
    own = _vectors_of_messages(person, texts, model)
    _vectors_of_messages(neighbour, texts, model)
    vector = embed_texts(texts=["where do I play the cello"], model=model)[1][0]
    with connection.cursor() as cur:
        cur.execute("ANALYZE assistants_message")
        cur.execute(
            "EXPLAIN (ANALYZE, FORMAT JSON) " + episodes_sql(keywords=False),
            _vector_side_params(person, model, recall.vector_literal(vector)),
        )
        plan = cur.fetchone()[0][0]["Plan"]
    rows = message_candidates(
        tenant_id=person.tenant.pk,
        end_user_id=person.end_user.pk,
        terms=[],
        vector=vector,
        model=model,
        exclude_session_id=None,
        top=recall.CANDIDATES,
    )
    assert len(rows) == recall.CANDIDATES and {row[0] for row in rows} <= own
    cosine_loops = _loops_of_vector_lookups_by_message(plan)
    assert cosine_loops, "no cosine lookup by message in the plan"
    assert max(cosine_loops) <= recall.CANDIDATES, cosine_loops


def _loops_of_vector_lookups_by_message(plan: dict) -> list[int]:
    """The loops of each scan of memory_messagevector for one message (the candidates' cosines)."""
    found = []
    looked_up = plan.get("Index Cond", "") + " " + plan.get("Filter", "")
    if str(plan.get("Relation Name", "")).startswith("memory_messagevector") and "message_id =" in looked_up:
        found.append(plan.get("Actual Loops", 0))
    for child in plan.get("Plans", []):
        found += _loops_of_vector_lookups_by_message(child)
    return found


def _vector_side_params(person, model, literal):
    """The messages statement's parameters for its vector side alone (no keyword terms), for `person`."""
    return {
        "tenant": person.tenant.pk,
        "user": person.end_user.pk,
        "session": -1,
        "model": model,
        "vector": literal,
        "limit": recall.CANDIDATES,
        "rerank": RERANK_FACTOR * recall.CANDIDATES,
        "exact_max": MESSAGE_EXACT_SCAN_MAX,
        "count_limit": MESSAGE_EXACT_SCAN_MAX + 1,
        "message_max": MESSAGE_PREPARED_MAX,
    }


def _sorted_on_half_precision(plan: dict) -> bool:
    keys = " ".join(plan.get("Sort Key", []))
    ran = plan.get("Actual Loops", 0) > 0
    return (ran and "embedding_half <=>" in keys) or any(_sorted_on_half_precision(c) for c in plan.get("Plans", []))


def test_a_user_known_only_through_notes_is_recalled_in_one_statement_and_a_past_message_brings_the_second(
    make_person,
):
    """Recall skips the messages statement for a user without any past message (notes added by API only) or whose
    messages are all in the session it leaves out, told by the notes statement itself; another user's messages, of
    the same tenant or another, do not count as theirs."""
    person = make_person(recall_all_below=0)
    neighbour, stranger = make_person(tenant=person.tenant), make_person()
    model = embed_texts(texts=["x"])[0]
    texts = ["I keep bees on the roof", "我在阳台上种了番茄"]
    _notes(person, texts, model, embed_texts(texts=texts, model=model)[1])
    for other in (neighbour, stranger):
        _vectors_of_messages(other, ["the bees on my roof swarmed last June"], model)

    def statements(question, exclude_session_id=None):
        with CaptureQueriesContext(connection) as seen:
            items = recall.memory_recall(
                tenant=person.tenant,
                end_user=person.end_user,
                query=question,
                k=5,
                touch=False,
                exclude_session_id=exclude_session_id,
                policy=memory_policy_for(tenant=person.tenant),
            )
        return seen.captured_queries, items

    seen, items = statements("what do I keep on the roof?")
    assert len(seen) == 1 and [i.type for i in items] == ["note", "note"]
    own = _vectors_of_messages(person, ["the bees on my roof swarmed last June"], model)
    seen, items = statements("what do I keep on the roof?")
    assert len(seen) > 1
    assert {i.id for i in items if i.type == "message"} == own
    # the user's only messages are in the session recall leaves out (a first conversation): one statement again
    current = Message.objects.for_tenant(person.tenant).get(pk=next(iter(own))).session_id
    seen, items = statements("what do I keep on the roof?", exclude_session_id=current)
    assert len(seen) == 1 and [i.type for i in items] == ["note", "note"]
