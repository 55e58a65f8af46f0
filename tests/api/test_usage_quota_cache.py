"""The quota check reads its usage from the cache while usage is far from every limit, and from the table near one
(issue 43, usage/quotas.py): a turn far from its limits costs no statement, and the limit still holds exactly as
the flushes after each turn add up."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.metering import Attribution, UsageEvent, usage_event_record
from usage.quotas import QuotaExceeded, usage_quota_check
from usage.services import usage_flush

pytestmark = pytest.mark.django_db
QUOTAS = {"user": {"tokens_per_day": 1000}, "tenant": {"turns_per_month": 100}}


def statements(check) -> int:
    with CaptureQueriesContext(connection) as queries:
        check()
    return len([q for q in queries.captured_queries if "usage_usagehour" in q["sql"]])


def spend(kit, user, tokens: int) -> None:
    who = Attribution(tenant_id=kit.tenant.pk, assistant_id=kit.assistant.pk, end_user_id=user.pk)
    usage_event_record(UsageEvent(attribution=who, kind="turn", model="m", prompt_tokens=tokens, turns=1))
    usage_flush()  # what the web process does after the response


def test_the_check_is_cached_far_from_the_limit_and_exact_near_it(acme, globex):
    alice, bob = acme.user("alice"), acme.user("bob")
    usage_flush()

    def check(user, kit=acme):
        usage_quota_check(
            tenant_id=kit.tenant.pk,
            assistant_id=kit.assistant.pk,
            end_user_id=user.pk,
            quotas=QUOTAS,
            chinese=False,
        )

    assert statements(lambda: check(alice)) == 1  # nothing cached yet
    spend(acme, alice, 300)
    assert statements(lambda: check(alice)) == 0  # 300 of 1,000: the cached total, kept up by the flush
    spend(acme, alice, 550)
    assert statements(lambda: check(alice)) == 1  # 850: near the limit, the table is read every time
    assert statements(lambda: check(bob)) == 1  # his own total: not cached yet
    spend(acme, alice, 200)
    with pytest.raises(QuotaExceeded) as refused:
        check(alice)
    assert refused.value.details["used"] == 1050 and refused.value.details["limit"] == "user.tokens_per_day"
    check(bob)  # bob's own total is 0; the tenant's turns (4 of 100) are far from its limit
    globex_user = globex.user("alice")
    assert statements(lambda: check(globex_user, globex)) == 1  # another tenant's totals are its own
