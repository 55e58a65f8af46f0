"""Context assembly: the order of the sections, budgets, no gap and no overlap between summary and window,
huge messages."""

import pytest

from assistants.llm import sections
from assistants.services import hooks
from assistants.services.compaction import session_compact
from assistants.services.tokens import token_count, token_count_messages
from core.exceptions import InvalidInput
from tenancy.models import ChatSession
from tests.chat.helpers import all_messages, make_session, say, section, verbatim


@pytest.fixture
def test_hooks(settings):
    settings.ASSISTANT_PRE_TURN_HOOKS = hooks.pre_turn_hooks() + [
        "tests.chat.hooks_for_tests.broken_hook",
        "tests.chat.hooks_for_tests.task_hook",
    ]


@pytest.mark.django_db
def test_sections_come_in_the_documented_order_and_hints_are_said_verbatim(test_hooks):
    session = make_session(window_turns=1, summary_trigger_messages=1)
    say(session, "预算 30 万，想开咖啡店")
    say(session, "店在徐汇区")
    session_compact(tenant_id=session.tenant_id, session_id=session.pk)
    session.refresh_from_db()
    result = say(session, "帮我做个开店计划")  # the broken hook is skipped, the task hook answers
    messages = result.context.messages
    headers = [m["content"].split("\n", 1)[0] for m in messages]
    assert messages[0]["content"] == session.assistant.system_prompt
    assert headers[1:5] == [sections.PINNED, sections.TASK, sections.HINTS, sections.SUMMARY]
    assert [m["role"] for m in messages[5:]] == ["user", "assistant", "user"]  # the window, then the new message
    assert messages[-1]["content"] == "帮我做个开店计划"
    assert result.context.task == {"type": "shop_plan", "status": "collecting", "missing": ["budget"]}
    assert result.context.hints == ["还差预算，请告诉我预算。"]
    assert "还差预算，请告诉我预算。" in result.reply and result.reply.startswith("（离线模型）")
    assert "当前任务" in result.reply  # the offline reply visibly uses the task state


@pytest.mark.django_db
def test_no_gap_and_no_overlap_between_summary_and_window():
    session = make_session(window_turns=2, summary_trigger_messages=3)
    for i in range(9):
        say(session, f"第 {i} 件事：我们决定第 {i} 周采购 {i + 1} 台设备")
    stored = all_messages(session)
    session_compact(tenant_id=session.tenant_id, session_id=session.pk)
    session.refresh_from_db()
    through = session.summary_through_id
    assert through is not None
    # Running compaction again with nothing new changes nothing (idempotent).
    assert session_compact(tenant_id=session.tenant_id, session_id=session.pk)["compacted"] == 0
    assert ChatSession.objects.for_tenant(session.tenant).get(pk=session.pk).summary == session.summary
    summarised = [m for m in stored if m.id <= through]
    result = say(session, "接着说")
    window_ids = result.context.window_message_ids
    # The window is exactly every stored message after summary_through: nothing missing, nothing twice.
    assert window_ids == [m.id for m in stored if m.id > through]
    assert len(summarised) + len(window_ids) == len(stored)
    for m in summarised:
        if m.role == "user":
            assert m.content.split("：")[1] in session.summary  # each summarised fact is in the summary
            assert m.content not in verbatim(result.context.messages)


@pytest.mark.django_db
def test_unsummarised_messages_that_do_not_fit_are_digested_not_lost():
    # Compaction never ran (say the model is down), and the window budget is small.
    session = make_session(window_turns=2, budget_window_tokens=250, summary_trigger_messages=1000)
    say(session, "我们的店名定为老陈手擀面")
    for i in range(12):
        say(session, f"再聊聊第 {i} 个话题，装修风格、菜单和排班都想听听你的看法，越详细越好。")
    result = say(session, "店名是什么来着？")
    assert "我们的店名定为老陈手擀面" not in verbatim(result.context.messages)
    digest = section(result.context.messages, sections.SUMMARY)
    assert sections.UNCOMPACTED in digest and "店名定为老陈手擀面" in digest


