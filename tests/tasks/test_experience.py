"""Experience memory: learned only from positive feedback, generalised and scrubbed, recalled for similar tasks
of the same assistant in the same tenant, never elsewhere; offered to other users only once several users
confirmed it or staff approved it (issue 15: tests/tasks/test_experience_privacy.py has the leak tests)."""

import pytest
from django.conf import settings

from assistants.services.chat import chat_session_start
from assistants.services.feedback import feedback_record
from assistants.services.tenants import end_user_get_or_create
from core.models import JobRecord
from core.policy import memory_policy_for
from memory.models import Experience, ExperienceContribution, PiiRejection
from memory.services.notes.moderation import experience_approve
from tasks.services.experience import (
    experience_generalise_offline,
    experience_learn,
    experience_recall,
    is_positive_feedback,
)
from tasks.services.task_types import task_types_install_examples
from tenancy.models import Assistant, Feedback, Message
from tests.conftest import wait_for
from tests.tasks.conftest import say

TASK_ZH = "我叫王小明，手机 13812345678。帮我批量处理 1000 条客服对话，按退款、物流、投诉分类"
SOLUTION_ZH = (
    "先随机抽 50 条人工定出类别（退款、物流、投诉、其他），写清每类的判定规则，再用规则加模型批量打标签，"
    "最后抽检 5% 修正。有问题打 13812345678 找王小明。"
)


def _exchange(tenant, session, question, answer, **metadata):
    """A question and the reply a model gave (stored as the chat turn stores them)."""
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


def _learning_enqueued(callbacks) -> bool:
    """The experience-learning job is enqueued after commit (by feedback_record, through the outbox): exactly one
    after-commit callback publishes it."""

    def publishes_learning(cb) -> bool:
        cells = [c.cell_contents for c in (getattr(cb, "__closure__", None) or ())]
        return any(getattr(c, "name", "").endswith("experience_learn") for c in cells)

    return sum(publishes_learning(cb) for cb in callbacks) == 1


def _recall(*, tenant, assistant, **kwargs) -> list[dict]:
    """experience_recall under the policy a turn of `assistant` resolves."""
    policy = memory_policy_for(tenant=tenant, assistant=assistant)
    return experience_recall(tenant=tenant, assistant=assistant, policy=policy, **kwargs)


def _thumbs_up(tenant, user, reply, capture):
    with capture(execute=False) as callbacks:
        feedback_record(tenant=tenant, end_user=user, message_id=reply.pk, rating="up")
    assert _learning_enqueued(callbacks)
    return experience_learn(tenant_id=tenant.pk, message_id=reply.pk)


@pytest.mark.django_db
def test_thumbs_up_saves_a_generalised_scrubbed_experience(
    tenant, user, session, assistant, django_capture_on_commit_callbacks
):
    reply = _exchange(tenant, session, TASK_ZH, SOLUTION_ZH)
    result = _thumbs_up(tenant, user, reply, django_capture_on_commit_callbacks)
    assert result["saved"] is True
    exp = Experience.objects.for_tenant(tenant).get()
    assert exp.assistant_id == assistant.pk and exp.source_message_id == reply.pk
    assert exp.task_summary == "大批量文本分类任务"
    for private in ("王小明", "13812345678", "1000"):
        assert private not in exp.task_summary and private not in exp.solution
    assert "抽检" in exp.solution  # the method itself is kept
    assert exp.embedding is not None and exp.embedding_model == settings.LLM_EMBEDDING_MODEL
    assert PiiRejection.objects.for_tenant(tenant).filter(stage="experience").exists()
    assert list(ExperienceContribution.objects.for_tenant(tenant).values_list("end_user", flat=True)) == [user.pk]
    # learning twice from the same reply does not duplicate
    assert experience_learn(tenant_id=tenant.pk, message_id=reply.pk)["saved"] is False
    assert Experience.objects.for_tenant(tenant).count() == 1


