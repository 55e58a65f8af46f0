"""The chat turn's guards: tenants, erasure, empty input; and what it stores and queues."""

import pytest
from django.utils import timezone

from assistants.services.chat import chat_session_start
from core.exceptions import Conflict, InvalidInput, NotFound
from core.models import JobRecord
from tenancy.models import EndUser, Message
from tests.chat.helpers import all_messages, make_session, say
from tests.conftest import wait_for
from tests.factories import AssistantFactory, EndUserFactory, TenantFactory


@pytest.mark.django_db
def test_another_tenants_session_or_assistant_is_not_found():
    session = make_session()
    other = TenantFactory()
    from assistants.services.chat import chat_turn

    with pytest.raises(NotFound):
        chat_turn(tenant=other, session=session, text="hello")
    with pytest.raises(NotFound):
        chat_session_start(
            tenant=other, end_user=EndUserFactory(tenant=other), assistant=AssistantFactory(tenant=session.tenant)
        )
    with pytest.raises(NotFound):
        chat_session_start(tenant=other, end_user=session.end_user)
    assert all_messages(session) == []


@pytest.mark.django_db
def test_a_user_being_erased_gets_no_new_messages():
    session = make_session()
    EndUser.objects.for_tenant(session.tenant).filter(pk=session.end_user_id).update(
        erasure_requested_at=timezone.now()
    )
    with pytest.raises(Conflict, match="being erased"):
        say(session, "still there?")
    assert all_messages(session) == []


@pytest.mark.django_db
def test_an_empty_message_is_refused_in_one_sentence():
    session = make_session()
    with pytest.raises(InvalidInput, match="empty"):
        say(session, "   ")


@pytest.mark.django_db
def test_each_message_stores_its_token_count_and_the_reply_what_it_was_built_from():
    session = make_session()
    result = say(session, "预算 40 万，想开面馆")
    assert result.user_message.token_count > 0 and result.reply_message.token_count > 0
    meta = Message.objects.for_tenant(session.tenant).get(pk=result.reply_message.pk).metadata
    assert meta["model"] == "offline" and meta["context"]["pinned_facts"]["budget"]["value"] == "40 万"
    assert meta["context"]["token_count"] == result.context.token_count


@pytest.mark.django_db(transaction=True)
def test_the_turn_queues_extraction_and_compaction_after_commit(celery_worker):
    session = make_session(window_turns=1, summary_trigger_messages=2)
    for text in ("预算 40 万", "想开面馆", "店在南山区"):
        result = say(session, text)
    wait_for(
        lambda: JobRecord.objects.filter(
            kind="memory_extract", tenant_id=session.tenant_id, idempotency_key=f"extract:{result.user_message.pk}"
        ).exists(),
        timeout=60,
        message="memory_extract for the last user message",
    )
    session = wait_for(
        lambda: (s := type(session).objects.for_tenant(session.tenant).get(pk=session.pk)).summary_version and s,
        timeout=60,
        message="a compaction by the worker",
    )
    assert "预算 40 万" in session.summary
