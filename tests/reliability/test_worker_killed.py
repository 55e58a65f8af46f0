"""A worker SIGKILLed in the middle of a job: after a new worker starts, the job completes exactly once in effect
(acks_late + reject_on_worker_lost, Redis redelivers after the visibility timeout, services are idempotent).

Each job is made slow deterministically: compaction and extraction wait for the scripted model (Scripted(delay));
erasure waits on a row lock this test holds. The worker is killed while it is provably inside the job."""

from __future__ import annotations

import time

import psycopg
import pytest
from django.db import connection

from core.dispatch import enqueue_now
from core.models import JobRecord
from memory.models import MemoryNote
from tenancy.models import ChatSession, ErasureReceipt, Message
from tests.conftest import wait_for
from tests.factories import (
    AssistantFactory,
    ChatSessionFactory,
    EndUserFactory,
    MemoryNoteFactory,
    MessageFactory,
    TenantFactory,
)
from tests.openai_server import Scripted
from tests.reliability.conftest import needs

pytestmark = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
]

SCRIPTED_MODEL = "scripted-model"


def conversation(tenant, texts: list[str]) -> ChatSession:
    session = ChatSessionFactory.create(
        tenant=tenant, end_user=EndUserFactory(tenant=tenant), assistant=AssistantFactory(tenant=tenant)
    )
    for i, text in enumerate(texts):
        MessageFactory(session=session, role=Message.Role.USER if i % 2 == 0 else Message.Role.ASSISTANT, content=text)
    return session


@needs("chat")
def test_worker_killed_mid_compaction_compacts_once(redis_worker, openai_server):
    from assistants.jobs import session_compact

    tenant = TenantFactory(chat_model=SCRIPTED_MODEL, window_turns=1, summary_trigger_messages=1)
    session = conversation(tenant, ["我想在成都开火锅店。", "好的。", "预算大概40万。", "明白。", "你好", "你好！"])
    lines = {"summary_lines": ["用户想在成都开火锅店", "预算大概40万"]}
    openai_server.reset()
    openai_server.push("chat", Scripted(content=lines, delay=6), Scripted(content=lines))

    first = redis_worker()
    enqueue_now(session_compact, tenant.pk, session.pk)
    wait_for(lambda: openai_server.chat_requests(), timeout=30, message="the worker to call the model")
    first.kill()  # SIGKILL while the model is still "thinking"
    session.refresh_from_db()
    assert session.summary_version == 0 and session.summary == ""

    redis_worker()
    wait_for(
        lambda: ChatSession.objects.unscoped().get(pk=session.pk).summary_version >= 1,
        timeout=90,
        message="the redelivered compaction",
    )
    time.sleep(3)  # nothing else may arrive: it ran once in effect
    session.refresh_from_db()
    assert session.summary_version == 1
    for line in lines["summary_lines"]:
        assert session.summary.count(line) == 1, session.summary
    jobs = list(JobRecord.objects.filter(kind="session_compact", tenant=tenant))
    assert len(jobs) == 1 and jobs[0].status == "succeeded" and jobs[0].attempts == 2


def _waiting_on_lock(dbname: str) -> bool:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'", [dbname])
        return cur.fetchone()[0] > 0


