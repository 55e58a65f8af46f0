"""Return after a break (seed 002: "你之前的任务还在，要继续吗?") and expiry after the TTL by the periodic job."""

from datetime import timedelta

import pytest
from django.utils import timezone

from assistants.services.chat import chat_session_start
from assistants.services.tenants import end_user_get_or_create
from core.models import JobRecord
from tasks.jobs import task_states_expire
from tasks.models import TaskState
from tasks.services.working_memory import task_states_expire as expire_service
from tests.conftest import wait_for
from tests.tasks.conftest import say


def _three_fields(tenant, session, lang="zh"):
    if lang == "zh":
        for text in ("帮我做一个项目计划", "项目名称是晨光", "截止时间是明年3月", "团队大概8人"):
            r = say(tenant, session, text)
    else:
        for text in ("I need a project plan", "It's called Lighthouse", "due by next Friday", "a team of 4"):
            r = say(tenant, session, text)
    return TaskState.objects.for_tenant(tenant).get(pk=r.context.task["id"])


@pytest.mark.django_db
def test_new_session_within_ttl_offers_to_continue_then_resumes(tenant, user, session):
    state = _three_fields(tenant, session)
    later = chat_session_start(tenant=tenant, end_user=user)
    r = say(tenant, later, "你好")
    assert "你之前的项目计划还差预算，要继续吗？" in r.reply
    assert r.context.task["pending"] == ["预算"]
    # offered once per session, not on every message
    r = say(tenant, later, "你们几点下班？")
    assert "要继续吗" not in r.reply
    r = say(tenant, later, "好的")
    assert "晨光" in r.reply and "明年3月" in r.reply and "8人" in r.reply and "还需要你告诉我预算" in r.reply
    state.refresh_from_db()
    assert state.session_id == later.pk and state.state == "collecting_info"


@pytest.mark.django_db
def test_offer_in_english(tenant, user, session):
    _three_fields(tenant, session, "en")
    later = chat_session_start(tenant=tenant, end_user=user)
    r = say(tenant, later, "hello again")
    assert "Your earlier project plan still needs the budget. Shall we continue?" in r.reply


@pytest.mark.django_db
def test_another_user_is_not_offered_someone_elses_task(tenant, session):
    _three_fields(tenant, session)
    bob = end_user_get_or_create(tenant=tenant, external_id="bob")
    r = say(tenant, chat_session_start(tenant=tenant, end_user=bob), "你好")
    assert r.context.task is None and "要继续吗" not in r.reply


@pytest.mark.django_db
def test_ttl_comes_from_the_tenant_and_expired_tasks_are_no_longer_offered(make_tenant, new_session):
    tenant = make_tenant("short-ttl", task_ttl_days=2)
    user = end_user_get_or_create(tenant=tenant, external_id="carol")
    session = new_session(tenant, user)
    state = _three_fields(tenant, session)
    assert abs(state.expires_at - (timezone.now() + timedelta(days=2))) < timedelta(minutes=1)

    # Two days and a bit later the periodic job expires it.
    result = expire_service(now=timezone.now() + timedelta(days=2, minutes=5))
    assert result["expired_tasks"] == 1
    state.refresh_from_db()
    assert state.state == "expired" and state.step_history[-1]["reason"] == "ttl"
    r = say(tenant, new_session(tenant, user), "你好")
    assert r.context.task is None and "要继续吗" not in r.reply
    r = say(tenant, new_session(tenant, user), "继续做项目计划")  # starts afresh; the expired one stays expired
    assert r.context.task["progress"] == "0/4" and r.context.task["id"] != state.pk


@pytest.mark.django_db
def test_tasks_within_ttl_are_not_expired(tenant, session):
    state = _three_fields(tenant, session)
    assert expire_service(now=timezone.now() + timedelta(days=6))["expired_tasks"] == 0
    state.refresh_from_db()
    assert state.state == "collecting_info"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_expiry_job_runs_on_the_real_worker(celery_worker, tenant, session):
    state = _three_fields(tenant, session)
    TaskState.objects.for_tenant(tenant).filter(pk=state.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    task_states_expire.delay()
    job = wait_for(
        lambda: JobRecord.objects.filter(kind="task_states_expire", status="succeeded").first(),
        message="the expiry job",
    )
    assert job.result["expired_tasks"] == 1
    state.refresh_from_db()
    assert state.state == "expired"


@pytest.mark.django_db
def test_the_expiry_job_is_scheduled_in_beat():
    from django_celery_beat.models import PeriodicTask

    periodic = PeriodicTask.objects.get(task="tasks.jobs.task_states_expire")
    assert periodic.enabled and periodic.interval is not None
