"""Working memory belongs to its conversation, and "forget" reaches task state (issue 16), Chinese and English:
a new conversation starts without a task and is offered the unfinished one as a question; cancel / 取消 / stop the
plan cancels it wherever it was started; "another / a new plan" starts a new task; a forget request removes the
fact from the notes, the pinned facts and the task's values, and is never itself a task value."""

import pytest

from assistants.services.chat import chat_session_start
from assistants.services.tenants import end_user_get_or_create
from core.policy import memory_policy_for
from memory.models import MemoryNote
from memory.services.writing.extraction import memory_extract_for_message
from tasks.models import TaskState
from tenancy.models import ChatSession
from tests.tasks.conftest import say


def tasks_of(tenant, user):
    return list(TaskState.objects.for_tenant(tenant).filter(end_user=user).order_by("id"))


def started(tenant, session, lang):
    texts = (
        ["我们来做一个项目计划", "项目名称是青石", "截止时间是下个月底"]
        if lang == "zh"
        else ["Let's do a project plan", "The project is called Bluebird", "The deadline is next Friday"]
    )
    for text in texts:
        say(tenant, session, text)
    [state] = tasks_of(tenant, session.end_user)
    return state


@pytest.mark.django_db
@pytest.mark.parametrize(
    "lang, first, offer",
    [
        ("zh", "今天天气怎么样？", "要继续吗"),
        ("en", "What time is it in Tokyo?", "Shall we continue"),
        ("zh", "What time is it in Tokyo?", "Shall we continue"),  # the other language: still only a question
    ],
)
def test_a_new_conversation_starts_without_the_task_and_is_offered_it(tenant, user, session, lang, first, offer):
    state = started(tenant, session, lang)
    before = (state.collected, state.version)
    later = chat_session_start(tenant=tenant, end_user=user)
    r = say(tenant, later, first)
    assert offer in r.reply
    state.refresh_from_db()
    assert (state.collected, state.version, state.session_id) == (*before, session.pk)  # untouched
    # a value said before any yes is not put into the other conversation's task
    say(tenant, later, "团队规模是12人" if lang == "zh" else "team size is 12")
    state.refresh_from_db()
    assert state.collected == before[0] and state.session_id == session.pk


@pytest.mark.django_db
@pytest.mark.parametrize(
    "lang, cancel",
    [("en", "Cancel the project plan."), ("zh", "取消项目计划"), ("en", "stop the plan"), ("zh", "项目计划不做了")],
)
def test_cancel_cancels_the_task_from_another_conversation(tenant, user, session, lang, cancel):
    state = started(tenant, session, lang)
    later = chat_session_start(tenant=tenant, end_user=user)
    say(tenant, later, "hello" if lang == "en" else "你好")  # the offer
    r = say(tenant, later, cancel)
    state.refresh_from_db()
    assert state.state == "cancelled", r.reply
    assert "cancel" in r.reply.lower() or "取消" in r.reply


@pytest.mark.django_db
@pytest.mark.parametrize(
    "lang, again, another",
    [
        ("en", "Let's do a project plan", "No, a new one please"),
        ("zh", "我们来做一个项目计划", "新建一个"),
        ("en", "I want another project plan", None),
        ("zh", "再做一个新的项目计划", None),
    ],
)
def test_another_plan_starts_a_new_task(tenant, user, session, lang, again, another):
    old = started(tenant, session, lang)
    later = chat_session_start(tenant=tenant, end_user=user)
    r = say(tenant, later, again)
    if another:  # the same type named again: asked whether to continue it or start anew
        assert ("新建" in r.reply) if lang == "zh" else ("new one" in r.reply)
        r = say(tenant, later, another)
    states = tasks_of(tenant, user)
    assert len(states) == 2, r.reply
    new = states[-1]
    assert new.pk != old.pk and new.session_id == later.pk and new.collected == {}
    old.refresh_from_db()
    assert old.state == "paused" and old.collected  # the earlier one is kept, not overwritten


