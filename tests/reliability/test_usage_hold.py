"""Usage on the real worker (issue 43): a job's model calls are metered for the end user and assistant of the
session it is about; a tenant over its hard usage limit has its model jobs wait in the outbox (sent again later),
neither failing nor lost, until the limit is lifted, while another tenant's jobs run."""

from __future__ import annotations

import time

import pytest

from assistants.services.chat import chat_session_start
from assistants.services.tenants import end_user_get_or_create, tenant_create
from core.dispatch import DISPATCH_KIND, enqueue_now
from core.models import JobRecord
from tenancy.models import Assistant
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


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_jobs_model_call_is_metered_for_the_sessions_user_and_assistant(celery_worker, openai_server):
    from tests.factories import MessageFactory
    from tests.openai_server import Scripted

    openai_server.reset()
    tenant, _key = tenant_create(slug="metered")
    tenant.chat_model, tenant.window_turns = "gpt-summary", 1
    tenant.save(update_fields=["chat_model", "window_turns"])
    user = end_user_get_or_create(tenant=tenant, external_id="alice")
    session = chat_session_start(tenant=tenant, end_user=user)
    for text in ("My budget is 400k.", "Noted.", "The shop is in Hangzhou.", "Noted again."):
        MessageFactory(session=session, content=text)
    answer = {"summary_lines": ["Budget 400k.", "Shop in Hangzhou."]}
    openai_server.push("chat", *[Scripted(answer, usage={"prompt_tokens": 321, "completion_tokens": 12})] * 3)
    enqueue_now("assistants.jobs.session_compact", tenant.pk, session.pk)
    row = wait_for(
        lambda: UsageHour.objects.for_tenant(tenant).filter(purpose="session_compact").first(),
        message="the compaction's model call in usage",
    )
    assert (row.end_user_id, row.assistant_id, row.model, row.kind) == (
        user.pk,
        session.assistant_id,
        "gpt-summary",
        "chat",
    )
    assert (row.prompt_tokens, row.completion_tokens, row.counted_tokens, row.errors) == (321, 12, 0, 0)
    openai_server.reset()


def time_hour():
    from datetime import UTC, datetime

    return datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
