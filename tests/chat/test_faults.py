"""Model faults against the scripted OpenAI-compatible server (the real `openai` client over real HTTP): the
user's message is never lost, the turn never crashes, the person gets a reply and a clear sentence, and
compaction jobs retry later."""

import threading

import pytest
from django.db import connection

from assistants.jobs import session_compact as session_compact_job
from assistants.llm import ModelError, get_chat_model
from assistants.services.chat import chat_turn_stream
from assistants.services.compaction import session_compact
from core.models import JobRecord
from core.policy import memory_policy_for
from tenancy.models import ChatSession, Message
from tests.chat.helpers import add_turns, all_messages, make_session, say
from tests.conftest import wait_for
from tests.openai_server import Scripted


@pytest.fixture
def fast_failures(settings):
    settings.LLM_MAX_RETRIES = 0
    settings.LLM_TIMEOUT_SECONDS = 0.5


@pytest.mark.django_db
def test_the_scripted_model_streams_the_reply_in_order(scripted_llm):
    session = make_session(chat_model="scripted-model")
    scripted_llm.push("chat", "A streamed answer from the configured model, in several pieces.")
    events = list(chat_turn_stream(tenant=session.tenant, session=session, text="Hello there, my budget is $9k"))
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "context" and kinds[-2:] == ["done", "memory"] and kinds.count("delta") > 3
    done = events[-2][1]
    assert (
        "".join(p for k, p in events if k == "delta")
        == done.reply
        == "A streamed answer from the configured model, in several pieces."
    )
    request = scripted_llm.chat_requests()[-1]
    assert request["model"] == "scripted-model" and request["stream"] is True
    assert request["messages"][0]["content"] == session.assistant.system_prompt
    assert done.reply_message.metadata["model"] == "scripted-model"


@pytest.mark.django_db
def test_a_5xx_is_retried_with_backoff_and_the_retry_answers(scripted_llm, settings):
    settings.LLM_MAX_RETRIES = 2
    session = make_session(chat_model="scripted-model")
    scripted_llm.push("chat", Scripted(status=503), "Second time lucky.")
    result = say(session, "Are you there?")
    assert result.reply == "Second time lucky." and result.error is None
    assert len(scripted_llm.chat_requests()) == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    "answer, words_en, words_zh",
    [
        (Scripted(status=500), "server error", "服务器错误"),
        (Scripted(status=429, headers={"Retry-After": "0"}), "rate limited", "限流"),
        (Scripted(content="slow", delay=2), "did not answer in time", "没有及时回答"),
        (Scripted(content=""), "empty answer", "空回答"),
        (Scripted(raw=b"this is not an event stream {{{"), "", ""),
    ],
    ids=["5xx", "429", "timeout", "empty", "malformed"],
)
@pytest.mark.parametrize("chinese", [False, True], ids=["en", "zh"])
def test_a_model_fault_keeps_the_message_and_answers_from_the_offline_model(
    scripted_llm, fast_failures, answer, words_en, words_zh, chinese
):
    session = make_session(chat_model="scripted-model")
    say(session, "预算 20 万" if chinese else "My budget is $20,000")
    scripted_llm.reset()
    scripted_llm.push("chat", answer)
    text = "帮我算算预算怎么分" if chinese else "How should I split my budget?"
    result = say(session, text)
    stored = all_messages(session)
    assert stored[-2].role == "user" and stored[-2].content == text  # the message is kept
    assert result.error, "the person is told what happened"
    assert (words_zh if chinese else words_en) in result.error
    assert ("已经保存" if chinese else "your message is saved") in result.error
    assert result.reply.startswith("（离线模型）" if chinese else "(offline model)")
    assert ("20 万" if chinese else "$20,000") in result.reply  # the fallback still uses the context
    assert stored[-1].role == "assistant" and stored[-1].content == result.reply
    assert stored[-1].metadata["error"] == result.error


@pytest.mark.django_db
@pytest.mark.parametrize(
    "bad",
    ["this is not JSON at all", {"summary": "wrong field"}, {"summary_lines": []}],
    ids=["malformed", "schema-violating", "empty"],
)
def test_a_bad_structured_summary_never_replaces_the_summary(scripted_llm, fast_failures, bad):
    session = make_session(chat_model="scripted-model", window_turns=1, summary_trigger_messages=1)
    ChatSession.objects.for_tenant(session.tenant).filter(pk=session.pk).update(summary="- 用户：预算 40 万")
    for text in ("第一句", "第二句", "第三句"):
        scripted_llm.push("chat", "ok")
        say(session, text)
    scripted_llm.push("chat", bad, bad)  # asked twice: both bad
    with pytest.raises(ModelError) as info:
        session_compact(tenant_id=session.tenant_id, session_id=session.pk)
    assert info.value.reason in ("malformed", "empty")
    session.refresh_from_db()
    assert session.summary == "- 用户：预算 40 万" and session.summary_through_id is None
    assert session.summary_version == 0


