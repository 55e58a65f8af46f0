"""Experience memory learns only from the user's own problem and the assistant's own solution (issue 39, item 10):
a liked reply that quoted another experience offered as a hint neither copies that experience nor confirms it;
what the assistant added of its own is what is learnt."""

import pytest

from assistants.services.chat import chat_session_start
from assistants.services.feedback import feedback_record
from assistants.services.tenants import end_user_get_or_create
from memory.models import Experience
from memory.services.notes.moderation import experience_approve
from tasks.services.experience import experience_learn
from tenancy.models import Message
from tests.tasks.conftest import say

TASK = "帮我批量处理 1000 条客服对话，按退款、物流、投诉分类"
SOLUTION = "先随机抽 50 条人工定出类别，写清每类的判定规则，再用规则加模型批量打标签，最后抽检 5% 修正。"
AGAIN = "帮我把 3000 条用户评论按主题分类"


def _learnt_experience(tenant, user, session) -> Experience:
    Message.objects.for_tenant(tenant).create(
        tenant=tenant, session=session, end_user=user, role=Message.Role.USER, content=TASK
    )
    reply = Message.objects.for_tenant(tenant).create(
        tenant=tenant, session=session, end_user=user, role=Message.Role.ASSISTANT, content=SOLUTION
    )
    feedback_record(tenant=tenant, end_user=user, message_id=reply.pk, rating="up")
    assert experience_learn(tenant_id=tenant.pk, message_id=reply.pk)["saved"] is True
    return Experience.objects.for_tenant(tenant).get()


def _contributors(experience) -> set[int]:
    return set(experience.contributions.values_list("end_user_id", flat=True))


@pytest.mark.django_db
def test_a_reply_that_only_repeats_a_hint_is_not_learnt(tenant, user, session):
    experience = _learnt_experience(tenant, user, session)
    experience_approve(tenant=tenant, experience=experience, actor="staff")  # offered to every user now
    bob = end_user_get_or_create(tenant=tenant, external_id="bob")
    for person in (user, bob):  # the user it came from, and another user
        turn = say(tenant, chat_session_start(tenant=tenant, end_user=person), AGAIN)
        assert "参考以往类似任务" in turn.reply and "判定规则" in turn.reply  # the offline model repeats the hint
        feedback_record(tenant=tenant, end_user=person, message_id=turn.reply_message.pk, rating="up")
        result = experience_learn(tenant_id=tenant.pk, message_id=turn.reply_message.pk)
        assert result["saved"] is False, result
    assert list(Experience.objects.for_tenant(tenant)) == [experience]  # no copy
    assert _contributors(experience) == {user.pk}  # and no confirmation nobody gave independently


@pytest.mark.django_db
def test_only_the_assistants_own_steps_are_learnt_from_a_reply_that_quotes_a_hint(tenant, user, session, scripted_llm):
    experience = _learnt_experience(tenant, user, session)
    experience_approve(tenant=tenant, experience=experience, actor="staff")
    bob = end_user_get_or_create(tenant=tenant, external_id="bob")
    tenant.chat_model = "scripted-chat"
    tenant.save(update_fields=["chat_model"])
    hint = "参考以往类似任务（大批量文本分类任务）的经验：先随机抽若干条人工定出类别，写清每类的判定规则。"
    scripted_llm.push("chat", hint + "\n另外，先把评论去重，再按情绪正负拆成两批分别处理。")
    turn = say(tenant, chat_session_start(tenant=tenant, end_user=bob), AGAIN)
    assert turn.reply_message.metadata["context"]["experiences"] == [experience.pk]
    feedback_record(tenant=tenant, end_user=bob, message_id=turn.reply_message.pk, rating="up")
    tenant.chat_model = ""  # the rules generalise what is learnt
    tenant.save(update_fields=["chat_model"])

    result = experience_learn(tenant_id=tenant.pk, message_id=turn.reply_message.pk)
    assert result["saved"] is True and result["created"] is True, result
    learnt = Experience.objects.for_tenant(tenant).get(pk=result["experience_id"])
    assert "去重" in learnt.solution
    for quoted in ("参考以往", "判定规则", "人工定出类别"):
        assert quoted not in learnt.solution
    assert _contributors(experience) == {user.pk}
