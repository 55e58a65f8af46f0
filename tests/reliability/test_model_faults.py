"""The model endpoint slow, failing or returning garbage: the chat turn degrades clearly (the user's message is
kept, the reply comes from the offline model with a sentence saying why), compaction never writes garbage into
the summary, and a job that keeps failing records its failure in the ledger."""

from __future__ import annotations

import pytest

from assistants.services.chat import chat_session_start, chat_turn
from assistants.services.tenants import end_user_get_or_create
from tenancy.models import ChatSession, Message
from tests.factories import AssistantFactory, TenantFactory
from tests.openai_server import Scripted
from tests.reliability.conftest import needs

pytestmark = [pytest.mark.django_db, needs("chat")]

FAULTS = {
    "server_error": [Scripted(status=500)] * 4,
    "rate_limited": [Scripted(status=429, headers={"Retry-After": "0"})] * 4,
    "timeout": [Scripted(delay=2.5, content="too late")] * 4,
    "invalid_json": [Scripted(raw=b"{this is not json", status=200)] * 4,
    "empty": [Scripted(content="")] * 4,
}


@pytest.fixture
def scripted_tenant(scripted_llm, settings):
    settings.LLM_TIMEOUT_SECONDS = 1.0
    settings.LLM_MAX_RETRIES = 1
    tenant = TenantFactory(chat_model="scripted-model")
    AssistantFactory(tenant=tenant)
    return tenant


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize(
    "text,chinese", [("我想在杭州开一家咖啡馆，预算30万。", True), ("I want to open a bakery in Wuhan.", False)]
)
def test_turn_degrades_clearly_and_keeps_the_message(scripted_tenant, scripted_llm, fault, text, chinese):
    scripted_llm.push("chat", *FAULTS[fault])
    user = end_user_get_or_create(tenant=scripted_tenant, external_id=f"u-{fault}")
    session = chat_session_start(tenant=scripted_tenant, end_user=user)
    result = chat_turn(tenant=scripted_tenant, session=session, text=text)
    assert result.error, "the person is told the model failed"
    assert ("语言模型" in result.error) if chinese else ("language model" in result.error)
    assert "Traceback" not in result.error and len(result.error) < 300
    assert result.reply.strip()
    stored = Message.objects.for_tenant(scripted_tenant).filter(session=session).order_by("id")
    assert [m.role for m in stored] == ["user", "assistant"] and stored[0].content == text


GARBAGE_SUMMARIES = [
    Scripted(raw=b"<html>502 Bad Gateway</html>"),
    Scripted(content={"summary_lines": "not a list"}),
    Scripted(content={"wrong_field": ["x"]}),
    Scripted(content="Sure! Here is your summary: blah"),
]


def test_compaction_with_garbage_answers_keeps_the_summary_untouched_and_fails_for_retry(scripted_tenant, scripted_llm):
    from assistants.services.compaction import session_compact
    from core.exceptions import ServiceUnavailable

    scripted_tenant.window_turns = 1
    scripted_tenant.summary_trigger_messages = 1
    scripted_tenant.save()
    user = end_user_get_or_create(tenant=scripted_tenant, external_id="garbage")
    session = chat_session_start(tenant=scripted_tenant, end_user=user)
    for i, text in enumerate(["预算40万", "好的", "在成都", "明白", "开火锅店", "收到"]):
        Message.objects.for_tenant(scripted_tenant).create(
            tenant=scripted_tenant,
            session=session,
            end_user=user,
            role="user" if i % 2 == 0 else "assistant",
            content=text,
        )
    scripted_llm.push("chat", *(GARBAGE_SUMMARIES * 3))
    with pytest.raises(ServiceUnavailable):
        session_compact(tenant_id=scripted_tenant.pk, session_id=session.pk)
    session = ChatSession.objects.for_tenant(scripted_tenant).get(pk=session.pk)
    assert session.summary == "" and session.summary_version == 0 and session.summary_through_id is None