@pytest.mark.django_db
def test_a_model_summary_is_validated_capped_and_scrubbed_of_identifiers(scripted_llm):
    session = make_session(
        chat_model="scripted-model", window_turns=1, summary_trigger_messages=1, budget_summary_tokens=120
    )
    for text in ("预算 40 万，想开面馆", "我的手机号是 13800138000", "店面 60 平米"):
        scripted_llm.push("chat", "ok")
        say(session, text)
    scripted_llm.push(
        "chat",
        {
            "summary_lines": ["用户预算 40 万，想开面馆", "用户手机号 13800138000"]
            + [f"闲聊第 {i} 句，没有事实" for i in range(40)]
        },
    )
    outcome = session_compact(tenant_id=session.tenant_id, session_id=session.pk)
    session.refresh_from_db()
    assert outcome["compacted"] == 4 and session.summary_version == 1
    assert "40 万" in session.summary and "13800138000" not in session.summary
    from assistants.services.tokens import token_count

    assert token_count(session.summary) <= 120
    prompt = scripted_llm.chat_requests()[-1]
    assert prompt["response_format"]["type"] == "json_schema"
    assert "预算 40 万，想开面馆" in prompt["messages"][-1]["content"]


@pytest.mark.django_db(transaction=True)
def test_two_compactions_at_once_do_not_corrupt_the_summary(scripted_llm):
    session = make_session(chat_model="scripted-model", window_turns=1, summary_trigger_messages=1)
    add_turns(session, ["one", "two", "three"])
    scripted_llm.push(
        "chat",
        Scripted(content={"summary_lines": ["version A"]}, delay=1),
        Scripted(content={"summary_lines": ["version B"]}, delay=1),
    )
    results = []

    def run():
        try:
            results.append(session_compact(tenant_id=session.tenant_id, session_id=session.pk))
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    session.refresh_from_db()
    assert sorted(r["compacted"] for r in results) == [0, 4]  # one wins, the other sees nothing left to do
    assert session.summary_version == 1
    assert session.summary in ("- version A", "- version B")
    stored = all_messages(session)
    assert session.summary_through_id == stored[-3].id


@pytest.mark.django_db(transaction=True)
def test_a_compaction_job_that_meets_a_model_fault_retries_later_and_succeeds(scripted_llm, celery_worker):
    session = make_session(chat_model="scripted-model", window_turns=1, summary_trigger_messages=1000)
    add_turns(session, ["预算 40 万", "想开面馆", "店面 60 平米"])
    # The worker's client retries twice itself (LLM_MAX_RETRIES=2): three 500s fail the first job attempt.
    scripted_llm.push(
        "chat",
        Scripted(status=500),
        Scripted(status=500),
        Scripted(status=500),
        {"summary_lines": ["用户预算 40 万，想开面馆"]},
    )
    session_compact_job.delay(session.tenant_id, session.pk)
    job = wait_for(
        lambda: JobRecord.objects.filter(
            kind="session_compact", tenant_id=session.tenant_id, status=JobRecord.Status.SUCCEEDED
        ).first(),
        timeout=60,
        message="the compaction job to succeed after a retry",
    )
    assert job.attempts >= 2
    session.refresh_from_db()
    assert session.summary == "- 用户预算 40 万，想开面馆" and session.summary_version == 1
    assert Message.objects.for_tenant(session.tenant).filter(session=session).count() == 6


@pytest.mark.django_db
def test_offline_is_the_default_and_a_missing_endpoint_falls_back_to_it(settings):
    session = make_session()

    def model():
        policy = memory_policy_for(tenant=session.tenant, assistant=session.assistant)
        return get_chat_model(policy=policy, assistant=session.assistant)

    assert model().offline
    settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = "", ""
    session.assistant.chat_model = "qwen-max"
    assert model().offline
    settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = "http://127.0.0.1:9/v1", "k"
    assert model().name == "qwen-max"


@pytest.mark.django_db
def test_a_server_without_json_schema_support_still_gets_a_summary(scripted_llm, fast_failures):
    session = make_session(chat_model="scripted-model", window_turns=1, summary_trigger_messages=1)
    for text in ("预算 40 万", "想开面馆", "店面 60 平米"):
        scripted_llm.push("chat", "ok")
        say(session, text)
    scripted_llm.push("chat", Scripted(status=400), {"summary_lines": ["用户预算 40 万，想开面馆"]})
    assert session_compact(tenant_id=session.tenant_id, session_id=session.pk)["compacted"] == 4
    formats = [r.get("response_format", {}).get("type") for r in scripted_llm.chat_requests()[-2:]]
    assert formats == ["json_schema", "json_object"]
    session.refresh_from_db()
    assert session.summary == "- 用户预算 40 万，想开面馆"
