"""Experience memory cannot carry one user's words to another (issue 15): the leaks found by a hostile user,
a property test (a random marker said by one user never reaches another user's context, hints, reply, notes or
export), the sharing threshold, the tenant switch, and erasure of contributions with its receipt."""

import json
import string
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistants.services.chat import chat_session_start, chat_turn
from assistants.services.feedback import feedback_record
from assistants.services.privacy import user_erase, user_export
from assistants.services.tenants import end_user_get_or_create, tenant_create
from core.policy import memory_policy_for
from memory.models import Experience, ExperienceContribution, MemoryNote
from tasks.services.experience import experience_learn, experience_recall
from tenancy.models import Message

SOLUTION_ZH = "先随机抽样人工定出类别，写清每类的判定规则，再用规则加模型批量打标签，最后抽检修正。"
SOLUTION_EN = "Sample a few tickets, agree on the topics, label the rest with rules plus a model, then spot-check."


def _exchange(tenant, session, question, answer, **metadata):
    Message.objects.for_tenant(tenant).create(
        tenant=tenant, session=session, end_user=session.end_user, role=Message.Role.USER, content=question
    )
    return Message.objects.for_tenant(tenant).create(
        tenant=tenant,
        session=session,
        end_user=session.end_user,
        role=Message.Role.ASSISTANT,
        content=answer,
        metadata=metadata,
    )


def _like(tenant, user, reply):
    feedback_record(tenant=tenant, end_user=user, message_id=reply.pk, rating="up")
    return experience_learn(tenant_id=tenant.pk, message_id=reply.pk)


def _tenant(**policy):
    tenant, _ = tenant_create(slug=f"xp-{uuid.uuid4().hex[:10]}")
    for name, value in policy.items():
        setattr(tenant, name, value)
    tenant.save()
    return tenant


def _user(tenant, name):
    user = end_user_get_or_create(tenant=tenant, external_id=name)
    return user, chat_session_start(tenant=tenant, end_user=user)


def _recall(*, tenant, assistant, **kwargs) -> list[dict]:
    """experience_recall under the policy a turn of `assistant` resolves."""
    policy = memory_policy_for(tenant=tenant, assistant=assistant)
    return experience_recall(tenant=tenant, assistant=assistant, policy=policy, **kwargs)


def _everything_of(tenant, user, results) -> str:
    """What `user` can ever see or have stored: contexts, hints, replies, stored messages with their metadata,
    notes and their export."""
    parts = [json.dumps(r.context.as_dict(), ensure_ascii=False, default=str) for r in results]
    parts += [h for r in results for h in r.context.hints] + [r.reply for r in results]
    parts += [
        json.dumps([m.content, m.metadata], ensure_ascii=False, default=str)
        for m in Message.objects.for_tenant(tenant).filter(end_user=user)
    ]
    parts += [n.content + n.quote for n in MemoryNote.objects.for_tenant(tenant).filter(end_user=user)]
    parts.append(json.dumps(user_export(tenant=tenant, end_user=user), ensure_ascii=False, default=str))
    return "\n".join(parts)


# --- the leaks of the issue ---------------------------------------------------------------------------------------