@pytest.mark.django_db
def test_no_feedback_or_negative_feedback_saves_nothing(tenant, user, session, django_capture_on_commit_callbacks):
    reply = _exchange(tenant, session, TASK_ZH, SOLUTION_ZH)
    assert experience_learn(tenant_id=tenant.pk, message_id=reply.pk)["saved"] is False
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        feedback_record(tenant=tenant, end_user=user, message_id=reply.pk, rating="down")
    assert not _learning_enqueued(callbacks)
    assert experience_learn(tenant_id=tenant.pk, message_id=reply.pk)["saved"] is False
    assert not Experience.objects.for_tenant(tenant).exists()


@pytest.mark.django_db
def test_a_retracted_thumbs_up_removes_what_was_learned(tenant, user, session, django_capture_on_commit_callbacks):
    reply = _exchange(tenant, session, TASK_ZH, SOLUTION_ZH)
    _thumbs_up(tenant, user, reply, django_capture_on_commit_callbacks)
    feedback_record(tenant=tenant, end_user=user, message_id=reply.pk, rating="down")
    assert not Experience.objects.for_tenant(tenant).exists()


@pytest.mark.django_db
def test_failures_are_never_saved(tenant, user, session, django_capture_on_commit_callbacks):
    failed = _exchange(tenant, session, TASK_ZH, "抱歉，模型暂时不可用。", error="model timeout")
    assert _thumbs_up(tenant, user, failed, django_capture_on_commit_callbacks)["saved"] is False
    # a reply about a task the user then cancelled
    for text in ("帮我做一个项目计划", "项目名称是青松", "截止时间是5月底", "团队6人", "预算15万"):
        r = say(tenant, session, text)
    say(tenant, session, "算了，取消项目计划")
    assert _thumbs_up(tenant, user, r.reply_message, django_capture_on_commit_callbacks)["saved"] is False
    # a step in the middle of collecting fields is not a solution either
    say(tenant, session, "帮我做一个项目计划")
    r = say(tenant, session, "项目名称是松涛")
    assert _thumbs_up(tenant, user, r.reply_message, django_capture_on_commit_callbacks)["saved"] is False
    assert not Experience.objects.for_tenant(tenant).exists()


@pytest.mark.django_db
def test_explicit_praise_in_chat_confirms_the_task_and_learns_it(
    tenant, user, session, django_capture_on_commit_callbacks
):
    for text in ("帮我做一个项目计划", "项目名称是星火", "截止时间是9月底", "团队5个人", "预算20万"):
        r = say(tenant, session, text)
    plan_reply = r.reply_message
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        r = say(tenant, session, "很好，就按这个来")
    assert r.context.task["state"] == "completed"
    feedback = Feedback.objects.for_tenant(tenant).get(message=plan_reply)
    assert feedback.rating == "up" and _learning_enqueued(callbacks)
    assert experience_learn(tenant_id=tenant.pk, message_id=plan_reply.pk)["saved"] is True
    exp = Experience.objects.for_tenant(tenant).get()
    assert exp.task_summary.startswith("项目计划") and "十万级" in exp.task_summary
    for private in ("星火", "9月底", "20万"):
        assert private not in exp.task_summary and private not in exp.solution

    # the user it came from is offered it in a new conversation; another user is not, yet
    r = say(tenant, chat_session_start(tenant=tenant, end_user=user), "我还想再做个项目计划")
    assert "参考以往类似任务" in r.reply
    bob = end_user_get_or_create(tenant=tenant, external_id="bob")
    r = say(tenant, chat_session_start(tenant=tenant, end_user=bob), "我也想做个项目计划")
    assert "参考以往类似任务" not in r.reply

    # two more users, each with their own project of the same size, like the same procedure: now it is shared
    for name, values in (
        ("carol", ("项目名称是晨光", "截止时间是10月底", "团队3个人", "预算12万")),
        ("dave", ("项目名称是远航", "截止时间是年底", "团队8人", "预算18万")),
    ):
        other = end_user_get_or_create(tenant=tenant, external_id=name)
        other_session = chat_session_start(tenant=tenant, end_user=other)
        for text in ("帮我做一个项目计划",) + values:
            r = say(tenant, other_session, text)
        feedback_record(tenant=tenant, end_user=other, message_id=r.reply_message.pk, rating="up")
        learned = experience_learn(tenant_id=tenant.pk, message_id=r.reply_message.pk)
        assert learned["created"] is False and learned["experience_id"] == exp.pk
    assert learned["confirmed_by_users"] == 3 and learned["shared"] is True
    r = say(tenant, chat_session_start(tenant=tenant, end_user=bob), "我也想做个项目计划")
    assert "参考以往类似任务" in r.reply
    for private in ("星火", "晨光", "远航", "9月底", "10月底", "20万", "12万", "18万"):
        assert private not in r.reply
    assert any("参考以往类似任务" in hint for hint in r.context.hints)
    # what is stored with Bob's reply refers to the experience; its text is not copied into the metadata
    stored = r.reply_message.metadata["context"]
    assert stored["experiences"] == [exp.pk] and not any("参考以往" in h for h in stored["hints"])


