"""Per-user erasure: nothing about the user remains (found by walking every model's foreign keys), the receipt's
counts match what was there, it survives a SIGKILL, and late jobs or turns resurrect nothing."""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from datetime import UTC

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import models
from django.urls import reverse

from assistants.jobs import session_compact
from assistants.jobs import user_erase as user_erase_job
from assistants.services.chat import chat_turn, chat_turn_stream
from assistants.services.privacy import receipt_count_name, user_erase, user_erase_request
from core.exceptions import Conflict
from core.models import JobRecord
from memory.jobs import memory_extract
from memory.models import AuditLog, MemoryNote
from tenancy.models import ChatSession, EndUser, ErasureReceipt, Message
from tests.admin.conftest import populate_user
from tests.conftest import ROOT, WorkerProcess, wait_for, worker_env
from tests.factories import AssistantFactory, TenantFactory

MAX_DEPTH = 4


def paths_to_end_user(model, depth=0, seen=()):
    """Every chain of FK/O2O field names from `model` to EndUser (e.g. ["message", "session", "end_user"])."""
    if depth >= MAX_DEPTH:
        return []
    found = []
    for field in model._meta.concrete_fields:
        if not isinstance(field, models.ForeignKey):  # OneToOneField is a ForeignKey
            continue
        target = field.related_model
        if target is EndUser:
            found.append([field.name])
        elif target not in seen and target is not model:
            found += [[field.name] + rest for rest in paths_to_end_user(target, depth + 1, seen + (model,))]
    return found


def models_about_users():
    return {
        m: p for m in apps.get_models(include_auto_created=True) if (p := paths_to_end_user(m)) and not m._meta.proxy
    }


def rows_about(user_id) -> dict[str, set]:
    rows = {}
    for model, paths in models_about_users().items():
        query = models.Q()
        for path in paths:
            query |= models.Q(**{"__".join(path) + "_id" if len(path) == 1 else "__".join(path) + "__id": user_id})
        rows[model._meta.label] = set(model._base_manager.filter(query).values_list("pk", flat=True))
    rows["tenancy.EndUser"] = set(EndUser.objects.unscoped().filter(pk=user_id).values_list("pk", flat=True))
    return rows


def everything_of(tenant_id):
    """A fingerprint of a tenant's rows, to prove that erasing one user leaves everyone else's data alone."""
    out = {}
    for model in apps.get_models():
        if any(f.name == "tenant" for f in model._meta.concrete_fields):
            out[model._meta.label] = model._base_manager.filter(tenant_id=tenant_id).count()
    return out


@pytest.mark.django_db
def test_no_row_about_the_user_remains_in_any_model(world):
    a = world["acme"]
    person = a["person"]
    user = person["user"]
    login_id = user.user_id
    before = rows_about(user.pk)
    # The walk finds the kinds the issue names (a model added later with a path to EndUser joins this list).
    for label in (
        "tenancy.ChatSession",
        "tenancy.Message",
        "tenancy.Feedback",
        "memory.MemoryNote",
        "memory.NoteSourceMessage",
        "memory.Experience",
        "memory.PiiRejection",
        "tasks.TaskState",
        "tasks.SessionScratch",
        "core.JobRecord",
    ):
        assert before[label], f"the fixture has no {label} row about the user"
    others_b = everything_of(world["globex"]["tenant"].pk)
    bystander_before = rows_about(a["bystander"]["user"].pk)

    job = user_erase_request(tenant=a["tenant"], end_user=user, requested_by="dpo@acme", enqueue=False)
    counts = user_erase(tenant_id=a["tenant"].pk, end_user_id=user.pk, requested_by="dpo@acme", job_id=job.pk)

    after = rows_about(user.pk)
    for label, pks in before.items():
        model = apps.get_model(label)
        assert not model._base_manager.filter(pk__in=pks).exists(), f"{label} rows survived the erasure"
        assert not after[label], f"{label} still has rows about the user"
    assert not JobRecord.objects.filter(pk=person["jobs"][1].pk).exists()  # keyed by the user's message id
    from django.contrib.auth import get_user_model

    assert not get_user_model().objects.filter(pk=login_id).exists()
    scrubbed = AuditLog.objects.unscoped().get(object_id=str(person["notes"][1].pk), actor="admin:someone")
    assert scrubbed.before is None and scrubbed.after is None
    by_user = AuditLog.objects.unscoped().get(object_id=str(person["notes"][3].pk), action="forget")
    assert by_user.actor == "erased user" and by_user.before is None  # the user's own "forget" in chat
    assert everything_of(world["globex"]["tenant"].pk) == others_b
    assert rows_about(a["bystander"]["user"].pk) == bystander_before
    assert counts["assistants.EndUser"] == 1


