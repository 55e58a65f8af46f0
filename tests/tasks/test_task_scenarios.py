"""Seed 002's working-memory scenario, through the real chat turn, in Chinese and English: a project plan is
interrupted by a side question and resumed without asking again for what was already said."""

import pytest
from django.forms.models import model_to_dict

from tasks.models import TaskState
from tests.tasks.conftest import say


def _row(state_id):
    """Everything stored about one task, to prove a side question leaves it exactly as it was."""
    state = TaskState.objects.unscoped().get(pk=state_id)
    return {**model_to_dict(state), "updated_at": state.updated_at, "version": state.version}


@pytest.mark.django_db
def test_project_plan_interrupted_by_a_side_question_zh(tenant, session):
    r = say(tenant, session, "帮我做一个项目计划")
    assert r.context.task["task"] == "项目计划" and r.context.task["state"] == "collecting_info"
    assert r.context.task["progress"] == "0/4"
    assert "项目名称" in r.reply

    r = say(tenant, session, "项目名称是星火计划")
    assert r.context.task["collected"] == {"项目名称": "星火计划"}
    r = say(tenant, session, "截止时间是9月底")
    r = say(tenant, session, "团队有5个人")
    task = r.context.task
    assert task["progress"] == "3/4" and task["pending"] == ["预算"]
    assert task["collected"] == {"项目名称": "星火计划", "截止时间": "9月底", "团队规模": "5个人"}
    # each value carries the message it came from
    state = TaskState.objects.for_tenant(tenant).get(pk=task["id"])
    assert state.collected["团队规模"]["message_id"] == r.user_message.pk

    before = _row(task["id"])
    r = say(tenant, session, "你们公司周末上班吗?")
    assert _row(task["id"]) == before  # the side question did not touch the task
    assert r.context.task["route"] == "side_question" and r.context.task["pending"] == ["预算"]
    assert not any("预算" in hint for hint in r.context.hints)

    r = say(tenant, session, "继续做项目计划")
    assert r.context.task["progress"] == "3/4" and r.context.task["pending"] == ["预算"]
    for value in ("星火计划", "9月底", "5个人"):
        assert value in r.reply
    assert "还需要你告诉我预算" in r.reply
    assert "告诉我项目名称" not in r.reply and "告诉我截止时间" not in r.reply

    r = say(tenant, session, "预算大概20万")
    assert r.context.task["state"] == "waiting_confirm" and r.context.task["progress"] == "4/4"
    assert "20万" in r.reply and "确认" in r.reply
    r = say(tenant, session, "很好，就按这个来")
    assert r.context.task["state"] == "completed"
    steps = [s.get("to") or s["action"] for s in TaskState.objects.for_tenant(tenant).get(pk=task["id"]).step_history]
    assert steps.index("planning") < steps.index("waiting_confirm") < steps.index("completed")


@pytest.mark.django_db
def test_project_plan_interrupted_by_a_side_question_en(tenant, session):
    r = say(tenant, session, "Can you help me put together a project plan?")
    assert r.context.task["task"] == "Project plan" and r.context.task["progress"] == "0/4"
    say(tenant, session, "The project is called Apollo")
    say(tenant, session, "Deadline is the end of October")
    r = say(tenant, session, "We will have 6 engineers on it")
    task = r.context.task
    assert task["collected"] == {"project name": "Apollo", "deadline": "the end of October", "team size": "6 engineers"}

    before = _row(task["id"])
    r = say(tenant, session, "Do you guys work on weekends?")
    assert _row(task["id"]) == before
    assert r.context.task["route"] == "side_question"
    assert not any("budget" in hint.lower() for hint in r.context.hints)

    r = say(tenant, session, "OK, let's continue the project plan")
    assert r.context.task["pending"] == ["budget"] and r.context.task["progress"] == "3/4"
    for value in ("Apollo", "the end of October", "6 engineers"):
        assert value in r.reply
    assert "I still need the budget" in r.reply
    r = say(tenant, session, "The budget is $80k")
    assert r.context.task["state"] == "waiting_confirm" and "$80k" in r.reply


@pytest.mark.django_db
def test_fields_given_in_other_words_and_all_at_once(tenant, session):
    """Held-out phrasings: several fields in one message, a bare answer to the question asked, a change."""
    r = say(tenant, session, "我想做个项目规划，项目叫「云杉」，下个月底前上线")
    assert r.context.task["collected"] == {"项目名称": "云杉", "截止时间": "下个月底"}
    assert "团队规模" in r.reply  # asks for what is next
    r = say(tenant, session, "十二")  # the bare answer to "团队规模?"
    assert r.context.task["collected"]["团队规模"] == "十二"
    r = say(tenant, session, "经费控制在三十万元以内")
    assert r.context.task["state"] == "waiting_confirm"
    r = say(tenant, session, "预算改成35万")
    state = TaskState.objects.for_tenant(tenant).get(pk=r.context.task["id"])
    assert state.collected["预算"]["value"] == "35万" and state.state == "waiting_confirm"
    change = [s for s in state.step_history if s.get("field") == "预算"][-1]
    assert change["old_value"] == "三十万元" and change["message_id"] == r.user_message.pk


@pytest.mark.django_db
def test_a_new_task_pauses_the_current_one_without_losing_it(tenant, assistant, session):
    from tasks.models import TaskType

    TaskType.objects.for_tenant(tenant).create(
        tenant=tenant,
        assistant=assistant,
        name="活动策划",
        trigger_phrases=["活动策划", "办个活动"],
        required_fields=[{"name": "活动地点", "aliases": ["地点"]}, {"name": "参加人数", "aliases": ["人数"]}],
    )
    say(tenant, session, "帮我做一个项目计划")
    say(tenant, session, "项目名称是北极星")
    r = say(tenant, session, "先帮我办个活动吧，在杭州")
    assert r.context.task["task"] == "活动策划" and r.context.task["collected"] == {"活动地点": "杭州"}
    assert "项目计划已暂停" in r.reply
    plan = TaskState.objects.for_tenant(tenant).get(task_name="项目计划")
    assert plan.state == "paused" and plan.collected["项目名称"]["value"] == "北极星"
    r = say(tenant, session, "大概80人参加")
    assert r.context.task["collected"]["参加人数"] == "80人"
    r = say(tenant, session, "回到项目计划")
    assert r.context.task["task"] == "项目计划" and r.context.task["collected"] == {"项目名称": "北极星"}
    assert TaskState.objects.for_tenant(tenant).get(task_name="活动策划").state == "paused"


@pytest.mark.django_db
def test_cancel_and_no_task_means_no_task_section(tenant, session):
    r = say(tenant, session, "今天天气怎么样？")
    assert r.context.task is None
    say(tenant, session, "帮我做一个项目计划")
    r = say(tenant, session, "算了，取消项目计划")
    assert r.context.task["state"] == "cancelled"
    r = say(tenant, session, "随便聊聊")
    assert r.context.task is None
