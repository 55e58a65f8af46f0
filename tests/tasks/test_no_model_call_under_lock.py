"""No remote model call while a turn holds row locks (issue 17).

The working-memory router may ask the chat model how to route a message. It asks before the turn locks the end
user's and the session's rows; under the locks the hook only writes. With a model that takes seconds, the same
person's next turn and an erasure of that person go ahead meanwhile instead of queueing behind the model.
Real threads, each with its own database connection, against the real PostgreSQL; only the model is scripted."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from assistants.services.chat import chat_session_start, chat_turn
from assistants.services.privacy import user_erase, user_erase_request
from assistants.services.tenants import end_user_get_or_create
from core.exceptions import Conflict, NotFound
from core.policy import memory_policy_for
from tasks.models import TaskState
from tasks.services.routing import PreparedRoute, Route
from tasks.services.working_memory import task_route_message
from tenancy.models import EndUser, Message
from tests.conftest import wait_for
from tests.openai_server import Scripted

SLOW = 8.0  # seconds the router's answer takes; everything else must be done well before it comes


def _routing_requests(server) -> list[dict]:
    return [r for r in server.chat_requests() if "response_format" in r]


@pytest.mark.django_db(transaction=True)
def test_a_slow_router_holds_up_neither_the_users_next_turn_nor_their_erasure(make_tenant, scripted_llm, settings):
    settings.LLM_MAX_RETRIES = 0
    settings.LLM_TIMEOUT_SECONDS = 30
    tenant = make_tenant("slowco", chat_model="scripted-chat")
    user = end_user_get_or_create(tenant=tenant, external_id="lin")
    EndUser.objects.for_tenant(tenant).filter(pk=user.pk).update(memory_enabled=False)  # no extraction job
    user.refresh_from_db()
    session = chat_session_start(tenant=tenant, end_user=user)
    bystander = end_user_get_or_create(tenant=tenant, external_id="kai")  # another user: untouched by the erasure
    bystander_session = chat_session_start(tenant=tenant, end_user=bystander)
    scripted_llm.push(
        "chat", Scripted(content={"route": "new_task", "task_type": "项目计划", "fields": {}}, delay=SLOW)
    )

    first: dict = {}

    def slow_turn():
        try:
            first["result"] = chat_turn(tenant=tenant, session=session, text="帮我做一个项目计划")
        except Exception as exc:  # noqa: BLE001 - the outcome is asserted below
            first["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=slow_turn)
    started = time.monotonic()
    thread.start()
    wait_for(lambda: _routing_requests(scripted_llm), timeout=10, message="the router's call to the slow model")

    # The same person, the same conversation: the turn is answered while the first one still waits on the model.
    second = chat_turn(tenant=tenant, session=session, text="顺便问一下，今天几号？")
    second_done = time.monotonic() - started
    assert thread.is_alive(), "the slow model answered before the second turn was done: the test proves nothing"
    assert second.reply_message is not None and second_done < SLOW

    # Erasing that person: requested and carried out while the first turn still waits on the model.
    job = user_erase_request(tenant=tenant, end_user=user, requested_by="dpo", enqueue=False)
    user_erase(tenant_id=tenant.pk, end_user_id=user.pk, requested_by="dpo", job_id=job.pk)
    erased_done = time.monotonic() - started
    assert thread.is_alive() and erased_done < SLOW

    thread.join(timeout=SLOW + 20)
    assert not thread.is_alive()
    # The first turn then finds its user erased and stores nothing: a failed request changes nothing.
    assert isinstance(first.get("error"), (Conflict, NotFound)), first
    assert not Message.objects.for_tenant(tenant).filter(end_user_id=user.pk).exists()
    assert not TaskState.objects.for_tenant(tenant).filter(end_user_id=user.pk).exists()
    # The other user of the tenant still chats as before.
    assert chat_turn(tenant=tenant, session=bystander_session, text="你好").reply_message is not None


@pytest.mark.django_db
def test_a_route_prepared_for_other_task_states_is_not_used(make_tenant, scripted_llm, settings):
    """The model's answer counts only for the tasks it was asked about: when another turn changed them between
    the question and the locks, the rules decide, and the model is not asked again under the locks."""
    settings.LLM_MAX_RETRIES = 0
    tenant = make_tenant("staleco", chat_model="scripted-chat")
    user = end_user_get_or_create(tenant=tenant, external_id="lin")
    session = chat_session_start(tenant=tenant, end_user=user)
    from tasks.models import TaskType

    plan = TaskType.objects.for_tenant(tenant).get(name="项目计划")
    stale = PreparedRoute(seen_key=("not", "what the locks see"), route=Route("cancel", plan))
    message = Message.objects.for_tenant(tenant).create(
        tenant=tenant, session=session, end_user=user, role=Message.Role.USER, content="帮我做一个项目计划"
    )
    result = task_route_message(
        tenant=tenant,
        session=session,
        message=message,
        prepared=stale,
        policy=memory_policy_for(tenant=tenant, assistant=session.assistant),
    )
    assert result["data"]["route"] == "new_task"  # the rules' decision, not the stale "cancel"
    assert scripted_llm.chat_requests() == []


@pytest.mark.django_db
def test_with_the_offline_model_nothing_is_read_before_the_locks_and_the_rules_still_route(make_tenant):
    """Without a model to ask, the prepare step returns at once (no task types or task state read twice per turn);
    the rules under the locks start the task as before, and another user's open task does not become this one's."""
    from django.test.utils import CaptureQueriesContext

    from tasks.services.working_memory import task_route_prepare

    tenant = make_tenant("offlineco")
    user, other = (end_user_get_or_create(tenant=tenant, external_id=name) for name in ("lin", "kai"))
    other_session = chat_session_start(tenant=tenant, end_user=other)
    chat_turn(tenant=tenant, session=other_session, text="帮我做一个项目计划。项目名称是北极星。")
    session = chat_session_start(tenant=tenant, end_user=user)
    policy = memory_policy_for(tenant=tenant, assistant=session.assistant)
    with CaptureQueriesContext(connection) as queries:
        prepared = task_route_prepare(tenant=tenant, session=session, text="帮我做一个项目计划", policy=policy)
    assert prepared is None and len(queries) == 0
    message = Message.objects.for_tenant(tenant).create(
        tenant=tenant, session=session, end_user=user, role=Message.Role.USER, content="帮我做一个项目计划"
    )
    result = task_route_message(
        tenant=tenant,
        session=session,
        message=message,
        prepared=prepared,
        policy=policy,
    )
    assert result["data"]["route"] == "new_task" and result["data"]["collected"] == {}
    assert TaskState.objects.for_tenant(tenant).filter(end_user_id=other.pk).count() == 1