@pytest.mark.django_db
def test_receipt_counts_match_what_was_there_and_hold_no_personal_content(world):
    a = world["acme"]
    user = a["person"]["user"]
    before = {receipt_count_name(label): len(pks) for label, pks in rows_about(user.pk).items() if pks}
    before["core.JobRecord"] += 1  # the ledger row keyed "extract:<message id>" has no foreign key to the user
    job = user_erase_request(tenant=a["tenant"], end_user=user, requested_by="dpo@acme", enqueue=False)
    user_erase(tenant_id=a["tenant"].pk, end_user_id=user.pk, requested_by="dpo@acme", job_id=job.pk)
    receipt = ErasureReceipt.objects.for_tenant(a["tenant"]).get(job=job)
    for label, n in before.items():
        assert receipt.counts.get(label) == n, label
    assert receipt.counts["summaries"] == 1 and receipt.counts["pinned_facts"] == 2
    assert receipt.counts["auth.User"] == 1
    assert receipt.user_id_hash == hashlib.sha256(b"u-1").hexdigest()
    assert receipt.requested_by == "dpo@acme" and receipt.completed_at is not None
    text = json.dumps([receipt.counts, receipt.user_id_hash, receipt.requested_by], ensure_ascii=False)
    for secret in ("u-1", "面馆", "40 万", "Person"):
        assert secret not in text.replace(receipt.user_id_hash, "")
    # Running it again changes nothing and writes no second receipt.
    again = user_erase(tenant_id=a["tenant"].pk, end_user_id=user.pk, requested_by="dpo@acme", job_id=job.pk)
    assert again == receipt.counts
    assert ErasureReceipt.objects.for_tenant(a["tenant"]).filter(job=job).count() == 1


@pytest.mark.django_db
def test_a_turn_after_the_request_is_refused_and_stores_nothing(world):
    a = world["acme"]
    user, session = a["person"]["user"], a["person"]["session"]
    user_erase_request(tenant=a["tenant"], end_user=user, requested_by="dpo", enqueue=False)
    before = Message.objects.for_tenant(a["tenant"]).count()
    with pytest.raises(Conflict):
        chat_turn(tenant=a["tenant"], session=session, text="我的预算是 60 万")
    assert Message.objects.for_tenant(a["tenant"]).count() == before


@pytest.mark.django_db(transaction=True)
def test_a_turn_in_flight_during_erasure_does_not_resurrect_data():
    tenant = TenantFactory(slug="inflight")
    user = populate_user(tenant, AssistantFactory(tenant=tenant), "u-9")["user"]
    session = ChatSession.objects.for_tenant(tenant).get(end_user=user)
    turn = chat_turn_stream(tenant=tenant, session=session, text="我想开一家火锅店")
    event, _context = next(turn)  # the user's message is stored, the reply is not written yet
    assert event == "context"
    job = user_erase_request(tenant=tenant, end_user=user, requested_by="dpo", enqueue=False)
    user_erase(tenant_id=tenant.pk, end_user_id=user.pk, requested_by="dpo", job_id=job.pk)
    try:
        for _ in turn:  # the reply arrives after the erasure
            pass
    except Exception:  # noqa: BLE001  (failing to store the reply is the right outcome; resurrecting is not)
        pass
    assert not any(rows_about(user.pk).values())
    assert not Message.objects.for_tenant(tenant).filter(content__contains="火锅").exists()
    assert not ChatSession.objects.for_tenant(tenant).exists()


