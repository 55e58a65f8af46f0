"""Acceptance: 100 turns, a fact stated in turn 5 and never repeated is still in context at turn 100, after
many compactions. The Chinese run goes through the real Celery worker (jobs enqueued by the chat turn itself);
the English one calls the compaction service directly."""

import itertools

import pytest

from assistants.llm import sections
from assistants.services.compaction import session_compact
from core.models import JobRecord
from tenancy.models import ChatSession
from tests.chat.helpers import make_session, say, section, verbatim
from tests.conftest import wait_for

FILLER_ZH = [
    "外卖平台的抽成一般怎么算？",
    "今天跑了一天市场，有点累",
    "你觉得装修风格选什么好？",
    "菜单要不要加凉菜？",
    "员工排班有什么讲究吗？",
    "开业活动怎么做比较好？",
    "听说最近生意都不好做",
    "怎么跟房东谈租金？",
    "好的，我再想想",
    "收银系统用哪个好？",
    "食材从哪里进货比较靠谱？",
    "嗯嗯明白了",
]
FILLER_EN = [
    "How do delivery platforms charge?",
    "I walked the whole market today, pretty tired",
    "What decor style would you pick?",
    "Should the menu have cold dishes?",
    "Any tips for staff scheduling?",
    "How should we run the opening promotion?",
    "I hear business is slow everywhere lately",
    "How do I negotiate rent with the landlord?",
    "Okay, let me think about it",
    "Which point-of-sale system is good?",
    "Where can I source ingredients reliably?",
    "Got it, thanks",
]


def conversation(fact, filler, turns=99):
    lines = itertools.cycle(filler)
    return [fact if i == 5 else f"{next(lines)}" for i in range(1, turns + 1)]


@pytest.mark.django_db(transaction=True)
def test_a_fact_from_turn_5_survives_100_turns_through_the_worker_chinese(celery_worker):
    fact = "对了，我们的店名最后定为老陈手擀面"
    session = make_session()  # defaults: 10 turns window, compaction every 6 overflowing messages
    for text in conversation(fact, FILLER_ZH):
        say(session, text)

    def caught_up():
        s = ChatSession.objects.for_tenant(session.tenant).get(pk=session.pk)
        pending = s.messages.filter(id__gt=s.summary_through_id or 0).count()
        return s if pending < 2 * 10 + 6 else None

    session = wait_for(caught_up, timeout=120, message="the worker's compactions to catch up")
    assert session.summary_version >= 10, "many compactions ran"
    result = say(session, "我们的店名叫什么来着？")
    messages = result.context.messages
    assert all(fact not in text for text in verbatim(messages))  # turn 5 left the window long ago
    assert "店名最后定为老陈手擀面" in section(messages, sections.SUMMARY)
    assert "老陈手擀面" in result.reply
    assert result.context.token_count <= 8000 - 1000
    # Leave the shared worker idle for the tests after this one: every job this session queued has finished.
    wait_for(
        lambda: (
            JobRecord.objects.filter(
                kind="memory_extract", tenant_id=session.tenant_id, status=JobRecord.Status.SUCCEEDED
            ).count()
            >= 100
        ),
        timeout=120,
        message="the session's extraction jobs to drain",
    )


@pytest.mark.django_db
def test_a_fact_from_turn_5_survives_100_turns_english():
    fact = "By the way, we decided the shop will be called Blue Door Noodles"
    session = make_session(window_turns=4, summary_trigger_messages=4, budget_summary_tokens=200)
    compactions = 0
    for text in conversation(fact, FILLER_EN):
        say(session, text)
        outcome = session_compact(tenant_id=session.tenant_id, session_id=session.pk)
        compactions += bool(outcome["compacted"])
        session.refresh_from_db()
    assert compactions >= 50 and session.summary_version == compactions
    result = say(session, "What was the shop's name again?")
    messages = result.context.messages
    assert all(fact not in text for text in verbatim(messages))
    assert "the shop will be called Blue Door Noodles" in section(messages, sections.SUMMARY)
    assert "Blue Door Noodles" in result.reply
    assert result.context.token_count <= 8000 - 1000