LEAKS = [  # (question, the reply the user liked, what must never reach anyone else)
    (
        "Please classify 400 support tickets and text the results to 07700 900123 when done",
        SOLUTION_EN + " I'll text the results to 07700 900123 when done.",
        ["07700 900123", "text the results"],
    ),
    (
        "帮我把 500 条客服对话分类，结果发到我的vx lina2024wx，车牌京A12345的那位客户优先",
        SOLUTION_ZH + "结果发到你的vx lina2024wx，车牌京A12345的那位客户优先处理。",
        ["lina2024wx", "京A12345", "那位客户", "车牌"],
    ),
    (
        "我叫周晓岚，帮我把 300 条用户评论分类，按“物流慢”“包装破”分",
        SOLUTION_ZH + "按“物流慢”“包装破”两类先分，周晓岚你确认一下。",
        ["周晓岚", "物流慢", "包装破"],
    ),
    (
        "I'm Priya. Classify 2,000 reviews from our Leeds shop by topic",
        "Priya, sample 100 reviews from the Leeds shop, agree on 6 topics, label the rest with rules plus a model, "
        "then spot-check 5%.",
        ["Priya", "Leeds", "2,000", "100 reviews"],
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize("question, answer, private", LEAKS)
def test_a_liked_reply_keeps_only_generic_steps(question, answer, private):
    tenant = _tenant()
    user, session = _user(tenant, "alice")
    result = _like(tenant, user, _exchange(tenant, session, question, answer))
    experience = Experience.objects.for_tenant(tenant).filter(pk=result.get("experience_id")).first()
    assert experience is not None, result  # the method itself is worth keeping
    for word in private:
        assert word not in experience.task_summary and word not in experience.solution, experience.solution
    assert "规则" in experience.solution or "rules" in experience.solution


@pytest.mark.django_db
def test_a_reply_about_what_is_remembered_is_never_an_experience():
    tenant = _tenant()
    user, session = _user(tenant, "alice")
    chat_turn(tenant=tenant, session=session, text="I'm vegetarian")
    from memory.services.writing.extraction import memory_extract_for_message

    memory_extract_for_message(
        tenant_id=tenant.pk, message_id=Message.objects.for_tenant(tenant).filter(role="user").latest("id").pk
    )
    forgot = chat_turn(tenant=tenant, session=session, text="Please forget that I'm vegetarian")
    assert forgot.reply_message.metadata["context"]["hint_sections"] == ["memory"]
    assert _like(tenant, user, forgot.reply_message)["saved"] is False
    assert not Experience.objects.for_tenant(tenant).exists()


@pytest.mark.django_db
def test_a_reply_quoting_the_users_notes_loses_those_steps():
    tenant = _tenant()
    user, session = _user(tenant, "alice")
    MemoryNote.objects.for_tenant(tenant).create(
        tenant=tenant,
        end_user=user,
        kind="preference",
        key="diet",
        content="用户是素食者，对花生过敏。",
        quote="我吃素，对花生过敏",
    )
    reply = _exchange(
        tenant, session, "帮我把 800 条用户评论分类", SOLUTION_ZH + "另外考虑到你是素食者，对花生过敏，推荐素食餐厅。"
    )
    _like(tenant, user, reply)
    experience = Experience.objects.for_tenant(tenant).get()
    assert "素食" not in experience.solution and "花生" not in experience.solution


# --- sharing: the threshold, staff approval, the tenant switch -----------------------------------------------------


@pytest.mark.django_db
def test_an_experience_is_shared_only_after_enough_distinct_users_confirm_it():
    tenant = _tenant(experience_min_users=2)
    assistant = tenant_assistant(tenant)
    alice, alice_session = _user(tenant, "alice")
    bob, _ = _user(tenant, "bob")
    first = _like(tenant, alice, _exchange(tenant, alice_session, "帮我把 600 条客服对话分类", SOLUTION_ZH))
    query = "我有 2000 条用户评论要分类"
    assert [e["id"] for e in _recall(tenant=tenant, assistant=assistant, end_user=alice, text=query)] == [
        first["experience_id"]
    ]
    assert _recall(tenant=tenant, assistant=assistant, end_user=bob, text=query) == []
    # the same user liking it again is not a second confirmation
    again = _like(tenant, alice, _exchange(tenant, alice_session, "再帮我把 900 条客服对话分类", SOLUTION_ZH))
    assert again["confirmed_by_users"] == 1 and again["shared"] is False
    carol, carol_session = _user(tenant, "carol")
    confirmed = _like(tenant, carol, _exchange(tenant, carol_session, "帮我把 3000 条工单分类", SOLUTION_ZH))
    assert confirmed["experience_id"] == first["experience_id"] and confirmed["shared"] is True
    assert [e["id"] for e in _recall(tenant=tenant, assistant=assistant, end_user=bob, text=query)] == [
        first["experience_id"]
    ]


@pytest.mark.django_db
def test_sharing_turned_off_keeps_experiences_to_the_users_they_came_from():
    tenant = _tenant(experience_min_users=1, experience_sharing=False)
    assistant = tenant_assistant(tenant)
    alice, alice_session = _user(tenant, "alice")
    bob, _ = _user(tenant, "bob")
    learned = _like(tenant, alice, _exchange(tenant, alice_session, "帮我把 600 条客服对话分类", SOLUTION_ZH))
    assert learned["shared"] is False
    experience = Experience.objects.for_tenant(tenant).get()
    from memory.services.notes.moderation import experience_approve

    experience_approve(tenant=tenant, experience=experience, actor="admin:staff")
    query = "我有 2000 条用户评论要分类"
    assert _recall(tenant=tenant, assistant=assistant, end_user=bob, text=query) == []
    assert _recall(tenant=tenant, assistant=assistant, end_user=alice, text=query)


def tenant_assistant(tenant):
    from tenancy.models import Assistant

    return Assistant.objects.for_tenant(tenant).get()


# --- erasure ------------------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_erasure_removes_experiences_only_from_the_user_and_their_confirmations_of_others():
    tenant = _tenant(experience_min_users=2)
    assistant = tenant_assistant(tenant)
    alice, alice_session = _user(tenant, "alice")
    carol, carol_session = _user(tenant, "carol")
    dave, _ = _user(tenant, "dave")
    shared = _like(tenant, alice, _exchange(tenant, alice_session, "帮我把 600 条客服对话分类", SOLUTION_ZH))
    _like(tenant, carol, _exchange(tenant, carol_session, "帮我把 3000 条工单分类", SOLUTION_ZH))
    own = _like(
        tenant,
        alice,
        _exchange(
            tenant,
            alice_session,
            "Summarise 500 customer reviews",
            "Read a sample first, list the recurring points, then write the summary.",
        ),
    )
    assert own["experience_id"] != shared["experience_id"]
    query = "我有 2000 条用户评论要分类"
    assert _recall(tenant=tenant, assistant=assistant, end_user=dave, text=query)

    receipt = user_erase(tenant_id=tenant.pk, end_user_id=alice.pk, requested_by="test")
    assert receipt["memory.Experience"] == 1  # the one only Alice liked
    assert receipt["memory.ExperienceContribution"] >= 2  # hers on it, and hers on the shared one
    remaining = Experience.objects.for_tenant(tenant).get()
    assert remaining.pk == shared["experience_id"] and remaining.contributed_by_id is None
    assert list(ExperienceContribution.objects.for_tenant(tenant).values_list("end_user", flat=True)) == [carol.pk]
    # one confirmation left: below the threshold again, so Dave is no longer offered it; Carol still is
    assert _recall(tenant=tenant, assistant=assistant, end_user=dave, text=query) == []
    assert _recall(tenant=tenant, assistant=assistant, end_user=carol, text=query)


# --- property: a marker said by one user never reaches another ---------------------------------------------------

LATIN_MARKER = st.text(alphabet=string.ascii_lowercase, min_size=3, max_size=6).map(lambda s: f"Zq{s}{len(s)}x")
CHINESE_MARKER = st.text(alphabet="岚珂琰昕翎琪璇皓瑾", min_size=3, max_size=3)
PLACEMENTS_ZH = ["结果发给{m}。", "有问题找{m}。", "按「{m}」的要求处理。", "{m}这位客户优先，", "记得抄送 {m}。"]
PLACEMENTS_EN = [
    "Send the results to {m} when done.",
    "As {m} asked, keep the refunds first.",
    "Then ping {m}.",
    "{m} wants it by Friday.",
]


@pytest.mark.django_db
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data(), zh=st.booleans())
def test_a_random_marker_of_one_user_never_reaches_another(data, zh):
    # a Chinese marker in Chinese sentences, a Latin one in English, and a Latin one in Chinese too
    markers = data.draw(
        st.lists(st.one_of(CHINESE_MARKER, LATIN_MARKER) if zh else LATIN_MARKER, min_size=3, max_size=3, unique=True)
    )
    placements = data.draw(st.lists(st.sampled_from(PLACEMENTS_ZH if zh else PLACEMENTS_EN), min_size=3, max_size=3))
    tenant = _tenant(experience_min_users=3)
    for i, (m, placement) in enumerate(zip(markers, placements, strict=True)):
        user, session = _user(tenant, f"giver-{i}")
        question = f"帮我把 {500 + i} 条客服对话分类，{m}" if zh else f"Please classify {500 + i} support tickets, {m}"
        answer = (SOLUTION_ZH if zh else SOLUTION_EN + " ") + placement.format(m=m)
        chat_turn(tenant=tenant, session=session, text=f"我是{m}的同事" if zh else f"I work with {m}")
        _like(tenant, user, _exchange(tenant, session, question, answer))
    receiver, session = _user(tenant, "receiver")
    results = [
        chat_turn(
            tenant=tenant,
            session=session,
            text="我有 2000 条用户评论要分类" if zh else "I need to classify 3000 customer reviews",
        )
    ]
    seen = _everything_of(tenant, receiver, results)
    for m in markers:
        assert m not in seen
    # not vacuous: when the three users' liked replies generalised to the same procedure, the receiver was
    # offered it (its steps, without anyone's marker); otherwise nothing was shared with them at all
    from django.db.models import Count

    shared = list(
        Experience.objects.for_tenant(tenant)
        .annotate(n=Count("contributions"))
        .filter(n__gte=3)
        .values_list("pk", flat=True)
    )
    assert results[0].context.experience_ids == shared[:1]


@pytest.mark.django_db
def test_experiences_learned_before_get_their_contributor_from_the_migration():
    import importlib

    from django.apps import apps

    migration = importlib.import_module("memory.migrations.0006_i15_experience_contributions")
    tenant = _tenant()
    assistant = tenant_assistant(tenant)
    alice, _ = _user(tenant, "alice")
    old = Experience.objects.for_tenant(tenant).create(
        tenant=tenant, assistant=assistant, task_summary="批量文本分类任务", solution=SOLUTION_ZH, contributed_by=alice
    )
    migration.contributions_for_existing(apps, None)
    migration.contributions_for_existing(apps, None)  # idempotent
    assert list(
        ExperienceContribution.objects.for_tenant(tenant).filter(experience=old).values_list("end_user", flat=True)
    ) == [alice.pk]
    assert old.fingerprint == ""  # never merged with a new one: one confirmation, below the default of 3