@pytest.mark.django_db
def test_same_conversation_continues_and_another_user_is_untouched(tenant, user, session):
    state = started(tenant, session, "en")
    bob = end_user_get_or_create(tenant=tenant, external_id="bob")
    r = say(tenant, chat_session_start(tenant=tenant, end_user=bob), "team size is 5")
    assert "continue" not in r.reply.lower() and not tasks_of(tenant, bob)
    say(tenant, session, "team size is 5")
    state.refresh_from_db()
    assert "5" in state.collected["team size"]["value"]


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_forget_reaches_the_task_state_and_is_never_a_task_value(tenant, user, session, lang):
    zh = lang == "zh"
    fact = "我不喝咖啡因。" if zh else "I don't drink caffeine."
    turn = say(tenant, session, fact)
    memory_extract_for_message(tenant_id=tenant.pk, message_id=turn.user_message.pk)
    say(tenant, session, "我们来做一个项目计划" if zh else "Let's do a project plan")
    say(tenant, session, "项目名称是不喝咖啡因挑战" if zh else "The project is called No Caffeine Drinking Week")
    [state] = tasks_of(tenant, user)
    assert state.collected
    other = "用户在杭州开店。" if zh else "The user runs a shop in Leeds."
    summary = f"用户不喝咖啡因。{other}" if zh else f"The user does not drink caffeine. {other}"
    ChatSession.objects.for_tenant(tenant).filter(pk=session.pk).update(summary=summary)  # as compaction writes it
    session.summary = summary
    r = say(tenant, session, "请忘记我不喝咖啡因这件事" if zh else "Please forget that I don't drink caffeine")
    assert ("任务状态" in r.reply and "记忆笔记" in r.reply) if zh else ("task state" in r.reply and "notes" in r.reply)
    state.refresh_from_db()
    assert "咖啡因" not in str(state.collected) and "affeine" not in str(state.collected)
    assert "咖啡因" not in str(state.step_history) and "affeine" not in str(state.step_history)
    assert ("项目名称" if zh else "project name") in state.pending_fields
    assert not MemoryNote.objects.for_tenant(tenant).filter(end_user=user, status="active").exists()
    session_row = ChatSession.objects.for_tenant(tenant).get(pk=session.pk)
    assert "咖啡因" not in str(session_row.pinned_facts) and "affeine" not in str(session_row.pinned_facts)
    assert "咖啡因" not in session_row.summary and "affeine" not in session_row.summary
    assert session_row.summary == other  # the rest of the summary stays
    assert ("对话摘要" if zh else "summary") in r.reply


@pytest.mark.django_db
def test_forget_removes_scratch_entries_of_that_user_only(tenant, user, session):
    from tasks.models import SessionScratch
    from tasks.services.scratch import scratch_put

    bob = end_user_get_or_create(tenant=tenant, external_id="bob")
    bob_session = chat_session_start(tenant=tenant, end_user=bob)
    scratch_put(
        tenant=tenant,
        session=session,
        key="draft:1",
        value={"text": "Plan without caffeine drinks"},
        policy=memory_policy_for(tenant=tenant, assistant=session.assistant),
    )
    scratch_put(
        tenant=tenant,
        session=session,
        key="draft:2",
        value={"text": "Opening hours 7 to 3"},
        policy=memory_policy_for(tenant=tenant, assistant=session.assistant),
    )
    scratch_put(
        tenant=tenant,
        session=bob_session,
        key="draft:1",
        value={"text": "Plan without caffeine drinks"},
        policy=memory_policy_for(tenant=tenant, assistant=bob_session.assistant),
    )
    r = say(tenant, session, "Please forget that I don't drink caffeine")
    assert "session scratch" in r.reply
    assert list(SessionScratch.objects.for_tenant(tenant).filter(end_user=user).values_list("key", flat=True)) == [
        "draft:2"
    ]
    assert SessionScratch.objects.for_tenant(tenant).filter(end_user=bob).count() == 1
