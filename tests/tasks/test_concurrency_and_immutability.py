"""Two tabs writing to the same task at once lose no field; a completed task is never changed again."""

import threading
import time

import pytest
from django.db import connection, transaction

from core.exceptions import Conflict
from core.policy import memory_policy_for
from tasks.models import TaskState
from tasks.services.field_extraction import Extracted
from tasks.services.working_memory import task_route_message, task_state_fill
from tenancy.models import Message
from tests.tasks.conftest import say


def _user_message(tenant, session, text):
    return Message.objects.for_tenant(tenant).create(
        tenant=tenant, session=session, end_user=session.end_user, role=Message.Role.USER, content=text
    )


@pytest.mark.django_db(transaction=True)
def test_two_messages_at_once_lose_no_field(tenant, session):
    say(tenant, session, "帮我做一个项目计划")
    first = _user_message(tenant, session, "截止时间是12月底")
    second = _user_message(tenant, session, "团队有7个人")
    errors, results = [], {}
    first_written = threading.Event()

    def tab(name, message, hold):
        try:
            with transaction.atomic():
                results[name] = task_route_message(
                    tenant=tenant,
                    session=session,
                    message=message,
                    policy=memory_policy_for(tenant=tenant, assistant=session.assistant),
                )
                if hold:
                    first_written.set()
                    time.sleep(1.0)  # keep the first tab's transaction open while the second one arrives
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    a = threading.Thread(target=tab, args=("a", first, True))
    b = threading.Thread(target=tab, args=("b", second, False))
    a.start()
    assert first_written.wait(10)
    b.start()
    a.join(20)
    b.join(20)
    assert not errors, errors
    state = TaskState.objects.for_tenant(tenant).get(task_name="项目计划")
    assert {k: v["value"] for k, v in state.collected.items()} == {"截止时间": "12月底", "团队规模": "7个人"}
    assert state.collected["截止时间"]["message_id"] == first.pk
    assert state.collected["团队规模"]["message_id"] == second.pk
    assert results["b"]["data"]["progress"] == "2/4"  # the second tab saw the first tab's field


@pytest.mark.django_db
def test_a_completed_task_is_immutable(tenant, session):
    for text in ("帮我做一个项目计划", "项目名称是远航", "截止时间是6月30日", "团队10人", "预算50万", "确认"):
        r = say(tenant, session, text)
    state = TaskState.objects.for_tenant(tenant).get(pk=r.context.task["id"])
    assert state.state == "completed"
    frozen = (state.collected, state.version, state.result)

    with pytest.raises(Conflict, match="completed"):
        task_state_fill(
            tenant=tenant,
            state=state,
            values={"预算": Extracted("80万")},
            message=r.user_message,
            policy=memory_policy_for(tenant=tenant),
        )
    # A later message that names a field does not reach the completed task either.
    r = say(tenant, session, "预算改成80万")
    state.refresh_from_db()
    assert (state.collected, state.version, state.result) == frozen
    assert r.context.task is None or r.context.task["id"] != state.pk


@pytest.mark.django_db
def test_a_stale_writer_is_refused_not_merged(tenant, session):
    """Compare-and-set on version: a writer holding an old copy gets a Conflict instead of overwriting."""
    r = say(tenant, session, "帮我做一个项目计划")
    stale = TaskState.objects.for_tenant(tenant).get(pk=r.context.task["id"])
    say(tenant, session, "项目名称是潮汐")
    with pytest.raises(Conflict):
        task_state_fill(
            tenant=tenant,
            state=stale,
            values={"预算": Extracted("5万")},
            message=r.user_message,
            policy=memory_policy_for(tenant=tenant),
        )
    fresh = TaskState.objects.for_tenant(tenant).get(pk=stale.pk)
    assert {k: v["value"] for k, v in fresh.collected.items()} == {"项目名称": "潮汐"}
