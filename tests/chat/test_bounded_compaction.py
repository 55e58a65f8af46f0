"""Compaction of a long session in bounded passes (issue 18): each pass merges at most COMPACTION_PASS_MESSAGES
(and COMPACTION_PASS_TOKENS) of the oldest messages that left the window into the summary, the job queues the
next pass as its own job while more remain, and the merged summary keeps facts from the session's start."""

from __future__ import annotations

import itertools

import pytest

from assistants.services.compaction import session_compact
from assistants.services.tokens import token_count
from core.models import JobRecord
from tenancy.models import ChatSession, Message
from tests.chat.helpers import make_session
from tests.conftest import wait_for

EARLY_FACTS = [
    "对了，我们的店名最后定为老陈手擀面",
    "My budget for the fit-out is £12,000",
    "我女儿叫小雨，今年六岁",
    "I live in Leeds and I am a vegetarian",
]
FILLER = [
    "外卖平台的抽成一般怎么算？",
    "今天跑了一天市场，有点累",
    "你觉得装修风格选什么好？",
    "好的，我再想想",
    "How do delivery platforms charge?",
    "Okay, let me think about it",
    "What decor style would you pick?",
    "I hear business is slow everywhere lately",
    "Where can I source ingredients reliably?",
    "嗯嗯明白了",
]
LATE_FACTS = ["开业日期定在明年三月十五号", "We decided to open on 15 March"]


def long_session(messages: int, **policy) -> ChatSession:
    """A session of `messages` stored messages (as an import leaves them): the early facts first, then small talk
    and questions, the late facts just before the window."""
    session = make_session(**policy)
    filler = itertools.cycle(FILLER)
    middle = messages // 2 - len(EARLY_FACTS) - len(LATE_FACTS) - 10
    texts = EARLY_FACTS + [next(filler) for _ in range(middle)] + LATE_FACTS + [next(filler) for _ in range(10)]
    rows = []
    for text in texts:
        rows.append(
            Message(
                tenant=session.tenant, session=session, end_user=session.end_user, role=Message.Role.USER, content=text
            )
        )
        rows.append(
            Message(
                tenant=session.tenant,
                session=session,
                end_user=session.end_user,
                role=Message.Role.ASSISTANT,
                content="好的，记下了。" if "店" in text else "Noted.",
            )
        )
    Message.objects.for_tenant(session.tenant).bulk_create(rows)
    return session


def out_of_window(session: ChatSession, window_turns: int) -> list[int]:
    ids = list(
        Message.objects.for_tenant(session.tenant).filter(session=session).order_by("id").values_list("id", flat=True)
    )
    return ids[: len(ids) - 2 * window_turns]


@pytest.mark.django_db
def test_a_long_session_is_compacted_in_bounded_passes_that_keep_early_facts(settings):
    settings.COMPACTION_PASS_MESSAGES = 50
    session = long_session(600, window_turns=10, budget_summary_tokens=300)
    leaving = out_of_window(session, 10)
    passes, through = [], None
    while True:
        outcome = session_compact(tenant_id=session.tenant_id, session_id=session.pk)
        if not outcome["compacted"]:
            break
        session.refresh_from_db()
        assert 0 < outcome["compacted"] <= 50
        assert through is None or session.summary_through_id > through  # it moves forward, oldest first
        through = session.summary_through_id
        assert token_count(session.summary) <= 300
        passes.append(outcome)
        assert outcome["more_pending"] == (session.summary_through_id != leaving[-1])
    assert len(passes) == -(-len(leaving) // 50)  # ceil: every message that left the window, in passes of 50
    assert sum(p["compacted"] for p in passes) == len(leaving)
    assert session.summary_through_id == leaving[-1] and session.summary_version == len(passes)
    for fact in EARLY_FACTS + LATE_FACTS:  # the first pass's facts survived eleven merges; the last pass's joined
        assert fact.removeprefix("对了，") in session.summary, session.summary
    # Idempotent: nothing more left the window, so another pass changes nothing.
    assert session_compact(tenant_id=session.tenant_id, session_id=session.pk)["compacted"] == 0
    session.refresh_from_db()
    assert session.summary_version == len(passes)


@pytest.mark.django_db
def test_a_pass_is_also_bounded_by_tokens(settings):
    settings.COMPACTION_PASS_MESSAGES = 1000
    settings.COMPACTION_PASS_TOKENS = 200
    session = long_session(200, window_turns=2)
    outcome = session_compact(tenant_id=session.tenant_id, session_id=session.pk)
    session.refresh_from_db()
    taken = Message.objects.for_tenant(session.tenant).filter(session=session, id__lte=session.summary_through_id)
    assert outcome["more_pending"] and 1 < taken.count() < 196
    assert sum(token_count(m.content) for m in taken) <= 200


@pytest.mark.django_db(transaction=True)
def test_the_compaction_job_continues_in_new_jobs_until_the_session_is_caught_up(celery_worker):
    # The worker runs with the default pass of 200 messages: 1,000 messages that left the window take 5 passes.
    session = long_session(1020, window_turns=10)
    leaving = out_of_window(session, 10)
    from assistants.jobs import session_compact as session_compact_job
    from core.dispatch import enqueue_now

    enqueue_now(session_compact_job, session.tenant_id, session.pk)
    session = wait_for(
        lambda: (
            (s := ChatSession.objects.for_tenant(session.tenant).get(pk=session.pk)).summary_through_id == leaving[-1]
            and s
        ),
        timeout=120,
        message="the chain of compaction jobs to reach the window",
    )
    jobs = wait_for(
        lambda: (
            (rows := list(JobRecord.objects.filter(kind="session_compact", tenant=session.tenant)))
            and all(r.status == JobRecord.Status.SUCCEEDED for r in rows)
            and rows
        ),
        timeout=60,
        message="every compaction job to finish",
    )
    assert len(jobs) == 5 and session.summary_version == 5  # one pass per job, no pass twice
    assert [j.result["more_pending"] for j in sorted(jobs, key=lambda j: j.pk)] == [True] * 4 + [False]
    assert max(j.result["compacted"] for j in jobs) <= 200
    for fact in EARLY_FACTS + LATE_FACTS:
        assert fact.removeprefix("对了，") in session.summary, session.summary
