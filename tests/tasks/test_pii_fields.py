"""The PII guard on working memory and short-term memory (issue 15): pinned facts, task-state values and
session scratch never hold an identifier, whatever the user typed into them; ordinary values stay."""

import pytest

from core.policy import memory_policy_for
from tasks.models import SessionScratch, TaskState
from tasks.services.scratch import scratch_get, scratch_put
from tests.tasks.conftest import say


@pytest.mark.django_db
def test_task_values_and_pinned_facts_hold_no_identifier(tenant, session):
    say(tenant, session, "帮我做一个项目计划")
    say(tenant, session, "项目名称是京A12345")
    r = say(tenant, session, "预算20万，团队5个人")
    state = TaskState.objects.for_tenant(tenant).get(session=session)
    assert "京A12345" not in str(state.collected) and "京A12345" not in str(state.step_history)
    assert "20万" in str(state.collected)  # the ordinary values are kept
    say(tenant, session, "记住：我对花生过敏，紧急联系人电话 07700 900123")
    session.refresh_from_db()
    assert "900123" not in str(session.pinned_facts)
    assert r.reply


@pytest.mark.django_db
def test_scratch_holds_no_identifier(tenant, session):
    scratch_put(
        tenant=tenant,
        session=session,
        key="tool:lookup",
        value={"result": "customer 221B Baker Street, phone +44 7700 900123", "rows": 3},
        policy=memory_policy_for(tenant=tenant, assistant=session.assistant),
    )
    value = scratch_get(tenant=tenant, session=session, key="tool:lookup")
    assert "900123" not in str(value) and "Baker Street" not in str(value) and value["rows"] == 3
    assert SessionScratch.objects.for_tenant(tenant).count() == 1