@pytest.mark.django_db
def test_english_praise_and_generalisation(tenant, user, session, django_capture_on_commit_callbacks):
    reply = _exchange(
        tenant,
        session,
        "I'm Jane Miller. Please classify 2,000 support tickets from our Berlin office by topic",
        "Sample 100 tickets, agree on 6 topics with Jane, then label the rest "
        "with rules plus a model and spot-check 5%. Mail jane.miller@example.com with questions.",
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        say(tenant, session, "Great, let's go with this!")
    assert _learning_enqueued(callbacks) and Feedback.objects.for_tenant(tenant).get(message=reply).rating == "up"
    assert experience_learn(tenant_id=tenant.pk, message_id=reply.pk)["saved"] is True
    exp = Experience.objects.for_tenant(tenant).get()
    assert exp.task_summary == "large-batch text classification task"
    for private in ("Jane", "Miller", "Berlin", "jane.miller@example.com", "2,000"):
        assert private not in exp.task_summary and private not in exp.solution


@pytest.mark.parametrize(
    "text,positive",
    [
        ("很好，就按这个来", True),
        ("太棒了，就这么办", True),
        ("这个方案不太满意", False),
        ("不是很好", False),
        ("great, let's go with this", True),
        ("Perfect, thanks!", True),
        ("not great, try again", False),
        ("你们周末上班吗", False),
        ("what about the budget?", False),
        ("你好，我很好", False),
        ("I had a great weekend", False),
        ("嗯，很好，就这么办", True),
        ("OK, that works for me", True),
    ],
)
def test_explicit_feedback_detection(text, positive):
    assert is_positive_feedback(text) is positive


@pytest.mark.parametrize(
    "text,expected",
    [
        ("批量处理 1000 条客服对话并分类", "大批量文本分类任务"),
        ("帮我把 200 张照片分类", "批量图像分类任务"),
        ("Summarise 5000 customer reviews", "large-batch text summarisation task"),
    ],
)
def test_offline_generalisation_rules(text, expected):
    assert experience_generalise_offline(text) == expected


@pytest.mark.django_db
def test_recall_never_crosses_tenants_or_assistants(
    make_tenant, tenant, user, session, assistant, django_capture_on_commit_callbacks
):
    reply = _exchange(tenant, session, TASK_ZH, SOLUTION_ZH)
    _thumbs_up(tenant, user, reply, django_capture_on_commit_callbacks)
    query = "我这有 3000 条用户评论，想分成几类"
    assert [e["task_summary"] for e in _recall(tenant=tenant, assistant=assistant, end_user=user, text=query)] == [
        "大批量文本分类任务"
    ]
    # unrelated questions recall nothing
    assert _recall(tenant=tenant, assistant=assistant, end_user=user, text="你们公司周末上班吗?") == []

    other_assistant = Assistant.objects.for_tenant(tenant).create(tenant=tenant, name="Second", system_prompt="x")
    task_types_install_examples(tenant=tenant, assistant=other_assistant)
    assert _recall(tenant=tenant, assistant=other_assistant, text=query) == []
    r = say(tenant, chat_session_start(tenant=tenant, end_user=user, assistant=other_assistant), query)
    assert "参考以往" not in r.reply

    other_tenant = make_tenant("other-co")
    other_assistant_t = Assistant.objects.for_tenant(other_tenant).get()
    assert _recall(tenant=other_tenant, assistant=other_assistant_t, text=query) == []
    stranger = end_user_get_or_create(tenant=other_tenant, external_id="alice")
    r = say(other_tenant, chat_session_start(tenant=other_tenant, end_user=stranger), query)
    assert "参考以往" not in r.reply and "大批量" not in r.reply

    # the same tenant and assistant, another user: not offered one user's experience until staff approve it
    bob = end_user_get_or_create(tenant=tenant, external_id="bob")
    bob_session = chat_session_start(tenant=tenant, end_user=bob)
    assert _recall(tenant=tenant, assistant=assistant, end_user=bob, text=query) == []
    r = say(tenant, bob_session, query)
    assert "参考以往" not in r.reply
    experience_approve(tenant=tenant, experience=Experience.objects.for_tenant(tenant).get(), actor="admin:staff")
    bob_session = chat_session_start(tenant=tenant, end_user=bob)
    r = say(tenant, bob_session, query)
    assert "参考以往类似任务（大批量文本分类任务）" in r.reply and "王小明" not in r.reply
    r = say(tenant, bob_session, query)  # once per session
    assert "参考以往" not in r.reply


@pytest.mark.django_db
def test_vectors_of_another_embedding_model_are_not_compared(
    tenant, user, session, assistant, django_capture_on_commit_callbacks
):
    reply = _exchange(tenant, session, TASK_ZH, SOLUTION_ZH)
    _thumbs_up(tenant, user, reply, django_capture_on_commit_callbacks)
    Experience.objects.for_tenant(tenant).update(embedding_model="some-other-model")
    assert _recall(tenant=tenant, assistant=assistant, end_user=user, text="1000 条客服对话分类") == []


@pytest.mark.django_db
def test_the_model_generalises_and_its_answer_is_still_scrubbed(
    make_tenant, new_session, scripted_llm, django_capture_on_commit_callbacks, settings
):
    settings.LLM_MAX_RETRIES = 0
    tenant = make_tenant("model-exp", chat_model="scripted-chat")
    user = end_user_get_or_create(tenant=tenant, external_id="erin")
    session = new_session(tenant, user)
    reply = _exchange(tenant, session, TASK_ZH, SOLUTION_ZH)
    scripted_llm.push(
        "chat",
        {
            "task_summary": "大批量文本分类任务",
            "solution": "抽样定类别，规则加模型打标签，抽检修正；联系 13812345678（王小明）",
        },
    )
    with django_capture_on_commit_callbacks(execute=False):
        feedback_record(tenant=tenant, end_user=user, message_id=reply.pk, rating="up")
    assert experience_learn(tenant_id=tenant.pk, message_id=reply.pk)["source"] == "model"
    request = scripted_llm.chat_requests()[-1]
    assert request["response_format"]["type"] == "json_schema" and "客服对话" in request["messages"][-1]["content"]
    exp = Experience.objects.for_tenant(tenant).get()
    assert exp.task_summary == "大批量文本分类任务"
    assert "13812345678" not in exp.solution and "王小明" not in exp.solution and "抽检修正" in exp.solution


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_thumbs_up_is_learned_by_the_real_worker(celery_worker, tenant, user, session):
    reply = _exchange(tenant, session, TASK_ZH, SOLUTION_ZH)
    feedback_record(tenant=tenant, end_user=user, message_id=reply.pk, rating="up")
    job = wait_for(
        lambda: JobRecord.objects.filter(kind="experience_learn", tenant=tenant, status="succeeded").first(),
        message="the learning job",
    )
    assert job.result["saved"] is True
    exp = Experience.objects.for_tenant(tenant).get(source_message=reply)
    assert exp.task_summary == "大批量文本分类任务" and exp.pk == job.result["experience_id"]
    assert job.result["confirmed_by_users"] == 1 and job.result["shared"] is False
