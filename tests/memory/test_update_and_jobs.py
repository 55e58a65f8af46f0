"""Supersede, refresh instead of duplicates, conflict questions, cross-session recall, the model path, and the
jobs through the real worker."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from core.exceptions import InvalidInput
from core.models import JobRecord
from core.policy import memory_policy_for
from memory import jobs
from memory.models import AuditLog, MemoryNote
from memory.services.notes.notes import (
    memory_forget_matching,
    memory_note_create,
    memory_note_history,
    memory_note_update,
)
from memory.services.recall.recall import memory_recall
from memory.services.writing.extraction import memory_extract_for_message
from tests.conftest import wait_for
from tests.factories import MemoryNoteFactory
from tests.openai_server import Scripted


@pytest.mark.parametrize(
    "ways",
    [
        ["我平时上下班都是坐地铁", "我每天坐地铁通勤", "通勤的话我一般坐地铁", "上下班我都是坐地铁", "我坐地铁上班"],
        [
            "I take the subway to work",
            "I commute by subway",
            "My commute is by metro",
            "I usually ride the metro to work",
            "Every day I go to the office by subway",
        ],
    ],
)
def test_same_fact_five_ways_is_one_note(make_person, ways):
    person = make_person()
    outcomes = [person.say(w).extraction for w in ways]
    notes = person.notes(status=None)
    assert len(notes) == 1, [n.content for n in notes]
    assert sum(o["refreshed"] for o in outcomes) == 4
    assert notes[0].source_messages.count() == 5


def test_hedge_is_kept_and_unclear_change_is_asked_then_settled(make_person):
    person = make_person()
    person.say("预算大概 10 万吧")
    [old] = person.notes()
    assert old.value == {"amount": 100000, "approx": True} and old.confidence < 0.8
    turn = person.say("预算 15 万")
    assert turn.context.hints and "10 万" in turn.context.hints[0] and "15 万" in turn.context.hints[0]
    pending = person.notes(status=MemoryNote.Status.PENDING_REVIEW)
    assert [n.value["amount"] for n in pending] == [150000]
    ids = [
        i.id
        for i in memory_recall(
            tenant=person.tenant, end_user=person.end_user, query="预算", policy=memory_policy_for(tenant=person.tenant)
        )
    ]
    assert pending[0].pk not in ids and old.pk in ids  # not recalled while unsettled
    answer = person.say("是的")
    assert "15 万" in answer.context.hints[0]
    old.refresh_from_db()
    assert old.status == MemoryNote.Status.SUPERSEDED
    assert [n.value["amount"] for n in person.notes()] == [150000]


def test_answer_no_keeps_the_old_fact(make_person):
    person = make_person()
    person.say("My budget is about 100k")
    turn = person.say("budget is maybe 150k")
    assert "100,000" in turn.context.hints[0] and "150,000" in turn.context.hints[0]
    person.say("no, still the same")
    assert [n.value["amount"] for n in person.notes()] == [100000]
    assert person.notes(status=MemoryNote.Status.REJECTED)


def test_change_supersedes_with_visible_history(make_person):
    person = make_person()
    person.say("我每天都喝美式")
    person.say("我不喝美式了，改喝拿铁，因为胃不好")
    [current] = [n for n in person.notes() if n.key == "drink"]
    chain = memory_note_history(tenant=person.tenant, note=current)
    assert [n.value["option"] for n in chain] == ["americano", "latte"]
    assert "拿铁" in current.content and "胃不好" in current.content


def test_cross_session_recall_of_yesterdays_facts(make_person):
    person = make_person()
    person.say("勇哥我在深圳南山开了家 60 平米的面馆，上个月刚开业，现在每天流水四千左右")
    person.say("记下了。我下一步想加外卖你觉得呢？")
    MemoryNote.objects.for_tenant(person.tenant).update(observed_at=timezone.now() - timedelta(days=1))
    person.new_session()
    for recall_all_below in (20, 0):  # few notes: all of them; many: the search must find them
        person.tenant.recall_all_below = recall_all_below
        person.tenant.save()
        items = memory_recall(
            tenant=person.tenant,
            end_user=person.end_user,
            query="我又来了，上次说的外卖的事帮我细说说",
            exclude_session_id=person.session.pk,
            policy=memory_policy_for(tenant=person.tenant),
        )
        text = " ".join(i.content for i in items)
        assert "外卖" in text
        if recall_all_below:
            assert "60" in text and "南山" in text and "4000" in text
    assert all(i.session_id and i.created_at for i in items)


def test_inferred_candidates_from_the_model_follow_policy(make_person, scripted_llm):
    person = make_person(chat_model="scripted-model", inferred_policy="review")
    answer = {
        "candidates": [
            {
                "kind": "constraint",
                "key": "budget",
                "content": "用户的预算约 10 万元。",
                "value": {"amount": 100000},
                "confidence": 0.95,
                "source": "user_stated",
                "quote": "预算大概 10 万",
            },
            {
                "kind": "constraint",
                "key": "money",
                "content": "用户可能预算有限。",
                "confidence": 0.9,
                "source": "user_stated",
                "quote": "用户可能预算有限",
            },
            {
                "kind": "profile",
                "key": "phone",
                "content": "用户电话 13800138000",
                "confidence": 0.9,
                "source": "user_stated",
                "quote": "13800138000",
            },
        ]
    }
    turn = person.say("预算大概 10 万吧，电话 13800138000", extract=False)
    scripted_llm.reset()
    scripted_llm.push("chat", answer)
    person.last.extraction = memory_extract_for_message(tenant_id=person.tenant.pk, message_id=turn.user_message.pk)
    [budget] = person.notes()
    assert budget.value == {"amount": 100000, "approx": True} and budget.confidence <= 0.6
    [guess] = person.notes(status=MemoryNote.Status.PENDING_REVIEW)
    assert guess.source == "agent_inferred" and guess.confidence <= 0.3 and guess.review_reason == "agent_inferred"
    assert person.last.extraction["dropped"] == {"pii": 1}


@pytest.mark.django_db(transaction=True)
def test_extraction_job_retries_garbage_and_is_idempotent(celery_worker, make_person, openai_server):
    person = make_person(chat_model="scripted-model")
    turn = person.say("I live in Lisbon and I prefer tea", extract=False)
    openai_server.reset()
    openai_server.push(
        "chat",
        Scripted(content="this is not json"),
        {
            "candidates": [
                {
                    "kind": "profile",
                    "key": "location",
                    "content": "The user lives in Lisbon.",
                    "value": {"place": "Lisbon"},
                    "confidence": 0.9,
                    "source": "user_stated",
                    "quote": "I live in Lisbon",
                }
            ]
        },
    )
    mid = turn.user_message.pk
    jobs.memory_extract.delay(person.tenant.pk, mid)
    jobs.memory_extract.delay(person.tenant.pk, mid)  # a duplicate delivery
    job = wait_for(
        lambda: JobRecord.objects.filter(idempotency_key=f"extract:{mid}", status="succeeded").first(),
        timeout=60,
        message="the extraction job to succeed",
    )
    assert job.attempts >= 2 and job.result["written"] == 1
    wait_for(
        lambda: not JobRecord.objects.filter(kind="memory_extract", status__in=["queued", "running"]).exists(),
        timeout=30,
        message="the duplicate to finish",
    )
    assert [n.content for n in person.notes(status=None)] == ["The user lives in Lisbon."]
    openai_server.reset()


@pytest.mark.django_db(transaction=True)
def test_passive_forgetting_jobs_report_in_the_ledger(celery_worker, make_person):
    from importlib import import_module

    from django.apps import apps

    # transactional tests flush data-migration rows; run the schedule migration's function again to check it
    import_module("memory.migrations.0003_ltm_forgetting_schedule").create(apps, None)
    assert PeriodicTask.objects.filter(task="memory.jobs.memory_expire", enabled=True).exists()
    assert PeriodicTask.objects.filter(task="memory.jobs.memory_decay", enabled=True).exists()
    person = make_person()
    expired = MemoryNoteFactory(end_user=person.end_user, expires_at=timezone.now() - timedelta(days=1))
    stale = MemoryNoteFactory(end_user=person.end_user, key="diet", importance=0.11)
    fresh = MemoryNoteFactory(end_user=person.end_user, key="pet")
    MemoryNote.objects.unscoped().filter(pk=stale.pk).update(created_at=timezone.now() - timedelta(days=120))
    jobs.memory_expire.delay()
    jobs.memory_decay.delay()
    wait_for(
        lambda: (
            JobRecord.objects.filter(kind="memory_decay", status="succeeded").exists()
            and JobRecord.objects.filter(kind="memory_expire", status="succeeded").exists()
        ),
        timeout=60,
        message="both forgetting jobs",
    )
    assert JobRecord.objects.get(kind="memory_expire").result["expired"] >= 1
    assert JobRecord.objects.get(kind="memory_decay").result["archived"] >= 1
    statuses = dict(
        MemoryNote.objects.unscoped().filter(pk__in=[expired.pk, stale.pk, fresh.pk]).values_list("pk", "status")
    )
    assert statuses == {expired.pk: "expired", stale.pk: "archived", fresh.pk: "active"}


@pytest.mark.django_db(transaction=True)
def test_reembed_job_switches_models_and_vectors_are_never_mixed(celery_worker, make_person, openai_server):
    person = make_person(recall_all_below=0)
    person.say("我平时上下班都是坐地铁")
    [note] = person.notes()
    from memory.services.forgetting.forgetting import memory_embedding_model_set
    from memory.services.recall.recall import vector_candidates
    from memory.services.vectors.embeddings import embed_texts

    default_model, [offline_vec] = embed_texts(texts=["地铁"])
    assert vector_candidates(
        tenant_id=person.tenant.pk, end_user_id=person.end_user.pk, vector=offline_vec, model=default_model
    )
    memory_embedding_model_set(tenant=person.tenant, model="scripted-embedder")  # enqueues the re-embedding
    wait_for(
        lambda: JobRecord.objects.filter(kind="memory_reembed", status="succeeded").exists(),
        timeout=60,
        message="re-embedding",
    )
    note.refresh_from_db()
    # an offline query vector is never compared with the new model's vectors
    assert (
        vector_candidates(
            tenant_id=person.tenant.pk, end_user_id=person.end_user.pk, vector=offline_vec, model=default_model
        )
        == {}
    )
    assert note.embedding_model == "scripted-embedder"
    from memory.models import MessageVector  # past messages move to the new model too, in the same job

    models = set(
        MessageVector.objects.for_tenant(person.tenant)
        .filter(end_user=person.end_user)
        .values_list("embedding_model", flat=True)
    )
    assert models == {"scripted-embedder"}


def test_actor_changes_are_audited_and_forgetting_keeps_no_copy(make_person):
    person = make_person()
    note = memory_note_create(
        tenant=person.tenant,
        end_user=person.end_user,
        kind="preference",
        key="drink",
        content="用户每天喝美式咖啡。",
        actor="admin:alice",
        policy=memory_policy_for(tenant=person.tenant),
    )
    memory_note_update(tenant=person.tenant, note=note, actor="api:key1", content="用户每天喝拿铁。")
    assert "拿铁" in " ".join(
        i.content
        for i in memory_recall(
            tenant=person.tenant, end_user=person.end_user, query="咖啡", policy=memory_policy_for(tenant=person.tenant)
        )
    )
    forgotten = memory_forget_matching(
        tenant=person.tenant, end_user=person.end_user, query="forget my coffee", actor="user:me"
    )
    assert [f["id"] for f in forgotten] == [note.pk]
    log = list(AuditLog.objects.for_tenant(person.tenant).order_by("id").values_list("actor", "action", "after"))
    assert [(a, b) for a, b, _ in log] == [("admin:alice", "create"), ("api:key1", "update"), ("user:me", "forget")]
    assert "拿铁" not in str(log[-1][2])
    with pytest.raises(InvalidInput, match="personal identifier"):
        memory_note_create(
            tenant=person.tenant,
            end_user=person.end_user,
            kind="profile",
            content="电话 13800138000",
            policy=memory_policy_for(tenant=person.tenant),
        )


def test_episodic_recall_finds_what_extraction_missed(make_person):
    person = make_person(recall_all_below=0)
    said = person.say("上周供应商老刘报价，牛肉每斤 38 块")
    assert person.notes() == []  # no durable fact about the user in it
    other = make_person(tenant=person.tenant, recall_all_below=0)
    other.say("上周供应商老刘报价，牛肉每斤 38 块")
    person.new_session()
    items = memory_recall(
        tenant=person.tenant,
        end_user=person.end_user,
        query="牛肉报价是多少来着",
        exclude_session_id=person.session.pk,
        policy=memory_policy_for(tenant=person.tenant),
    )
    [item] = items
    assert (item.type, item.id, item.session_id) == ("message", said.user_message.pk, said.session.pk)
    assert item.message_ids == [said.user_message.pk] and "38" in item.content
    # the current session's messages are in the window already: not recalled twice
    assert (
        memory_recall(
            tenant=person.tenant,
            end_user=person.end_user,
            query="牛肉报价",
            exclude_session_id=said.session.pk,
            policy=memory_policy_for(tenant=person.tenant),
        )
        == []
    )


def test_recall_respects_budget_top_k_and_counts_recalls(make_person):
    person = make_person(recall_all_below=0)
    for text in ["我平时上下班都是坐地铁", "我每天都喝美式", "预算 40 万", "我在深圳南山开了家面馆", "我对花生过敏"]:
        person.say(text)
    items = memory_recall(
        tenant=person.tenant,
        end_user=person.end_user,
        query="我的预算和通勤",
        k=2,
        policy=memory_policy_for(tenant=person.tenant),
    )
    assert 1 <= len([i for i in items if i.type == "note"]) <= 2
    assert (
        memory_recall(
            tenant=person.tenant,
            end_user=person.end_user,
            query="预算",
            budget_tokens=5,
            policy=memory_policy_for(tenant=person.tenant),
        )
        == []
    )
    hit = [
        i
        for i in memory_recall(
            tenant=person.tenant, end_user=person.end_user, query="预算", policy=memory_policy_for(tenant=person.tenant)
        )
        if i.type == "note"
    ]
    note = MemoryNote.objects.for_tenant(person.tenant).get(pk=hit[0].id)
    assert note.key == "budget" and note.recall_count >= 1 and note.last_recalled_at is not None


def test_older_facts_rank_lower_by_decay(make_person):
    person = make_person(recall_all_below=0)
    fresh = MemoryNoteFactory(end_user=person.end_user, kind="preference", key="", content="用户喜欢看科幻电影。")
    old = MemoryNoteFactory(end_user=person.end_user, kind="preference", key="", content="用户喜欢看科幻小说。")
    from memory.services.notes.notes import index

    for n in (fresh, old):
        index(n, embedding_model="offline-hash-ngram-v1")
        n.save()
    MemoryNote.objects.unscoped().filter(pk=old.pk).update(observed_at=timezone.now() - timedelta(days=60))
    MemoryNote.objects.unscoped().filter(pk=fresh.pk).update(observed_at=timezone.now())
    items = [
        i.id
        for i in memory_recall(
            tenant=person.tenant,
            end_user=person.end_user,
            query="我喜欢看科幻",
            policy=memory_policy_for(tenant=person.tenant),
        )
    ]
    assert items.index(fresh.pk) < items.index(old.pk)


def test_one_extraction_job_reads_the_message_once_and_writes_its_terms_with_its_events(make_person):
    """The job's work per message (issue 22): what it reads before embedding is one statement, the message's keyword
    terms go in with its memory events, and nothing of it touches another user's message."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memory.models import MessageVector
    from memory.services.writing.extraction import message_search_text
    from tenancy.models import Message

    person = make_person(recall_all_below=0)
    other = make_person(tenant=person.tenant, recall_all_below=0)
    other.say("Our team lost the regional chess final last weekend")
    person.say("What time does the harbour festival start on Saturday?", extract=False)
    message = person.last.user_message
    other_message = other.last.user_message
    before = Message.objects.for_tenant(other.tenant).values("search_vector", "metadata").get(pk=other_message.pk)
    with CaptureQueriesContext(connection) as captured:
        result = memory_extract_for_message(tenant_id=person.tenant.pk, message_id=message.pk)
    statements = [q["sql"] for q in captured.captured_queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))]

    assert result["message_vectors"] == 1
    message.refresh_from_db()
    assert message.search_vector == message_search_text(message.content) and "harbour" in message.search_vector.split()
    assert message.metadata.get("memory_done")
    [vector] = MessageVector.objects.for_tenant(person.tenant).filter(message=message)
    assert vector.end_user_id == person.end_user.pk
    assert sum("FROM assistants_message m" in s and "memory_messagevector v" in s for s in statements) == 1
    assert sum(s.startswith("UPDATE") and "assistants_message" in s for s in statements) == 1
    assert len(statements) <= 9, statements  # 14 before (issue 22): three reads before embedding, two UPDATEs
    # the other user's message is as it was, and a second run changes nothing
    assert (
        Message.objects.for_tenant(other.tenant).values("search_vector", "metadata").get(pk=other_message.pk) == before
    )
    again = memory_extract_for_message(tenant_id=person.tenant.pk, message_id=message.pk)
    assert again.get("message_vectors", 0) == 0
    assert MessageVector.objects.for_tenant(person.tenant).filter(message=message).count() == 1
