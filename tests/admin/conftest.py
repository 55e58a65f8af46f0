"""A populated platform for admin and privacy tests: two tenants, each with one row of every kind."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from assistants.services.staff import tenant_staff_add
from assistants.services.tenants import end_user_create_with_login
from core.models import JobRecord, WorkerHeartbeat
from memory.models import AuditLog, Experience, MemoryNote, PiiRejection
from memory.services.vectors.embeddings import embed_texts
from tasks.models import SessionScratch, TaskState, TaskType
from tenancy.models import ApiKey, ErasureReceipt, Feedback, Message, TenantStaff
from tests.factories import (
    AssistantFactory,
    ChatSessionFactory,
    EndUserFactory,
    MemoryNoteFactory,
    MessageFactory,
    TenantFactory,
)
from tools.models import Tool, ToolCallLog
from usage.models import ModelPrice, UsageNotice
from webhooks.models import WebhookDelivery, WebhookEndpoint


def vector(text):
    return embed_texts(texts=[text])[1][0]


def populate_user(tenant, assistant, external_id, *, words="面馆", with_login=True):
    """One end user with a row of every kind that is about them. Returns a dict of what was made."""
    if with_login:
        user = end_user_create_with_login(
            tenant=tenant,
            external_id=external_id,
            username=f"{tenant.slug}-{external_id}",
            password="pw-123456",
            display_name=f"Person {external_id}",
        )
    else:
        user = EndUserFactory(tenant=tenant, external_id=external_id)
    session = ChatSessionFactory(
        end_user=user,
        tenant=tenant,
        assistant=assistant,
        title=f"开{words}",
        summary=f"用户想开一家{words}，预算 40 万。",
        pinned_facts={"budget": {"value": "40万"}, "city": {"value": "深圳南山"}},
    )
    m1 = MessageFactory(session=session, content=f"我想开一家{words}，预算 40 万")
    m2 = MessageFactory(session=session, role=Message.Role.ASSISTANT, content=f"好的，{words}的预算是 40 万。")
    m3 = MessageFactory(session=session, content=f"I prefer a shop of 60 square metres for the {words}")
    old = MemoryNoteFactory(
        end_user=user,
        kind="business_status",
        key="budget",
        content=f"{words}预算 30 万",
        status=MemoryNote.Status.SUPERSEDED,
        session=session,
        embedding=vector("预算 30 万"),
        embedding_model="offline-hash-ngram-v1",
    )
    new = MemoryNoteFactory(
        end_user=user,
        kind="business_status",
        key="budget",
        content=f"{words}预算 40 万",
        supersedes=old,
        session=session,
        embedding=vector("预算 40 万"),
        embedding_model="offline-hash-ngram-v1",
    )
    new.source_messages.add(m1, through_defaults={"tenant": tenant})
    pending = MemoryNoteFactory(
        end_user=user,
        kind="preference",
        key="size",
        content=f"{words}面积 60 平米",
        source=MemoryNote.Source.AGENT_INFERRED,
        confidence=0.4,
        status=MemoryNote.Status.PENDING_REVIEW,
    )
    pending.source_messages.add(m3, through_defaults={"tenant": tenant})
    forgotten = MemoryNoteFactory(end_user=user, kind="plan", content="", status=MemoryNote.Status.FORGOTTEN)
    AuditLog.objects.for_tenant(tenant).create(
        tenant=tenant,
        actor="admin:someone",
        action="edit",
        object_type="memory_note",
        object_id=str(new.pk),
        before={"content": f"{words}预算 30 万"},
        after={"content": f"{words}预算 40 万"},
    )
    AuditLog.objects.for_tenant(tenant).create(
        tenant=tenant,
        actor=f"user:{external_id}",
        action="forget",
        object_type="memory.MemoryNote",
        object_id=str(forgotten.pk),
        before={"content": f"{words}开业计划"},
        after={"content": ""},
    )
    task_type = TaskType.objects.for_tenant(tenant).get_or_create(
        tenant=tenant,
        assistant=assistant,
        name="开店计划",
        defaults={"required_fields": [{"name": "预算"}, {"name": "城市"}]},
    )[0]
    task = TaskState.objects.for_tenant(tenant).create(
        tenant=tenant,
        end_user=user,
        session=session,
        task_type=task_type,
        task_name="开店计划",
        required_fields=["预算", "城市"],
        collected={"预算": {"value": "40万", "message_id": m1.pk}},
        expires_at=timezone.now() + timedelta(days=7),
    )
    scratch = SessionScratch.objects.for_tenant(tenant).create(
        tenant=tenant, session=session, end_user=user, key="rent-search", value={"rent": "每月 2 万"}
    )
    feedback = Feedback.objects.for_tenant(tenant).create(
        tenant=tenant, message=m2, end_user=user, rating="up", comment=f"{words}的建议很好"
    )
    experience = Experience.objects.for_tenant(tenant).create(
        tenant=tenant,
        assistant=assistant,
        task_summary="small restaurant opening plan",
        solution=f"Plan for a {words} with a 40万 budget",
        source_message=m2,
        contributed_by=user,
    )
    pii = PiiRejection.objects.for_tenant(tenant).create(
        tenant=tenant, end_user=user, pii_kind="phone", stage="extraction", count=2
    )
    job = JobRecord.objects.create(
        kind="memory_extract",
        tenant=tenant,
        end_user=user,
        status="succeeded",
        idempotency_key=f"extract:{m3.pk}",
        result={"note": f"{words}面积 60 平米"},
    )
    ToolCallLog.objects.for_tenant(tenant).create(  # issue 41: a tool call of the user's turn, erased with them
        tenant=tenant,
        tool="search_memory",
        kind="memory",
        status="ok",
        duration_ms=3,
        end_user=user,
        assistant=assistant,
    )
    keyed_job = JobRecord.objects.create(
        kind="memory_extract",
        tenant=tenant,
        status="succeeded",
        idempotency_key=f"extract:{m1.pk}",
        result={"written": 1},
    )
    return {
        "user": user,
        "session": session,
        "messages": [m1, m2, m3],
        "notes": [old, new, pending, forgotten],
        "task": task,
        "scratch": scratch,
        "feedback": feedback,
        "experience": experience,
        "pii": pii,
        "jobs": [job, keyed_job],
        "task_type": task_type,
    }


@pytest.fixture
def world(db):
    """Tenants A (acme) and B (globex), each with an assistant, a key, a staff member and a populated user;
    plus rows of every other registered model (receipt, heartbeat, celery beat schedules)."""
    from django_celery_beat.models import (
        ClockedSchedule,
        CrontabSchedule,
        IntervalSchedule,
        PeriodicTask,
        SolarSchedule,
    )

    data = {}
    for slug, words in (("acme", "面馆"), ("globex", "coffee shop")):
        tenant = TenantFactory(slug=slug)
        assistant = AssistantFactory(tenant=tenant)
        key = ApiKey.objects.for_tenant(tenant).create(
            tenant=tenant, name="default", prefix=f"mk_{slug}", hashed_key=f"hash-{slug}"
        )
        staff = tenant_staff_add(tenant=tenant, username=f"staff-{slug}", password="pw-123456")
        person = populate_user(tenant, assistant, "u-1", words=words)
        bystander = populate_user(tenant, assistant, "u-2", words=words, with_login=False)
        receipt = ErasureReceipt.objects.for_tenant(tenant).create(
            tenant=tenant, user_id_hash="0" * 64, requested_by="admin:x", counts={"x": 1}
        )
        hook = WebhookEndpoint.objects.for_tenant(tenant).create(
            tenant=tenant, url=f"https://{slug}.example.com/hooks", events=["memory.created"], secret="whsec_t"
        )
        delivery = WebhookDelivery.objects.for_tenant(tenant).create(
            tenant=tenant,
            endpoint=hook,
            event="memory.created",
            payload={"note": person["notes"][1].pk},
            status="failed",
            attempts=1,
            last_error="HTTP 500",
            log=[{"at": "2026-01-01T09:00:00Z", "attempt": 1, "status": 500, "error": "HTTP 500", "ms": 12}],
        )
        tool = Tool.objects.for_tenant(tenant).create(  # issue 41: an HTTP tool
            tenant=tenant, name="order_status", description="d", url=f"https://{slug}.example.com/tool", secret="t"
        )
        tool.assistants.set([assistant], through_defaults={"tenant_id": tenant.pk})
        UsageNotice.objects.for_tenant(tenant).create(  # issue 43: an 80% notice
            tenant=tenant, limit="tenant.tokens_per_day", period_start=timezone.now(), used=80, quota=100
        )
        data[slug] = {
            "tenant": tenant,
            "assistant": assistant,
            "key": key,
            "staff": staff,
            "person": person,
            "bystander": bystander,
            "receipt": receipt,
            "webhook": hook,
            "delivery": delivery,
        }
    ModelPrice.objects.create(model="gpt-test", prompt_per_million=1, completion_per_million=2)
    WorkerHeartbeat.objects.create(hostname="worker@test", last_seen=timezone.now())
    interval = IntervalSchedule.objects.create(every=10, period="seconds")
    CrontabSchedule.objects.create(minute="0", hour="3")
    SolarSchedule.objects.create(event="sunrise", latitude=22.5, longitude=114.0)
    ClockedSchedule.objects.create(clocked_time=timezone.now())
    PeriodicTask.objects.create(name="expire notes", task="tasks.jobs.platform_ping", interval=interval)
    data["superuser"] = get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456")
    from axes.models import AccessAttempt  # a login lockout (django-axes): staff unlock it by deleting the row

    AccessAttempt.objects.create(
        username="someone",
        ip_address="127.0.0.1",
        user_agent="test",
        failures_since_start=5,
        get_data="",
        post_data="",
        path_info="/login/",
        http_accept="text/html",
    )
    assert TenantStaff.objects.count() == 2
    return data


@pytest.fixture
def admin_client_root(client, world):
    client.force_login(world["superuser"])
    return client


@pytest.fixture
def staff_client_a(client, world):
    client.force_login(world["acme"]["staff"])
    return client