def held_worker(openai_server, queue, extra_env=None) -> WorkerProcess:
    env = worker_env(openai_server)
    env.update({"CELERY_QUEUE": queue, **(extra_env or {})})
    return WorkerProcess(env, ROOT / "test-artifacts" / f"worker-{queue}.log")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_jobs_queued_before_erasure_and_run_after_write_nothing(django_db_setup, openai_server):
    tenant = TenantFactory(slug="latejobs")
    made = populate_user(tenant, AssistantFactory(tenant=tenant), "u-7")
    user, message, session = made["user"], made["messages"][2], made["session"]
    queue = f"held-{uuid.uuid4().hex[:8]}"
    started = time.time()
    memory_extract.apply_async((tenant.pk, message.pk), queue=queue)  # queued; no worker consumes it yet
    session_compact.apply_async((tenant.pk, session.pk), queue=queue)
    job = user_erase_request(tenant=tenant, end_user=user, requested_by="dpo", enqueue=False)
    user_erase(tenant_id=tenant.pk, end_user_id=user.pk, requested_by="dpo", job_id=job.pk)
    worker = held_worker(openai_server, queue).start()
    try:

        def ran(kind):
            return (
                JobRecord.objects.filter(kind=kind, tenant=tenant, created_at__gte=_aware(started), attempts__gte=1)
                .exclude(status="running")
                .first()
            )

        extract_job = wait_for(lambda: ran("memory_extract"), timeout=60, message="the late extraction job")
        compact_job = wait_for(lambda: ran("session_compact"), timeout=60, message="the late compaction job")
    finally:
        worker.stop()
    assert not any(rows_about(user.pk).values())
    assert not EndUser.objects.for_tenant(tenant).filter(external_id="u-7").exists()
    assert not MemoryNote.objects.for_tenant(tenant).exists()
    assert not ChatSession.objects.for_tenant(tenant).exists()
    for late in (extract_job, compact_job):
        ledger_text = json.dumps([late.result, late.progress, late.error], ensure_ascii=False)
        assert "面馆" not in ledger_text and "60 square" not in ledger_text


