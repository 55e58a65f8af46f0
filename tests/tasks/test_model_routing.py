"""The real-model classification (tenant's chat model is not "offline"): the openai client against the scripted
OpenAI-compatible server, structured output, and the offline rules when the model fails."""

import pytest

from core.policy import memory_policy_for
from tasks.models import TaskState
from tasks.services.working_memory import task_route_message
from tenancy.models import Message
from tests.openai_server import Scripted


@pytest.fixture
def model_tenant(make_tenant, scripted_llm, settings):
    settings.LLM_MAX_RETRIES = 0
    return make_tenant("modelco", chat_model="scripted-chat")


@pytest.fixture
def model_session(model_tenant, new_session):
    from assistants.services.tenants import end_user_get_or_create

    return new_session(model_tenant, end_user_get_or_create(tenant=model_tenant, external_id="dora"))


def route(tenant, session, text):
    message = Message.objects.for_tenant(tenant).create(
        tenant=tenant, session=session, end_user=session.end_user, role=Message.Role.USER, content=text
    )
    return task_route_message(
        tenant=tenant,
        session=session,
        message=message,
        policy=memory_policy_for(tenant=tenant, assistant=session.assistant),
    )


@pytest.mark.django_db
def test_the_model_classifies_and_extracts_what_rules_cannot(model_tenant, model_session, scripted_llm):
    # No task open, offered or named: the model is not asked at all.
    assert route(model_tenant, model_session, "我们准备搞个新东西") is None
    assert scripted_llm.chat_requests() == []

    scripted_llm.push("chat", {"route": "new_task", "task_type": "项目计划", "fields": {}})
    result = route(model_tenant, model_session, "那就得排一下项目计划了")
    assert result["data"]["task"] == "项目计划" and result["data"]["route"] == "new_task"
    request = scripted_llm.chat_requests()[-1]
    assert request["model"] == "scripted-chat" and request["response_format"]["type"] == "json_schema"
    assert "排一下项目计划" in request["messages"][-1]["content"]

    scripted_llm.push("chat", {"route": "continue", "task_type": "项目计划", "fields": {"预算": "二十来万"}})
    result = route(model_tenant, model_session, "钱的话二十来万吧")
    assert result["data"]["collected"] == {"预算": "二十来万"}


@pytest.mark.django_db
def test_a_side_question_by_the_model_leaves_the_task_alone(model_tenant, model_session, scripted_llm):
    scripted_llm.push("chat", {"route": "new_task", "task_type": "项目计划", "fields": {"项目名称": "海鸥"}})
    first = route(model_tenant, model_session, "帮我做项目计划，项目叫海鸥")
    before = TaskState.objects.for_tenant(model_tenant).get(pk=first["data"]["id"])
    scripted_llm.push("chat", {"route": "side_question", "task_type": None, "fields": {}})
    result = route(model_tenant, model_session, "顺便问下，发票怎么开？")
    after = TaskState.objects.for_tenant(model_tenant).get(pk=first["data"]["id"])
    assert result["reply_hint"] is None and result["data"]["route"] == "side_question"
    assert (after.version, after.collected, after.updated_at) == (before.version, before.collected, before.updated_at)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fault", [Scripted(status=500), Scripted(content="this is not JSON"), Scripted(content={"route": "teleport"})]
)
def test_model_faults_fall_back_to_the_rules(model_tenant, model_session, scripted_llm, fault):
    scripted_llm.push("chat", fault)
    result = route(model_tenant, model_session, "帮我做一个项目计划，预算20万")
    assert result["data"]["task"] == "项目计划" and result["data"]["collected"] == {"预算": "20万"}
    assert len(scripted_llm.chat_requests()) == 1  # the model was asked, and failed
