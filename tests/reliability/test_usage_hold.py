"""A tenant over its hard usage limit (issue 43): its model jobs wait in the outbox (sent again later) on the real
worker, neither failing nor lost, and run once the limit is lifted; another tenant's jobs run meanwhile."""

from __future__ import annotations

import time

import pytest

from assistants.models import Assistant
from assistants.services.chat import chat_session_start
from assistants.services.tenants import end_user_get_or_create, tenant_create
from core.dispatch import DISPATCH_KIND, enqueue_now
from core.models import JobRecord
from tests.conftest import wait_for
from usage.models import UsageHour
from usage.services import usage_quotas_set


def _compaction_row(session):
    rows = JobRecord.objects.filter(kind=DISPATCH_KIND, progress__job="assistants.jobs.session_compact")
    return next(r for r in rows if r.progress["args"][1] == session.pk)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_held_job_waits_without_failing_and_runs_when_the_limit_is_lifted(celery_worker):
    over, _key = tenant_create(slug="over")
    other, _key = tenant_create(slug="other")
    usage_quotas_set(tenant=over, quotas={"tenant": {"tokens_per_day": 100}})
    assistant = Assistant.objects.for_tenant(over).get()
    UsageHour.objects.for_tenant(over).create(  # the tenant spent past its limit today
        tenant=over,
        hour=time_hour(),
        assistant_id=assistant.pk,
        model="gpt-test",
        kind="turn",
        purpose="chat",
        calls=1,
        turns=1,
        prompt_tokens=90,
        completion_tokens=30,
    )
    sessions = {}
    for tenant in (over, other):
        user = end_user_get_or_create(tenant=tenant, external_id="alice")
        sessions[tenant.slug] = chat_session_start(tenant=tenant, end_user=user)
        enqueue_now("assistants.jobs.session_compact", tenant.pk, sessions[tenant.slug].pk)
    wait_for(lambda: _compaction_row(sessions["other"]).status == "succeeded", message="the other tenant's job")
    time.sleep(2.5)  # the held job has been looked at more than once by now (USAGE_JOB_WAIT_SECONDS is 1 in tests)
    held = _compaction_row(sessions["over"])
    assert held.status == "queued" and held.error == ""  # waiting, not failed
    usage_quotas_set(tenant=over, quotas={})
    wait_for(lambda: _compaction_row(sessions["over"]).status == "succeeded", message="the held job after the lift")


def time_hour():
    from datetime import UTC, datetime

    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
