"""A large import is processed in bounded steps, each its own job with its position in the ledger (issue 18)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from assistants.services.importing import IMPORT_STEP_MESSAGES, session_import
from assistants.services.tenants import end_user_get_or_create
from core.models import JobRecord
from memory.models import MessageVector
from tenancy.models import Message
from tests.conftest import wait_for
from tests.factories import AssistantFactory, TenantFactory


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_an_import_larger_than_a_step_is_processed_in_steps_each_its_own_job(celery_worker):
    tenant = TenantFactory(slug="steps")
    AssistantFactory(tenant=tenant)
    user = end_user_get_or_create(tenant=tenant, external_id="history-owner")
    start = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)
    users = IMPORT_STEP_MESSAGES + 40
    texts = ["我喜欢在西湖边跑步，第{n}次。", "My favourite tea is oolong, cup {n}.", "预算大约{n}千元。"]
    messages = []
    for n in range(users):
        at = start + timedelta(minutes=2 * n)
        messages.append({"role": "user", "content": texts[n % 3].format(n=n), "created_at": at})
        messages.append({"role": "assistant", "content": f"OK {n}", "created_at": at + timedelta(minutes=1)})
    session, ids, job = session_import(tenant=tenant, end_user=user, messages=messages)

    wait_for(
        lambda: JobRecord.objects.filter(pk=job.pk, status__in=["succeeded", "failed"]).exists(),
        timeout=120,
        message="the import",
    )
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    assert job.progress == {"stage": "done", "done": users, "total": users}
    assert job.result["user_messages"] == users and job.result["message_vectors"] == users

    def steps_settled():
        found = [
            r
            for r in JobRecord.objects.filter(kind="dispatch")
            if r.progress.get("job") == "assistants.jobs.session_import"
        ]
        return found if all(r.status not in ("queued", "running") for r in found) else None

    # the last step marks the import done before its own dispatch row is closed: wait for that row too
    steps = wait_for(steps_settled, timeout=30, message="the import's steps to settle")
    assert len(steps) >= 3  # two extraction steps (a step holds IMPORT_STEP_MESSAGES) and compaction
    assert all(r.status == "succeeded" and r.progress["args"] == [tenant.pk, session.pk, job.pk] for r in steps)
    user_ids = set(Message.objects.for_tenant(tenant).filter(session=session, role="user").values_list("id", flat=True))
    assert set(MessageVector.objects.for_tenant(tenant).values_list("message_id", flat=True)) == user_ids
