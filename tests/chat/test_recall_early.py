"""The chat turn starts its recall before it stores the message, on a pooled connection of its own
(assistants.services.recall_early): the context gets what recalling inline gives, never another user's notes, and
the turn falls back to recalling inline where the early start is not safe."""

import pytest

from assistants.services import recall_early
from assistants.services.chat import chat_session_start, chat_turn
from core.db import connection_pooled
from core.policy import memory_policy_for
from memory.services.recall.recall import memory_recall
from memory.services.writing.remember import memory_fact_remember
from tests.factories import AssistantFactory, EndUserFactory, TenantFactory

FACTS = {
    "ada": ["I am allergic to peanuts.", "我在成都养了一只柯基犬。", "I play the cello on Sundays."],
    "bo": ["I am allergic to shellfish.", "我在杭州养了一只橘猫。", "I play the violin in an orchestra."],
}


@pytest.fixture
def pooled_connection():
    """The test connection with a psycopg pool, as the web server has it (config/asgi.py)."""
    with connection_pooled(max_size=4):
        yield


def _people():
    tenant = TenantFactory()
    AssistantFactory(tenant=tenant)
    people = {}
    for name, facts in FACTS.items():
        end_user = EndUserFactory(tenant=tenant)
        for fact in facts:
            memory_fact_remember(tenant=tenant, end_user=end_user, text=fact)
        people[name] = end_user
    return tenant, people


def _spy(monkeypatch) -> list:
    started = []
    original = recall_early.recall_early_start

    def spy(**kwargs):
        future = original(**kwargs)
        started.append(future)
        return future

    monkeypatch.setattr("assistants.services.chat.recall_early_start", spy)
    return started


@pytest.mark.django_db(transaction=True)
def test_the_early_recall_gives_the_context_what_recalling_inline_gives_and_only_the_users_own(
    pooled_connection, monkeypatch
):
    tenant, people = _people()
    started = _spy(monkeypatch)
    for question in ["What am I allergic to?", "我养的狗叫什么？", "which instrument do I play"]:
        session = chat_session_start(tenant=tenant, end_user=people["ada"])
        result = chat_turn(tenant=tenant, session=session, text=question)
        assert started[-1] is not None, "the turn did not start its recall early"
        shown = [(m.type, m.id) for m in result.context.memories]
        inline = memory_recall(
            tenant=tenant,
            end_user=people["ada"],
            query=question,
            exclude_session_id=session.pk,
            touch=False,
            for_context=True,
            policy=memory_policy_for(tenant=tenant),
        )
        assert shown and shown == [(m.type, m.id) for m in inline][: len(shown)], question
        contents = " ".join(m.content for m in result.context.memories)
        assert not any(fact.rstrip(".。") in contents for fact in FACTS["bo"]), question


@pytest.mark.django_db(transaction=True)
def test_without_a_pool_or_inside_a_transaction_the_turn_recalls_inline(pooled_connection, monkeypatch):
    tenant, people = _people()
    started = _spy(monkeypatch)
    session = chat_session_start(tenant=tenant, end_user=people["bo"])
    from django.db import transaction

    with transaction.atomic():  # another connection would not see what this transaction wrote
        result = chat_turn(tenant=tenant, session=session, text="What am I allergic to?")
    assert started == [None]
    assert any("shellfish" in m.content for m in result.context.memories)
    temporary = chat_session_start(tenant=tenant, end_user=people["bo"], temporary=True)
    result = chat_turn(tenant=tenant, session=temporary, text="What am I allergic to?")
    assert started[-1] is None and result.context.memories == []  # a temporary chat recalls nothing


def test_a_recall_still_queued_is_cancelled_and_the_caller_recalls_itself():
    from concurrent.futures import Future

    queued: Future = Future()
    assert recall_early.recall_early_result(queued, budget=500) is None
    assert queued.cancelled()


@pytest.mark.django_db(transaction=True)
def test_an_embedder_that_fails_loses_no_turn_the_context_goes_on_without_memories(pooled_connection, monkeypatch):
    tenant, people = _people()
    started = _spy(monkeypatch)

    def down(**_kwargs):
        raise RuntimeError("embedding endpoint unreachable")

    monkeypatch.setattr("memory.services.vectors.embeddings.embed_texts", down)
    monkeypatch.setattr("memory.services.recall.recall.embed_texts", down)
    session = chat_session_start(tenant=tenant, end_user=people["ada"])
    result = chat_turn(tenant=tenant, session=session, text="What am I allergic to?")
    assert started == [None]  # nothing started early: the context recalled inline, and that failed too
    assert result.reply and result.user_message.pk and result.context.memories == []