@pytest.mark.django_db
def test_the_context_never_exceeds_its_budgets(scripted_llm):
    limits = dict(
        context_limit_tokens=1200,
        reply_reserve_tokens=300,
        budget_pinned_tokens=80,
        budget_memories_tokens=100,
        budget_task_tokens=80,
        budget_summary_tokens=150,
        budget_window_tokens=500,
        window_turns=3,
        summary_trigger_messages=2,
    )
    session = make_session(chat_model="scripted-model", **limits)
    texts = [
        "My budget is $50,000 and the shop will be 40 sqm in Leeds.",
        "预算改成 60 万，店开在成都的高新区，面积 80 平米，团队 5 个人。" * 3,
        "Tell me everything about opening a bakery " * 30,
        "好的",
        "Keep rent under 15% of revenue and always answer in English.",
    ]
    for i in range(24):
        scripted_llm.push("chat", "Noted. " * (i * 7 % 90 + 1))
        result = say(session, texts[i % len(texts)])
        assert result.context.token_count <= 1200 - 300
        sent = scripted_llm.chat_requests()[-1]["messages"]
        assert token_count_messages(sent) <= 1200 - 300  # recounted from what the server received
        assert section(sent, sections.PINNED) == "" or token_count(section(sent, sections.PINNED)) <= 80
        assert token_count(section(sent, sections.SUMMARY)) <= 150
        assert sum(token_count(m["content"]) + 4 for m in sent if m["role"] != "system") <= 500
        if i % 4 == 3:  # a model summary far over its budget: compaction must cap it
            scripted_llm.push("chat", {"summary_lines": [f"用户决定第 {n} 项预算 {n} 万" for n in range(60)]})
            session_compact(tenant_id=session.tenant_id, session_id=session.pk)
            session.refresh_from_db()


@pytest.mark.django_db
def test_a_200kb_message_is_stored_intact_and_truncated_for_the_model_with_a_note(scripted_llm):
    session = make_session(chat_model="scripted-model")
    huge = ("这是一份很长的商业计划书，包含选址、预算、菜单和人员安排。" * 2400)[:68000] + "结尾：请重点看预算。"
    assert len(huge.encode()) > 200_000 and len(huge) < 100_000
    result = say(session, huge)
    assert result.user_message.content == huge  # stored intact
    sent = scripted_llm.chat_requests()[-1]["messages"][-1]["content"]
    assert "这条消息太长" in sent and "68,010 个字符" in sent
    assert sent.startswith("这是一份很长的商业计划书") and "结尾：请重点看预算。" in sent  # head and tail kept
    assert result.context.truncated and result.context.token_count <= 8000 - 1000
    assert result.error is None and result.reply == "OK."


@pytest.mark.django_db
def test_a_message_over_the_limit_is_rejected_with_the_limit_in_one_sentence(settings):
    session = make_session()
    huge = "x" * 200_000
    with pytest.raises(InvalidInput) as info:
        say(session, huge)
    assert "200,000 characters" in info.value.message and "100,000" in info.value.message
    assert all_messages(session) == []  # nothing half-stored
    assert say(session, "a normal message").reply  # the session still works


@pytest.mark.django_db
def test_a_hook_whose_sql_fails_does_not_cost_the_user_a_reply(settings):
    settings.ASSISTANT_PRE_TURN_HOOKS = ["tests.chat.hooks_for_tests.sql_failing_hook"] + hooks.pre_turn_hooks()
    session = make_session()
    result = say(session, "我的预算是 12 万")
    assert result.reply.startswith("（离线模型）") and "12 万" in result.reply
    assert [m.role for m in all_messages(session)] == ["user", "assistant"]


@pytest.mark.django_db
def test_hooks_share_one_savepoint_yet_a_failing_one_neither_undoes_nor_doubles_the_others(settings):
    """The hooks run in one savepoint (issue 22); when one fails, the others' writes are kept exactly once."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def savepoints(queries):
        return sum(q["sql"].startswith("SAVEPOINT") for q in queries.captured_queries)

    session, other = make_session(), make_session()
    settings.ASSISTANT_PRE_TURN_HOOKS = []
    with CaptureQueriesContext(connection) as no_hooks:  # the test's own transaction makes the turn's a savepoint
        say(other, "no hooks at all")
    settings.ASSISTANT_PRE_TURN_HOOKS = [
        "tests.chat.hooks_for_tests.title_marking_hook",
        "tests.chat.hooks_for_tests.task_hook",
    ]
    with CaptureQueriesContext(connection) as two_hooks:
        say(session, "first, the budget is 3 万")
    assert savepoints(two_hooks) == savepoints(no_hooks)  # the hooks add no savepoint each
    settings.ASSISTANT_PRE_TURN_HOOKS = [
        "tests.chat.hooks_for_tests.title_marking_hook",
        "tests.chat.hooks_for_tests.sql_failing_hook",
        "tests.chat.hooks_for_tests.task_hook",
    ]
    result = say(session, "帮我做个开店计划")
    session.refresh_from_db()
    assert session.title.count("+") == 2  # one per turn: not lost with the failed hook, not written twice
    assert result.context.hints == ["还差预算，请告诉我预算。"]  # the hook after the failing one still answered
    assert [m.role for m in all_messages(session)] == ["user", "assistant"] * 2