def _aware(ts):
    from datetime import datetime

    return datetime.fromtimestamp(ts - 1, tz=UTC)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_sigkill_mid_erasure_then_rerun_finishes_with_exact_counts(django_db_setup, openai_server):
    tenant = TenantFactory(slug="killed")
    made = populate_user(tenant, AssistantFactory(tenant=tenant), "u-5")
    user, session = made["user"], made["session"]
    Message.objects.for_tenant(tenant).bulk_create(
        [
            Message(tenant=tenant, session=session, end_user=user, role="user", content=f"第 {i} 条消息")
            for i in range(1500)
        ]
    )
    before = {receipt_count_name(label): len(pks) for label, pks in rows_about(user.pk).items() if pks}
    queue = f"erase-{uuid.uuid4().hex[:8]}"
    worker = held_worker(openai_server, queue, {"ERASURE_BATCH_SIZE": "1"}).start()
    job = user_erase_request(tenant=tenant, end_user=user, requested_by="dpo", enqueue=False)
    user_erase_job.apply_async((tenant.pk, user.pk, "dpo", job.pk), queue=queue)
    try:

        def some_messages_gone():
            job.refresh_from_db()
            return (job.progress or {}).get("counts", {}).get("assistants.Message", 0) >= 20

        wait_for(some_messages_gone, timeout=60, interval=0.02, message="the worker to be deleting messages")
        worker.kill()
    finally:
        worker.stop()
    job.refresh_from_db()
    partly = job.progress["counts"]["assistants.Message"]
    remaining = Message.objects.for_tenant(tenant).filter(end_user=user).count()
    assert 0 < remaining < 1503 and partly + remaining == 1503  # committed batches are counted exactly
    assert EndUser.objects.for_tenant(tenant).get(pk=user.pk).erasure_requested_at is not None
    assert job.status == "running"  # the killed worker never finished it
    with pytest.raises(Conflict):  # meanwhile the user stays locked out
        chat_turn(tenant=tenant, session=session, text="hello again")

    call_command("erase_user", "killed", "u-5", "--requested-by", "dpo")  # the rerun

    job.refresh_from_db()
    assert job.status == "succeeded"
    receipt = ErasureReceipt.objects.for_tenant(tenant).get(job=job)
    assert receipt.counts["assistants.Message"] == before["assistants.Message"] == 1503
    assert not any(rows_about(user.pk).values())


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_admin_erase_action_confirms_counts_then_the_worker_erases(celery_worker, client):
    from django.contrib.auth import get_user_model

    tenant = TenantFactory(slug="viaadmin")
    user = populate_user(tenant, AssistantFactory(tenant=tenant), "u-3")["user"]
    client.force_login(get_user_model().objects.create_superuser("dpo", "dpo@example.com", "pw-123456"))
    changelist = reverse("admin:tenancy_enduser_changelist")
    page = client.post(changelist, {"action": "erase_users", "_selected_action": [user.pk]})
    assert page.status_code == 200
    html = page.content.decode()
    assert "Yes, erase all data" in html and "messages" in html and "memory_notes" in html
    assert page.context["previews"][0][1]["messages"] == 3 and page.context["previews"][0][1]["memory_notes"] == 4
    assert EndUser.objects.for_tenant(tenant).get(pk=user.pk).erasure_requested_at is None  # not yet confirmed
    # Without a reason nothing is erased and the page says why.
    page = client.post(
        changelist, {"action": "erase_users", "_selected_action": [user.pk], "confirm": "yes", "reason": "  "}
    )
    assert page.status_code == 200 and "Write the reason" in page.content.decode()
    assert EndUser.objects.for_tenant(tenant).get(pk=user.pk).erasure_requested_at is None
    client.post(
        changelist,
        {
            "action": "erase_users",
            "_selected_action": [user.pk],
            "confirm": "yes",
            "reason": "GDPR art. 17 request, ticket 4411",
        },
    )
    receipt = wait_for(
        lambda: ErasureReceipt.objects.for_tenant(tenant).first(), timeout=60, message="the worker's erasure receipt"
    )
    assert receipt.requested_by == "admin:dpo" and receipt.counts["assistants.Message"] == 3
    assert receipt.reason == "GDPR art. 17 request, ticket 4411"
    # the receipt commits inside the job; the ledger marks the job succeeded in the next statement
    job = wait_for(
        lambda: JobRecord.objects.filter(pk=receipt.job_id).exclude(status="running").first(),
        timeout=30,
        message="the erasure job to leave 'running'",
    )
    assert job.status == "succeeded" and job.progress["step"] == "done"
    assert not any(rows_about(user.pk).values())
    listing = client.get(reverse("admin:tenancy_erasurereceipt_changelist")).content.decode()
    assert receipt.user_id_hash in listing


@pytest.mark.django_db
def test_erase_user_command_says_why_when_the_user_is_unknown(world):
    with pytest.raises(CommandError, match="has no user 'nobody'"):
        call_command("erase_user", "acme", "nobody")
    with pytest.raises(CommandError, match="no tenant"):
        call_command("erase_user", "nope", "u-1")


@pytest.mark.django_db
def test_writers_in_other_layers_can_check_the_erasure_guard(world):
    from django.db import transaction

    from core.erasure import end_user_lock_for_write

    a = world["acme"]
    user = a["person"]["user"]
    with transaction.atomic():
        assert end_user_lock_for_write(tenant_id=a["tenant"].pk, end_user_id=user.pk) == user
        assert end_user_lock_for_write(tenant_id=world["globex"]["tenant"].pk, end_user_id=user.pk) is None
    user_erase_request(tenant=a["tenant"], end_user=user, requested_by="dpo", enqueue=False)
    with transaction.atomic():
        assert end_user_lock_for_write(tenant_id=a["tenant"].pk, end_user_id=user.pk) is None
