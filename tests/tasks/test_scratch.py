"""Session scratch: an intermediate result is computed once per session and call, reused, and dropped with the
TTL; another session never sees it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from assistants.services.chat import chat_session_start
from core.policy import memory_policy_for
from tasks.models import SessionScratch
from tasks.services.scratch import scratch_expire, scratch_get, scratch_get_or_compute, scratch_put
from tasks.services.working_memory import task_states_expire


@pytest.mark.django_db
def test_a_call_is_computed_once_per_session_and_reused(tenant, user, session):
    calls = []

    def lookup():
        calls.append(1)
        return {"rows": 1000, "categories": ["退款", "物流"]}

    policy = memory_policy_for(tenant=tenant, assistant=session.assistant)

    def classify(session, args):
        return scratch_get_or_compute(
            tenant=tenant, session=session, call="classify_sample", args=args, compute=lookup, policy=policy
        )

    args = {"file": "tickets.csv", "sample": 50}
    first = classify(session, args)
    again = classify(session, {"sample": 50, "file": "tickets.csv"})
    assert first == again == {"rows": 1000, "categories": ["退款", "物流"]} and len(calls) == 1
    # other arguments are another call
    classify(session, {"sample": 60})
    assert len(calls) == 2
    # another session of the same user computes its own
    other = chat_session_start(tenant=tenant, end_user=user)
    classify(other, args)
    assert len(calls) == 3


@pytest.mark.django_db
def test_scratch_expires_with_its_ttl(tenant, session):
    policy = memory_policy_for(tenant=tenant, assistant=session.assistant)
    scratch_put(tenant=tenant, session=session, key="k", value=[1, 2], ttl=timedelta(hours=1), policy=policy)
    assert scratch_get(tenant=tenant, session=session, key="k") == [1, 2]
    SessionScratch.objects.for_tenant(tenant).filter(key="k").update(expires_at=timezone.now() - timedelta(seconds=1))
    assert scratch_get(tenant=tenant, session=session, key="k", default="gone") == "gone"
    scratch_put(
        tenant=tenant, session=session, key="kept", value=1, policy=policy
    )  # default TTL: the tenant's task_ttl_days
    assert task_states_expire()["expired_scratch"] == 1
    assert list(SessionScratch.objects.for_tenant(tenant).values_list("key", flat=True)) == ["kept"]
    assert scratch_expire(now=timezone.now() + timedelta(days=tenant.task_ttl_days, minutes=1)) == 1


@pytest.mark.django_db
def test_the_finished_tasks_draft_is_cached_in_the_session(tenant, session):
    from tests.tasks.conftest import say

    for text in ("帮我做一个项目计划", "项目名称是白鹭", "截止时间是8月底", "团队4人", "预算12万"):
        r = say(tenant, session, text)
    assert r.context.task["state"] == "waiting_confirm"
    drafts = SessionScratch.objects.for_tenant(tenant).filter(session=session, key__startswith="task_draft:")
    assert drafts.count() == 1 and "白鹭" in drafts.get().value and drafts.get().value == r.context.task["result"]
