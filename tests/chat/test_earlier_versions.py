"""Earlier versions of messages (edit and resend, regenerate: assistants.services.alternatives) never reach a model
again (issue 39, item 2): not through recall of earlier messages in a new conversation, not in the rolling summary,
not in experiences; they are erased with the user; and installs with versions replaced before this can retire them.
A second user who said the same words keeps them: recalled for them, never for the first user."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from assistants.services.alternatives import chat_reply_regenerate_stream, chat_turn_edit_stream
from assistants.services.chat import chat_session_start, chat_turn
from assistants.services.compaction import session_compact
from assistants.services.privacy import user_erase, user_erase_request
from core.policy import memory_policy_for
from memory.models import Experience, ExperienceContribution, MessageVector
from memory.services.recall.recall import memory_recall
from memory.services.writing.extraction import memory_extract_for_message
from tasks.services.experience import experience_learn
from tenancy.models import Feedback, Message
from tests.factories import AssistantFactory, EndUserFactory, TenantFactory

OLD = "For my noodle shop the rent is 8000 yuan a month and I employ 2 cooks in the kitchen."
NEW = "For my noodle shop the rent is 9500 yuan a month and I employ 3 cooks in the kitchen."
QUESTION = "How much rent does my noodle shop pay, and how many cooks do I employ?"


@pytest.fixture
def shop(db):
    tenant = TenantFactory(recall_min_relevance=0.0)
    AssistantFactory(tenant=tenant)
    return tenant, EndUserFactory(tenant=tenant), EndUserFactory(tenant=tenant)


def _say(tenant, session, text):
    """One chat turn, and its memory job (notes, the message's vectors and keyword terms) as the worker runs it."""
    turn = chat_turn(tenant=tenant, session=session, text=text)
    memory_extract_for_message(tenant_id=tenant.pk, message_id=turn.user_message.pk)
    return turn


def _edit(tenant, session, message, text):
    """Edit and resend `message`; the new message's memory job runs as the worker would."""
    list(chat_turn_edit_stream(tenant=tenant, session=session, message=message, text=text))
    new = Message.objects.for_tenant(tenant).filter(session=session, role="user").order_by("-id").first()
    memory_extract_for_message(tenant_id=tenant.pk, message_id=new.pk)
    return new


def _recalled(tenant, end_user, session) -> str:
    items = memory_recall(
        tenant=tenant,
        end_user=end_user,
        query=QUESTION,
        exclude_session_id=session.pk,
        for_context=True,
        policy=memory_policy_for(tenant=tenant),
    )
    return "\n".join(item.content for item in items)  # notes and earlier messages


def _sent_to_model(turn) -> str:
    return "\n".join(m["content"] for m in turn.context.messages)


@pytest.mark.django_db
def test_edited_away_words_are_never_recalled_and_another_users_same_words_still_are(shop):
    tenant, alice, bob = shop
    session = chat_session_start(tenant=tenant, end_user=alice)
    _say(tenant, session, "Hello, I run a small noodle shop.")
    old = _say(tenant, session, OLD).user_message
    _edit(tenant, session, old, NEW)
    _say(tenant, chat_session_start(tenant=tenant, end_user=bob), OLD)  # Bob says the very same words

    later = chat_session_start(tenant=tenant, end_user=alice)
    recalled = _recalled(tenant, alice, later)
    assert "9500" in recalled and "8000" not in recalled and "2 cooks" not in recalled
    turn = chat_turn(tenant=tenant, session=later, text=QUESTION)
    shown = "\n".join(m.content for m in turn.context.memories)  # the web chat's "Earlier messages" among them
    assert "9500" in shown and "8000" not in shown and "8000" not in _sent_to_model(turn)
    assert not MessageVector.objects.for_tenant(tenant).filter(message=old).exists()

    bobs = _recalled(tenant, bob, chat_session_start(tenant=tenant, end_user=bob))
    assert "8000" in bobs and "9500" not in bobs  # Bob's own words, and never Alice's

    # erased with the user: every version of Alice's, Bob's untouched
    job = user_erase_request(tenant=tenant, end_user=alice, requested_by="dpo", enqueue=False)
    user_erase(tenant_id=tenant.pk, end_user_id=alice.pk, requested_by="dpo", job_id=job.pk)
    assert not Message.objects.unscoped().filter(tenant=tenant, end_user=alice).exists()
    assert not MessageVector.objects.unscoped().filter(tenant=tenant, end_user=alice).exists()
    assert "8000" in _recalled(tenant, bob, chat_session_start(tenant=tenant, end_user=bob))


@pytest.mark.django_db
def test_an_edited_away_message_is_never_summarised(shop):
    tenant, alice, _bob = shop
    tenant.window_turns, tenant.summary_trigger_messages = 1, 1
    tenant.save(update_fields=["window_turns", "summary_trigger_messages"])
    session = chat_session_start(tenant=tenant, end_user=alice)
    old = _say(tenant, session, OLD).user_message
    _edit(tenant, session, old, NEW)
    for text in ("We also sell dumplings.", "The shop opens at seven in the morning."):
        _say(tenant, session, text)
    while session_compact(tenant_id=tenant.pk, session_id=session.pk).get("more_pending"):
        pass
    session.refresh_from_db()
    assert "9500" in session.summary and "8000" not in session.summary
    turn = chat_turn(tenant=tenant, session=session, text="Remind me of my costs.")
    assert "8000" not in _sent_to_model(turn)


TASK = "帮我批量处理 1000 条客服对话，按退款、物流、投诉分类"
SOLUTION = "先随机抽 50 条人工定出类别，写清每类的判定规则，再用规则加模型批量打标签，最后抽检 5% 修正。"


@pytest.mark.django_db
def test_a_liked_reply_regenerated_away_teaches_experience_memory_nothing(shop):
    tenant, alice, _bob = shop
    session = chat_session_start(tenant=tenant, end_user=alice)
    for role, text in (("user", TASK), ("assistant", SOLUTION)):
        reply = Message.objects.for_tenant(tenant).create(
            tenant=tenant, session=session, end_user=alice, role=role, content=text
        )
    Feedback.objects.for_tenant(tenant).create(tenant=tenant, message=reply, end_user=alice, rating="up")
    assert experience_learn(tenant_id=tenant.pk, message_id=reply.pk)["saved"] is True

    list(chat_reply_regenerate_stream(tenant=tenant, session=session, reply=reply))
    assert not ExperienceContribution.objects.for_tenant(tenant).filter(source_message=reply).exists()
    assert not Experience.objects.for_tenant(tenant).exists()  # nobody else confirmed it
    assert experience_learn(tenant_id=tenant.pk, message_id=reply.pk)["saved"] is False


@pytest.mark.django_db
def test_versions_replaced_before_the_upgrade_are_retired_by_a_command(shop):
    tenant, alice, bob = shop
    session = chat_session_start(tenant=tenant, end_user=alice)
    old = _say(tenant, session, OLD).user_message
    bobs = _say(tenant, chat_session_start(tenant=tenant, end_user=bob), OLD).user_message
    # replaced as an older release did: only the mark, the vectors and keyword terms left behind
    Message.objects.for_tenant(tenant).filter(pk=old.pk).update(metadata={"replaced_by": old.pk + 1000})
    assert MessageVector.objects.for_tenant(tenant).filter(message=old).exists()

    call_command("retire_earlier_versions")
    call_command("retire_earlier_versions")  # again: nothing left to do
    old.refresh_from_db()
    assert old.content == OLD and old.search_vector == ""  # still there for Alice to read
    assert not MessageVector.objects.for_tenant(tenant).filter(message=old).exists()
    assert MessageVector.objects.for_tenant(tenant).filter(message=bobs).exists()