@needs("admin")
def test_worker_killed_mid_erasure_finishes_the_erasure_once(redis_worker):
    from assistants.services.privacy import user_erase_request

    tenant = TenantFactory()
    session = conversation(tenant, [f"第{i}条消息，预算{i}万" for i in range(30)])
    user = session.end_user
    for i in range(12):
        MemoryNoteFactory(tenant=tenant, end_user=user, key=f"k{i}", content=f"note {i}")
    bystander = conversation(tenant, ["我是另一个用户"])
    MemoryNoteFactory(tenant=tenant, end_user=bystander.end_user, content="bystander note")
    message_ids = list(Message.objects.for_tenant(tenant).filter(session=session).values_list("id", flat=True))

    # Hold a lock on one of the user's messages: the erasure deletes notes first, then blocks on messages.
    locker = psycopg.connect(**connection.get_connection_params(), autocommit=False)
    try:
        locker.execute("SELECT id FROM assistants_message WHERE id = %s FOR UPDATE", [message_ids[-1]])
        first = redis_worker()
        job = user_erase_request(tenant=tenant, end_user=user, requested_by="test-suite")
        wait_for(
            lambda: _waiting_on_lock(connection.settings_dict["NAME"]),
            timeout=30,
            message="the erasure to be blocked half-way",
        )
        first.kill()
    finally:
        locker.rollback()
        locker.close()
    assert not ErasureReceipt.objects.for_tenant(tenant).exists()

    redis_worker()
    wait_for(
        lambda: JobRecord.objects.filter(pk=job.pk, status="succeeded").exists(),
        timeout=90,
        message="the redelivered erasure",
    )
    receipts = list(ErasureReceipt.objects.for_tenant(tenant))
    assert len(receipts) == 1
    counts = receipts[0].counts
    # Exact counts although the first run was killed half-way: nothing counted twice, nothing missed.
    assert counts["assistants.Message"] == 30 and counts["memory.MemoryNote"] == 12
    assert counts["assistants.ChatSession"] == 1 and counts["assistants.EndUser"] == 1
    assert not Message.objects.for_tenant(tenant).filter(id__in=message_ids).exists()
    assert not MemoryNote.objects.for_tenant(tenant).filter(end_user_id=user.pk).exists()
    # The other user of the tenant keeps everything.
    assert MemoryNote.objects.for_tenant(tenant).filter(end_user=bystander.end_user).count() == 1
    assert Message.objects.for_tenant(tenant).filter(session=bystander).count() == 1


@needs("ltm")
def test_worker_killed_mid_extraction_writes_each_note_once(redis_worker, openai_server):
    from memory.jobs import memory_extract

    tenant = TenantFactory(chat_model=SCRIPTED_MODEL)
    session = conversation(tenant, ["我的预算大概40万，想在成都开火锅店。"])
    message = Message.objects.for_tenant(tenant).get(session=session)
    answer = {
        "candidates": [
            {
                "kind": "constraint",
                "key": "budget",
                "content": "用户预算大概40万",
                "value": {"amount": 400000},
                "confidence": 0.8,
                "source": "user_stated",
                "quote": "我的预算大概40万",
            },
            {
                "kind": "plan",
                "key": "city",
                "content": "用户想在成都开火锅店",
                "value": None,
                "confidence": 0.8,
                "source": "user_stated",
                "quote": "想在成都开火锅店",
            },
        ]
    }
    openai_server.reset()
    openai_server.push("chat", Scripted(content=answer, delay=6), Scripted(content=answer))

    first = redis_worker()
    enqueue_now(memory_extract, tenant.pk, message.pk)
    wait_for(lambda: openai_server.chat_requests(), timeout=30, message="the worker to call the model")
    first.kill()
    assert not MemoryNote.objects.for_tenant(tenant).exists()

    redis_worker()
    key = f"extract:{message.pk}"
    wait_for(
        lambda: JobRecord.objects.filter(idempotency_key=key, status="succeeded").exists(),
        timeout=90,
        message="the redelivered extraction",
    )
    notes = list(MemoryNote.objects.for_tenant(tenant).filter(end_user=session.end_user))
    assert sorted(n.key for n in notes) == ["budget", "city"], [(n.key, n.content) for n in notes]
    assert JobRecord.objects.get(idempotency_key=key).attempts == 2


# --- The default filesystem broker (issue 18): it has no redelivery of its own; the outbox's lease re-sends --------

LEASE_SECONDS = 2


@pytest.fixture
def filesystem_worker(own_broker_worker):
    """Workers on the filesystem broker (a folder of their own) with a short job lease."""
    return lambda: own_broker_worker({"JOB_LEASE_SECONDS": str(LEASE_SECONDS)}, name="filesystem")


def _outbox_row(job_name: str) -> JobRecord:
    rows = [r for r in JobRecord.objects.filter(kind="dispatch") if r.progress.get("job") == job_name]
    assert len(rows) == 1, rows
    return rows[0]


def _redeliver_until(done, message: str):
    """What beat does every DISPATCH_REDELIVER_SECONDS, polled: re-send what a lease ran out on, until `done`."""
    from core.dispatch import dispatch_redeliver

    def tick():
        dispatch_redeliver()
        return done()

    wait_for(tick, timeout=90, interval=0.5, message=message)


