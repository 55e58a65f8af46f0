"""Usage a tenant can see and cap (issue 43): metering of turns and model calls, quotas with their 429, the
usage.threshold webhook, GET /api/v1/usage/ (JSON pages and CSV), /usage/quotas/, and erasure."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assistants.services.chat import chat_session_start, chat_turn
from core.metering import usage_buffer_size
from tenancy.models import Assistant, ChatSession, EndUser, Message
from tests.api.conftest import error_of
from tests.openai_server import Scripted
from usage.models import UsageHour, UsageNotice
from usage.services import usage_flush
from webhooks.models import WebhookDelivery
from webhooks.services import webhook_endpoint_create


def chat(kit, user: str, message: str, **extra):
    return kit.api.post("/api/v1/chat/", {"user": user, "message": message, **extra})


def usage(kit, **params) -> list[dict]:
    response = kit.api.get("/api/v1/usage/", params)
    assert response.status_code == 200, response.content
    return response.json()["results"]


def by_group(rows: list[dict]) -> dict:
    return {row["group"]: row for row in rows}


def remote_model(kit, scripted_llm, name: str = "gpt-test") -> None:
    kit.tenant.chat_model = name
    kit.tenant.save(update_fields=["chat_model"])


def test_an_offline_turn_is_metered_after_the_reply_without_a_statement_in_the_turn(acme):
    """The turn writes nothing of its usage (no statement on usage tables); the flush after it does, as one turn
    whose tokens were counted (no model reported them)."""
    user = acme.user("alice")
    session = chat_session_start(tenant=acme.tenant, end_user=user)
    usage_flush()
    with CaptureQueriesContext(connection) as queries:
        result = chat_turn(tenant=acme.tenant, session=session, text="My budget is 400k for the shop.")
    assert result.reply
    assert not [q["sql"] for q in queries.captured_queries if "usage_" in q["sql"]]
    assert usage_buffer_size() == 1
    usage_flush()
    (row,) = usage(acme, group_by="user")
    assert row["group"] == "alice" and row["turns"] == 1 and row["calls"] == 1
    assert row["total_tokens"] > 0 and row["counted_tokens"] == row["total_tokens"]
    assert by_group(usage(acme, group_by="model"))["offline"]["turns"] == 1


def test_a_turn_through_the_api_shows_in_usage_at_once_and_not_to_another_tenant(acme, globex):
    assert chat(acme, "alice", "hello").status_code == 200
    assert chat(acme, "bob", "hi there").status_code == 200
    users = by_group(usage(acme, group_by="user"))
    assert users["alice"]["turns"] == 1 and users["bob"]["turns"] == 1
    assert usage(globex, group_by="user") == []
    assert usage(globex, group_by="day") == []


def test_provider_tokens_per_assistant_user_and_model(acme, scripted_llm):
    """Two assistants of one tenant and two users: each sees its own tokens, as the provider reported them."""
    remote_model(acme, scripted_llm)
    second = Assistant.objects.for_tenant(acme.tenant).create(tenant=acme.tenant, name="Second", system_prompt="Hi")
    scripted_llm.push("chat", Scripted("First reply.", usage={"prompt_tokens": 120, "completion_tokens": 30}))
    scripted_llm.push("chat", Scripted("Second reply.", usage={"prompt_tokens": 200, "completion_tokens": 50}))
    assert chat(acme, "alice", "question one").json()["reply"] == "First reply."
    assert chat(acme, "bob", "question two", assistant=second.pk).json()["reply"] == "Second reply."
    assistants = by_group(usage(acme, group_by="assistant"))
    assert assistants[acme.assistant.pk]["total_tokens"] == 150 and assistants[second.pk]["total_tokens"] == 250
    assert assistants[second.pk]["label"] == "Second"
    users = by_group(usage(acme, group_by="user"))
    assert (users["alice"]["prompt_tokens"], users["alice"]["completion_tokens"]) == (120, 30)
    assert users["bob"]["counted_tokens"] == 0  # reported by the provider, not counted
    assert by_group(usage(acme, group_by="model"))["gpt-test"]["turns"] == 2
    assert "cost" not in users["alice"]  # no price set: no cost shown


def test_a_price_adds_cost(acme, scripted_llm):
    from usage.models import ModelPrice

    remote_model(acme, scripted_llm)
    ModelPrice.objects.create(model="gpt-test", prompt_per_million=2, completion_per_million=8)
    scripted_llm.push("chat", Scripted("Reply.", usage={"prompt_tokens": 1000, "completion_tokens": 500}))
    chat(acme, "alice", "question")
    (row,) = usage(acme, group_by="model")
    assert row["cost"] == "0.006000" and row["currency"] == "USD"


def stream_turn(kit, user: str, message: str, session=None) -> str:
    body = {"user": user, "message": message, "stream": True} | ({"session": session} if session else {})
    response = kit.api.post("/api/v1/chat/", body)
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


def test_quota_reached_mid_stream_finishes_the_reply_and_refuses_the_next_turn(acme, globex, scripted_llm):
    remote_model(acme, scripted_llm)
    assert acme.api.put("/api/v1/usage/quotas/", {"quotas": {"user": {"tokens_per_day": 100}}}).status_code == 200
    scripted_llm.push(
        "chat",
        Scripted("A long answer that goes past the limit.", usage={"prompt_tokens": 90, "completion_tokens": 40}),
    )
    events = stream_turn(acme, "alice", "Tell me everything")
    assert "event: done" in events and "past the limit." in events.replace('", "', "")
    refused = chat(acme, "alice", "And one more thing")
    assert refused.status_code == 429
    error = error_of(refused)
    assert error["code"] == "quota_exceeded" and error["details"]["limit"] == "user.tokens_per_day"
    assert "daily limit of 100 tokens for this user" in error["message"] and "resets at" in error["message"]
    assert int(refused["Retry-After"]) == error["details"]["retry_after_seconds"] > 0
    chinese = error_of(chat(acme, "alice", "我还想再问一个问题"))
    assert chinese["message"].startswith("该用户每日 100 个 token 的额度已用完") and "重置" in chinese["message"]
    assert chat(acme, "bob", "hello").status_code == 200  # another user of the tenant has their own allowance
    assert chat(globex, "alice", "hello").status_code == 200  # another tenant is not touched


def test_a_stream_over_the_limit_is_refused_before_anything_is_written(acme):
    acme.api.put("/api/v1/usage/quotas/", {"quotas": {"tenant": {"turns_per_month": 1}}})
    assert chat(acme, "alice", "first").status_code == 200
    refused = acme.api.post("/api/v1/chat/", {"user": "alice", "message": "second", "stream": True})
    assert refused.status_code == 429 and error_of(refused)["details"]["limit"] == "tenant.turns_per_month"
    assert "monthly limit of 1 turn for this account" in error_of(refused)["message"]
    stored = Message.objects.for_tenant(acme.tenant).values_list("content", flat=True)
    assert "second" not in stored  # the refused turn stored no message


def test_a_turn_refused_at_the_limit_leaves_no_new_session_or_user_behind(acme, globex):
    acme.api.put("/api/v1/usage/quotas/", {"quotas": {"tenant": {"turns_per_day": 1}}})
    assert chat(acme, "alice", "first").status_code == 200
    sessions = ChatSession.objects.for_tenant(acme.tenant).count()
    for user, stream in (("alice", False), ("newcomer", False), ("newcomer", True)):
        refused = acme.api.post("/api/v1/chat/", {"user": user, "message": "another", "stream": stream})
        assert refused.status_code == 429 and error_of(refused)["code"] == "quota_exceeded"
    assert ChatSession.objects.for_tenant(acme.tenant).count() == sessions  # a failed request changes nothing
    assert not EndUser.objects.for_tenant(acme.tenant).filter(external_id="newcomer").exists()
    assert chat(globex, "newcomer", "hello").status_code == 200  # another tenant is not touched


def test_a_limit_per_assistant_caps_each_assistant_apart(acme):
    second = Assistant.objects.for_tenant(acme.tenant).create(tenant=acme.tenant, name="Second", system_prompt="Hi")
    acme.api.put("/api/v1/usage/quotas/", {"quotas": {"assistant": {"turns_per_day": 1}}})
    assert chat(acme, "alice", "one").status_code == 200
    assert error_of(chat(acme, "bob", "two"))["details"]["limit"] == "assistant.turns_per_day"
    assert chat(acme, "bob", "two", assistant=second.pk).status_code == 200


def test_soft_limit_sends_usage_threshold_once_per_period(acme, globex):
    webhook_endpoint_create(tenant=acme.tenant, url="http://127.0.0.1:9/hook", events=["usage.threshold"])
    webhook_endpoint_create(tenant=globex.tenant, url="http://127.0.0.1:9/hook", events=["usage.threshold"])
    acme.api.put("/api/v1/usage/quotas/", {"quotas": {"tenant": {"turns_per_day": 5}}})
    for text in ("one", "two", "three"):
        chat(acme, "alice", text)
    assert not WebhookDelivery.objects.for_tenant(acme.tenant).exists()  # 3 of 5: below 80%
    chat(acme, "alice", "four")
    chat(acme, "alice", "five")  # 4 and 5 of 5: one notice for the period, not two
    (delivery,) = WebhookDelivery.objects.for_tenant(acme.tenant).filter(event="usage.threshold")
    assert delivery.payload["limit"] == "tenant.turns_per_day" and delivery.payload["quota"] == 5
    assert UsageNotice.objects.for_tenant(acme.tenant).count() == 1
    assert not WebhookDelivery.objects.for_tenant(globex.tenant).exists()


def test_usage_pages_csv_and_bad_queries(acme):
    for name in ("alice", "bob", "carol"):
        chat(acme, name, "hello")
    first = acme.api.get("/api/v1/usage/", {"group_by": "user", "page_size": 2}).json()
    assert first["count"] == 3 and len(first["results"]) == 2 and first["next"]
    response = acme.api.get("/api/v1/usage/", {"group_by": "user"}, headers={"Accept": "text/csv"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert sorted(r["group"] for r in rows) == ["alice", "bob", "carol"] and rows[0]["turns"] == "1"
    today = datetime.now(UTC).date().isoformat()
    (day,) = usage(acme, group_by="day", **{"from": today, "to": today})
    assert day["group"] == today and day["turns"] == 3
    assert error_of(acme.api.get("/api/v1/usage/", {"group_by": "colour"}))["code"] == "invalid"
    assert acme.api.get("/api/v1/usage/", {"from": "2026-02-01", "to": "2026-01-01"}).status_code == 400
    assert acme.api.get("/api/v1/usage/", {"from": "2020-01-01", "to": "2026-01-01"}).status_code == 400


def test_quotas_api_validates_and_is_per_tenant(acme, globex):
    bad = acme.api.put("/api/v1/usage/quotas/", {"quotas": {"user": {"tokens_per_week": 5}}})
    assert bad.status_code == 400 and "tokens_per_week" in error_of(bad)["message"]
    assert acme.api.put("/api/v1/usage/quotas/", {"quotas": {"user": {"tokens_per_day": 0}}}).status_code == 400
    ok = acme.api.put("/api/v1/usage/quotas/", {"quotas": {"tenant": {"turns_per_day": 9}}})
    assert ok.json() == {"quotas": {"tenant": {"turns_per_day": 9}}, "tenant_used": {"tenant.turns_per_day": 0}}
    assert globex.api.get("/api/v1/usage/quotas/").json()["quotas"] == {}
    assert globex.api.get("/api/v1/usage/quotas/", headers={"Authorization": "Bearer nope"}).status_code == 401


def test_erasure_leaves_only_de_identified_aggregates(acme):
    from assistants.services.privacy import user_erase

    chat(acme, "alice", "I live in Hangzhou")
    chat(acme, "bob", "hello")
    before = usage(acme, group_by="day")[0]
    alice = acme.user("alice")
    user_erase(tenant_id=acme.tenant.pk, end_user_id=alice.pk, requested_by="test")
    assert not UsageHour.objects.for_tenant(acme.tenant).filter(end_user_id=alice.pk).exists()
    users = by_group(usage(acme, group_by="user"))
    assert "alice" not in users and users[None]["turns"] == 1 and users["bob"]["turns"] == 1
    after = usage(acme, group_by="day")[0]
    assert (after["turns"], after["total_tokens"]) == (before["turns"], before["total_tokens"])
    for row in UsageHour.objects.for_tenant(acme.tenant).values():
        assert not {str(v) for v in row.values()} & {"alice", "I live in Hangzhou"}


@pytest.mark.parametrize("job", ["memory.jobs.memory_extract", "assistants.jobs.session_compact"])
def test_model_jobs_of_a_tenant_over_its_hard_limit_wait_and_others_do_not(acme, globex, job):
    from usage.services import usage_job_held

    acme.api.put("/api/v1/usage/quotas/", {"quotas": {"tenant": {"turns_per_day": 1}}})
    chat(acme, "alice", "hello")
    assert usage_job_held(job, [acme.tenant.pk, 1]) == settings.USAGE_JOB_WAIT_SECONDS > 0
    assert usage_job_held("assistants.jobs.user_erase", [acme.tenant.pk, 1, "x", 1]) is None
    assert usage_job_held(job, [globex.tenant.pk, 1]) is None


def test_a_flush_drops_a_deleted_tenants_events_and_writes_the_rest(acme, globex):
    from core.metering import Attribution, UsageEvent, usage_event_record

    gone = globex.tenant.pk
    for tenant_id in (acme.tenant.pk, gone):
        usage_event_record(
            UsageEvent(attribution=Attribution(tenant_id=tenant_id), kind="chat", model="m", prompt_tokens=5)
        )
    globex.tenant.delete()
    assert usage_flush() == 2 and usage_buffer_size() == 0  # nothing left behind to fail every later flush
    assert by_group(usage(acme, group_by="model"))["m"]["prompt_tokens"] == 5


def test_a_regenerated_reply_is_metered_as_a_turn_and_capped_like_one(acme):
    from assistants.services.alternatives import chat_reply_regenerate_stream
    from usage.quotas import QuotaExceeded

    session = chat_session_start(tenant=acme.tenant, end_user=acme.user("alice"))
    first = chat_turn(tenant=acme.tenant, session=session, text="hello")
    list(chat_reply_regenerate_stream(tenant=acme.tenant, session=session, reply=first.reply_message))
    usage_flush()
    assert usage(acme, group_by="user")[0]["turns"] == 2
    acme.api.put("/api/v1/usage/quotas/", {"quotas": {"user": {"turns_per_day": 2}}})
    acme.tenant.refresh_from_db()  # as the next request would read it
    latest = Message.objects.for_tenant(acme.tenant).filter(role="assistant").order_by("-id").first()
    with pytest.raises(QuotaExceeded):
        next(chat_reply_regenerate_stream(tenant=acme.tenant, session=session, reply=latest))


def test_a_flush_of_only_a_deleted_tenants_events_and_a_large_one_both_succeed(acme, globex):
    from core.metering import Attribution, UsageEvent, usage_event_record

    usage_event_record(UsageEvent(attribution=Attribution(tenant_id=globex.tenant.pk), kind="chat", model="m"))
    globex.tenant.delete()
    assert usage_flush() == 1 and usage_buffer_size() == 0
    for user_id in range(1, 2501):  # 2,500 distinct hourly rows: more than one statement's parameters allow
        attribution = Attribution(tenant_id=acme.tenant.pk, assistant_id=user_id)
        usage_event_record(UsageEvent(attribution=attribution, kind="chat", model="m", prompt_tokens=2))
    assert usage_flush() == 2500
    assert by_group(usage(acme, group_by="model"))["m"]["prompt_tokens"] == 5000


def test_stored_messages_and_notes_are_shown_per_user_assistant_and_day(acme, globex):
    acme.api.post("/api/v1/users/alice/memories/", {"kind": "preference", "content": "The user drinks tea."})
    chat(acme, "alice", "hello")
    chat(acme, "bob", "hi")
    chat(globex, "alice", "hello")
    users = by_group(usage(acme, group_by="user"))
    assert (users["alice"]["stored_messages"], users["alice"]["stored_notes"]) == (2, 1)
    assert (users["bob"]["stored_messages"], users["bob"]["stored_notes"]) == (2, 0)
    (assistant,) = usage(acme, group_by="assistant")
    assert assistant["stored_messages"] == 4 and assistant["stored_notes"] is None
    assert usage(acme, group_by="day")[0]["stored_notes"] == 1
    assert "stored_messages" not in usage(acme, group_by="model")[0]
