"""Recall's ranking and cost: rare words outweigh common ones in past messages, a handful of statements whatever
the store holds, and a user above the exact-scan size still gets the nearest notes."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.policy import memory_policy_for
from memory.services.recall import recall
from memory.services.recall.recall import memory_recall
from tests.factories import MemoryNoteFactory

# Small talk that extraction keeps no note of. Three messages share two common words of the question, one holds
# only its rare word: counting matched words picks a common one, weighting words by rarity picks the answer.
EPISODES = [
    (
        "en",
        [
            "We spent the weekend by the river cleaning up litter",
            "Another weekend at the river, just fishing and reading",
            "Weekend picnic at the river with the neighbours",
            "The kayak flipped twice, I was soaked",
        ],
        "what happened to the kayak at the river on the weekend?",
        "kayak",
    ),
    (
        "zh",
        ["周末去水库边捡垃圾了", "又一个周末在水库钓鱼看书", "周末和邻居在水库野餐", "皮划艇翻了两次，全身湿透"],
        "周末水库那次皮划艇怎么样了",
        "皮划艇",
    ),
]


@pytest.mark.parametrize("language, said, question, answer_word", EPISODES, ids=[e[0] for e in EPISODES])
def test_the_rare_word_outweighs_the_common_ones_in_past_messages(make_person, language, said, question, answer_word):
    person = make_person(recall_all_below=0)
    for text in said:
        person.say(text)
    person.new_session()
    items = [
        i
        for i in memory_recall(
            tenant=person.tenant,
            end_user=person.end_user,
            query=question,
            exclude_session_id=person.session.pk,
            touch=False,
            policy=memory_policy_for(tenant=person.tenant),
        )
        if i.type == "message"
    ]
    assert items, "no past message recalled"
    assert answer_word in items[0].content, [i.content for i in items]


def test_recall_is_a_fixed_number_of_statements_however_many_notes_and_messages(make_person):
    """Notes, messages, and the turns next to the candidate messages (recall_context): three round trips for the
    chat turn's context, never one per candidate; an explicit list whose best items include past messages adds
    their vectors and a second ranking with the query moved towards them (recall_feedback): seven at most."""
    person = make_person(recall_all_below=0)
    for text in ["我平时上下班都是坐地铁", "我每天都喝美式", "预算 40 万", "我在深圳南山开了家面馆"]:
        person.say(text)
    for i in range(60):
        MemoryNoteFactory(
            end_user=person.end_user, tenant=person.tenant, kind="preference", key="", content=f"用户喜欢第{i}种面条"
        )
    person.new_session()
    for for_context, statements in ((True, 3), (False, 7)):
        with CaptureQueriesContext(connection) as queries:
            items = memory_recall(
                tenant=person.tenant,
                end_user=person.end_user,
                query="我的预算是多少",
                exclude_session_id=person.session.pk,
                touch=False,
                for_context=for_context,
                policy=memory_policy_for(tenant=person.tenant),
            )
        count = len(queries.captured_queries)
        assert count == statements if for_context else 3 <= count <= statements, [
            q["sql"][:120] for q in queries.captured_queries
        ]
    assert any("40" in i.content for i in items)


def test_a_user_above_the_exact_scan_size_still_gets_the_nearest_notes(make_person, monkeypatch):
    person = make_person(recall_all_below=0)
    for text in ["我平时上下班都是坐地铁", "我每天都喝美式", "我对花生过敏", "我在深圳南山开了家面馆"]:
        person.say(text)
    monkeypatch.setattr(recall, "EXACT_SCAN_MAX", 2)  # this user now takes the HNSW branch
    assert recall.active_note_count(tenant_id=person.tenant.pk, end_user_id=person.end_user.pk) > 2
    items = [
        i
        for i in memory_recall(
            tenant=person.tenant,
            end_user=person.end_user,
            query="我对什么过敏",
            touch=False,
            policy=memory_policy_for(tenant=person.tenant),
        )
        if i.type == "note"
    ]
    assert items and "花生" in items[0].content


def test_notes_in_a_turns_context_are_counted_as_recalled_once_the_reply_is_stored(make_person):
    from memory.models import MemoryNote

    person = make_person(recall_all_below=0)
    person.say("我对花生过敏")
    [note] = person.notes()
    assert note.recall_count == 0
    person.new_session()
    turn = person.say("我对什么过敏来着", extract=False)
    assert note.pk in [m.id for m in turn.context.memories if m.type == "note"]
    note = MemoryNote.objects.for_tenant(person.tenant).get(pk=note.pk)
    assert note.recall_count == 1 and note.last_recalled_at is not None


PLACES = ["杭州", "成都", "Lisbon", "Osaka", "深圳南山", "Berlin", "西安", "Toronto", "苏州", "Nairobi"]
THINGS = [
    ("喜欢喝", "咖啡"),
    ("对", "花生过敏"),
    ("每周去", "游泳"),
    ("likes", "green tea"),
    ("is allergic to", "shellfish"),
    ("collects", "vinyl records"),
    ("想学", "日语"),
    ("plays", "the cello"),
    ("养了一只", "柯基"),
    ("runs", "marathons"),
    ("讨厌", "香菜"),
    ("drives", "an old Volvo"),
    ("在学", "陶艺"),
    ("saves for", "a flat"),
]


def _notes_with_vectors(person, texts, model, vectors):
    return [
        MemoryNoteFactory(
            end_user=person.end_user,
            tenant=person.tenant,
            key="",
            content=text,
            embedding=vector,
            embedding_model=model,
        ).pk
        for text, vector in zip(texts, vectors, strict=True)
    ]


def same_notes_for_three_users(make_person, make_notes):
    """A person with 3 x CANDIDATES notes, another user of the same tenant and a user of another tenant holding the
    same notes (which must never come back): (person, the person's note ids, the embedding model).
    `make_notes(person, texts, model, vectors)` writes them."""
    from memory.services.vectors.embeddings import embed_texts

    person = make_person(recall_all_below=0)
    neighbour, stranger = make_person(tenant=person.tenant), make_person()
    texts = [
        f"{'用户' if verb[0] > '~' else 'The user'} {verb} {thing} ({place})"
        for place in PLACES
        for verb, thing in THINGS
    ][: 3 * recall.CANDIDATES]
    model, vectors = embed_texts(texts=texts)
    own = set(make_notes(person, texts, model, vectors))
    make_notes(neighbour, texts, model, vectors)
    make_notes(stranger, texts, model, vectors)
    return person, own, model


def _exact_full_precision(person, literal, model):
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id FROM memory_memorynote WHERE tenant_id = %s AND end_user_id = %s AND status = 'active' "
            "AND embedding_model = %s ORDER BY (embedding <=> %s::vector) + 0, id LIMIT %s",
            [person.tenant.pk, person.end_user.pk, model, literal, recall.CANDIDATES],
        )
        return [row[0] for row in cur.fetchall()]


def test_the_half_precision_scan_finds_the_exact_nearest_notes_and_only_the_users_own(make_person):
    """The exact branch ranks on MemoryNote.embedding_half and re-ranks on the full vectors (issue 22): with three
    times CANDIDATES notes, the candidates are those of a full-precision sort, in its order; another user of the
    same tenant and a user of another tenant holding the same notes never appear."""
    from memory.services.vectors.embeddings import embed_texts

    person, own, model = same_notes_for_three_users(make_person, _notes_with_vectors)
    questions = ["我对什么过敏？", "what instrument do I play", "我在成都养的狗", "where do I swim every week?"]
    for question, vector in zip(questions, embed_texts(texts=questions, model=model)[1], strict=True):
        found = recall.vector_candidates(
            tenant_id=person.tenant.pk, end_user_id=person.end_user.pk, vector=vector, model=model
        )
        assert set(found) <= own
        assert list(found) == _exact_full_precision(person, recall.vector_literal(vector), model), question
        items = memory_recall(
            tenant=person.tenant,
            end_user=person.end_user,
            query=question,
            touch=False,
            policy=memory_policy_for(tenant=person.tenant),
        )
        assert items and {i.id for i in items if i.type == "note"} <= own


def test_a_notes_sources_come_nearest_to_the_query_first_and_only_from_its_own_user(make_person):
    """A fact said twice is one note with two source messages; `message_ids` shows first the one that answers the
    question (by meaning), whichever was said first. Another user's identical messages are never among them."""
    from memory.services.recall.episodes import message_vectors_write
    from tenancy.models import Message

    people = [make_person(), None]
    people[1] = make_person(tenant=people[0].tenant)
    for person in people:
        person.say("I live in Lisbon.")
        person.new_session()
        person.say("I still live in Lisbon, in the flat by the river where the old yellow tram rattles past.")
        messages = list(Message.objects.for_tenant(person.tenant).filter(end_user=person.end_user, role="user"))
        message_vectors_write(
            tenant=person.tenant, messages=messages, model=memory_policy_for(tenant=person.tenant).embedding_model
        )
    first = people[0]
    [note] = [n for n in first.notes() if "Lisbon" in n.content]
    own = sorted(
        Message.objects.for_tenant(first.tenant)
        .filter(end_user=first.end_user, role="user")
        .values_list("pk", flat=True)
    )
    assert sorted(note.source_messages.values_list("pk", flat=True)) == own  # the restatement confirmed the note
    items = memory_recall(
        tenant=first.tenant,
        end_user=first.end_user,
        query="the yellow tram by the river",
        k=5,
        policy=memory_policy_for(tenant=first.tenant),
    )
    [item] = [i for i in items if i.type == "note" and i.id == note.pk]
    assert item.message_ids == [own[1], own[0]]
    items = memory_recall(
        tenant=first.tenant,
        end_user=first.end_user,
        query="where do I live?",
        k=5,
        policy=memory_policy_for(tenant=first.tenant),
    )
    [item] = [i for i in items if i.type == "note" and i.id == note.pk]
    assert set(item.message_ids) == set(own)


def test_a_recalled_notes_times_are_its_own_to_the_microsecond_and_decay_reads_when_it_was_said(make_person):
    """The notes statement returns times as epoch microseconds (recall_sql.epoch_us, parsed in C, not by Django's
    Python loader): the item's created_at is the row's exactly, in UTC, and the same note said 900 days ago (an
    imported message's observed_at) scores lower, as time decay says."""
    from datetime import timedelta

    from django.utils import timezone

    from memory.models import MemoryNote
    from memory.services.notes.notes import memory_note_create

    person = make_person(recall_all_below=0)
    note = memory_note_create(
        tenant=person.tenant,
        end_user=person.end_user,
        kind="profile",
        key="pet",
        content="用户养了一只橘猫。",
        policy=memory_policy_for(tenant=person.tenant),
    )

    def recalled():
        items = memory_recall(
            tenant=person.tenant,
            end_user=person.end_user,
            query="我养了什么猫",
            k=1,
            touch=False,
            policy=memory_policy_for(tenant=person.tenant),
        )
        assert [i.id for i in items] == [note.pk]
        return items[0]

    fresh = recalled()
    said = timezone.now() - timedelta(days=900, microseconds=123457)
    MemoryNote.objects.for_tenant(person.tenant).filter(pk=note.pk).update(observed_at=said)
    old = recalled()
    note.refresh_from_db()
    assert fresh.created_at == old.created_at == note.created_at
    assert old.created_at.utcoffset() == timedelta(0)
    assert note.observed_at == said and old.score < fresh.score


def test_a_second_ranking_reads_the_first_ones_keyword_matches_and_gets_what_matching_again_gets(make_person):
    """recall_feedback's second ranking moves the vector, not the terms: it passes the first ranking's keyword
    matches instead of matching the terms again, and its candidates are exactly those of a full second match. Ids
    of another user's notes passed that way never come back: the final select filters by tenant and user."""
    from memory.models import MemoryNote
    from memory.services.notes.notes import memory_note_create
    from memory.services.recall.recall_sql import tsquery_of
    from memory.services.vectors.embeddings import embed_texts, search_terms

    person, other = make_person(recall_all_below=0), make_person(recall_all_below=0)
    neighbour = make_person(tenant=person.tenant)  # a second user of the same tenant
    facts = ["用户在成都开了一家火锅店。", "用户的预算是四十万。", "用户每天坐地铁上班。", "用户喜欢喝美式咖啡。"]
    facts += [f"用户的火锅店第{i}家分店在筹备中。" for i in range(2, 8)]
    for who in (person, other, neighbour):
        for n, text in enumerate(facts):
            memory_note_create(
                tenant=who.tenant,
                end_user=who.end_user,
                kind="profile",
                key=f"k{n}",
                content=text,
                policy=memory_policy_for(tenant=who.tenant),
            )
    question = "我的火锅店开在哪里"
    query, moved = embed_texts(texts=[question, "用户喜欢喝什么咖啡"])[1]
    shared = dict(
        tenant_id=person.tenant.pk,
        end_user_id=person.end_user.pk,
        model=memory_policy_for(tenant=person.tenant).embedding_model,
        tsquery=tsquery_of(search_terms(question)),
        all_below=0,
        limit=3,
        exclude_session_id=None,
    )
    first = recall._note_rows(vector=query, **shared)
    assert first[3], "the question matched no note's words"
    again = recall._note_rows(vector=moved, **shared)
    carried = recall._note_rows(vector=moved, keyword_ids=first[3], **shared)
    assert carried[:2] == again[:2] and sorted(carried[2]) == sorted(again[2])
    assert sorted(carried[3]) == sorted(again[3])
    theirs = [
        pk
        for who in (other, neighbour)
        for pk in MemoryNote.objects.for_tenant(who.tenant).filter(end_user=who.end_user).values_list("pk", flat=True)
    ]
    assert len(theirs) == 2 * len(facts)
    mixed = recall._note_rows(vector=moved, keyword_ids=first[3] + theirs, **shared)
    assert sorted(mixed[2]) == sorted(again[2]) and not set(mixed[3]) & set(theirs)


# A remark of several sentences on different things: the question is about one of them, worded apart from it.
REMARKS = [
    (
        "en",
        "Ugh, the printer jammed again this morning and I lost half an hour. Anyway, my ceramics course at the "
        "community centre finally begins next Thursday evening.",
        ["The bakery on the corner sells great rye bread.", "My brother is visiting in March with his kids."],
        "when does my pottery class start?",
        "ceramics",
    ),
    (
        "zh",
        "今天早上地铁又晚点了，差点迟到。对了，我报名的陶艺课下周四晚上终于要开课了，在社区活动中心。",
        ["楼下那家面包店的黑麦面包特别好吃。", "我哥哥三月份要带孩子来看我。"],
        "我那个做陶器的课程哪天开始？",
        "陶艺课",
    ),
]


@pytest.mark.parametrize("language, remark, others, question, answer_word", REMARKS, ids=[r[0] for r in REMARKS])
def test_one_sentence_of_a_remark_is_found_by_what_it_says_and_only_for_its_user(
    make_person, language, remark, others, question, answer_word
):
    from memory.models import MessageVector
    from memory.services.recall.episodes import chunk_sentences
    from memory.services.vectors.embeddings import embed_texts

    person = make_person(recall_all_below=0)
    neighbour = make_person(tenant=person.tenant, recall_all_below=0)
    said = person.say(remark).user_message
    for text in others:
        person.say(text)
        neighbour.say(text)
    person.new_session()
    neighbour.new_session()

    sentences = chunk_sentences(remark)
    assert len(sentences) == 2 and answer_word in sentences[1]
    rows = MessageVector.objects.for_tenant(person.tenant).filter(message_id=said.pk).order_by("chunk")
    assert [r.chunk for r in rows] == [0, 1, 2] and {r.end_user_id for r in rows} == {person.end_user.pk}
    query = embed_texts(texts=[question])[1][0]
    cosine = [sum(a * b for a, b in zip(query, r.embedding, strict=True)) for r in rows]
    assert max(cosine) == cosine[2] > cosine[0]  # the sentence that answers is nearer than the whole remark

    found = memory_recall(
        tenant=person.tenant,
        end_user=person.end_user,
        query=question,
        exclude_session_id=person.session.pk,
        touch=False,
        policy=memory_policy_for(tenant=person.tenant),
    )
    assert found and answer_word in found[0].content, [i.content for i in found]
    theirs = memory_recall(
        tenant=person.tenant,
        end_user=neighbour.end_user,
        query=question,
        k=50,
        touch=False,
        policy=memory_policy_for(tenant=person.tenant),
    )
    assert theirs and not any(answer_word in i.content for i in theirs)

    # forgetting what was learnt from the remark takes every row of it, the sentences' too, out of recall
    from memory.services.notes.notes import memory_note_forget

    learnt = [n for n in person.notes() if n.source_messages.filter(pk=said.pk).exists()]
    assert learnt
    for note in learnt:
        memory_note_forget(tenant=person.tenant, note=note)
    assert not MessageVector.objects.for_tenant(person.tenant).filter(message_id=said.pk).exists()


def test_no_identifier_reaches_the_embedder_in_a_sentence_row_or_a_chunk(make_person, monkeypatch):
    """A message is redacted before it is cut into chunks and sentences: cut first, "john.doe@example.com" or
    "138.1234.5678" would split at its dots into pieces the redactor no longer recognises."""
    from memory.services.identifiers.pii import pii_redact
    from memory.services.recall import episodes

    seen: list[str] = []
    real = episodes.embed_texts

    def recording(*, texts, model=None):
        seen.extend(pii_redact(t)[0] for t in texts)  # what the encoder gets: embed_texts redacts each text
        return real(texts=texts, model=model)

    monkeypatch.setattr(episodes, "embed_texts", recording)
    person = make_person(recall_all_below=0)
    other = make_person(tenant=person.tenant, recall_all_below=0)
    identifiers = ["mei.lin.work@example.com", "138.1234.5678", "13912345678", "110101199003071234"]
    said = [
        "Write to me at mei.lin.work@example.com any time. My new number is 138.1234.5678 since the move.",
        "我的手机号是13912345678，晚上打。身份证号码110101199003071234，办签证要用。周末我们去爬山了。",
    ]
    for text in said:
        person.say(text)
    other.say("We went hiking at the weekend. The weather was lovely all day.")
    assert len(seen) > 4  # the chunks and their sentences were embedded
    for text in seen:
        for identifier in identifiers:
            assert identifier not in text
            assert not any(part in text for part in identifier.split(".") if len(part) >= 4 and part.isdigit())
        assert "1234" not in text and "5678" not in text and "0307" not in text