@needs("chat")
def test_worker_killed_mid_compaction_on_the_filesystem_broker_compacts_once(filesystem_worker, openai_server):
    from assistants.jobs import session_compact
    from core.dispatch import dispatch_redeliver

    tenant = TenantFactory(chat_model=SCRIPTED_MODEL, window_turns=1, summary_trigger_messages=1)
    session = conversation(
        tenant, ["I run a bakery in Leeds.", "Nice.", "My budget is £12,000.", "OK.", "我们下个月开业。", "好的。"]
    )
    other = conversation(TenantFactory(chat_model=SCRIPTED_MODEL), ["另一个租户的消息"])
    lines = {"summary_lines": ["User runs a bakery in Leeds", "Budget £12,000"]}
    openai_server.reset()
    openai_server.push("chat", Scripted(content=lines, delay=6), Scripted(content=lines))

    first = filesystem_worker()
    enqueue_now(session_compact, tenant.pk, session.pk)
    wait_for(lambda: openai_server.chat_requests(), timeout=30, message="the worker to call the model")
    assert _outbox_row("assistants.jobs.session_compact").status == "running"
    first.kill()  # the filesystem transport removed the message when the worker took it: only the outbox has it

    filesystem_worker()
    time.sleep(LEASE_SECONDS + 1)
    assert ChatSession.objects.unscoped().get(pk=session.pk).summary_version == 0  # nothing redelivers on its own
    _redeliver_until(
        lambda: ChatSession.objects.unscoped().get(pk=session.pk).summary_version >= 1,
        "the compaction re-sent once its lease ran out",
    )
    time.sleep(2)
    assert dispatch_redeliver()["sent"] == 0  # completed: nothing more to send
    session.refresh_from_db()
    assert session.summary_version == 1
    for line in lines["summary_lines"]:
        assert session.summary.count(line) == 1, session.summary
    jobs = list(JobRecord.objects.filter(kind="session_compact", tenant=tenant))
    assert len(jobs) == 1 and jobs[0].status == "succeeded" and jobs[0].attempts == 2
    outbox = _outbox_row("assistants.jobs.session_compact")
    assert outbox.status == "succeeded" and outbox.attempts == 2 and outbox.result["resent"] == 1
    assert ChatSession.objects.unscoped().get(pk=other.pk).summary_version == 0  # the other tenant's session untouched


@needs("admin")
def test_worker_killed_mid_erasure_on_the_filesystem_broker_finishes_once(filesystem_worker):
    from assistants.services.privacy import user_erase_request

    tenant = TenantFactory()
    session = conversation(tenant, [f"message {i}: 我的电话是1380013{i:04d}" for i in range(20)])
    user = session.end_user
    for i in range(8):
        MemoryNoteFactory(tenant=tenant, end_user=user, key=f"k{i}", content=f"note {i}")
    bystander = conversation(tenant, ["I am another user of the same tenant"])
    MemoryNoteFactory(tenant=tenant, end_user=bystander.end_user, content="bystander note")
    message_ids = list(Message.objects.for_tenant(tenant).filter(session=session).values_list("id", flat=True))

    locker = psycopg.connect(**connection.get_connection_params(), autocommit=False)
    try:
        locker.execute("SELECT id FROM assistants_message WHERE id = %s FOR UPDATE", [message_ids[-1]])
        first = filesystem_worker()
        job = user_erase_request(tenant=tenant, end_user=user, requested_by="test-suite")
        wait_for(
            lambda: _waiting_on_lock(connection.settings_dict["NAME"]),
            timeout=30,
            message="the erasure to be blocked half-way",
        )
        first.kill()
    finally:
        locker.rollback()
        locker.close()
    assert not ErasureReceipt.objects.for_tenant(tenant).exists()

    filesystem_worker()
    _redeliver_until(
        lambda: JobRecord.objects.filter(pk=job.pk, status="succeeded").exists(),
        "the erasure re-sent once its lease ran out",
    )
    receipts = list(ErasureReceipt.objects.for_tenant(tenant))
    assert len(receipts) == 1
    counts = receipts[0].counts
    assert counts["assistants.Message"] == 20 and counts["memory.MemoryNote"] == 8
    assert not Message.objects.for_tenant(tenant).filter(id__in=message_ids).exists()
    assert MemoryNote.objects.for_tenant(tenant).filter(end_user=bystander.end_user).count() == 1
    assert Message.objects.for_tenant(tenant).filter(session=bystander).count() == 1
