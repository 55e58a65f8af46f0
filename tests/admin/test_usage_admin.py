"""The admin's usage page per tenant (issue 43): quotas to edit, the last 30 days, top users and assistants, the
80% notices; a tenant's staff see only their tenant's page; prices are for superusers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.urls import reverse

from usage.models import ModelPrice, TenantUsage, UsageHour, UsageNotice
from usage.quotas import period_bounds

pytestmark = pytest.mark.django_db


def page(tenant) -> str:
    return reverse("admin:usage_tenantusage_change", args=[tenant.pk])


def spend(tenant, assistant, user, tokens: int, model: str = "gpt-test") -> None:
    hour = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    UsageHour.objects.for_tenant(tenant).create(
        tenant=tenant,
        hour=hour,
        assistant_id=assistant.pk,
        end_user_id=user.pk,
        model=model,
        kind="turn",
        purpose="chat",
        calls=1,
        turns=1,
        prompt_tokens=tokens,
        completion_tokens=0,
    )


def test_the_usage_page_shows_the_days_top_users_assistants_cost_and_notices(admin_client_root, world):
    acme = world["acme"]
    ModelPrice.objects.all().delete()  # the world prices gpt-test: start with no price
    spend(acme["tenant"], acme["assistant"], acme["person"]["user"], 1200)
    spend(acme["tenant"], acme["assistant"], acme["bystander"]["user"], 300)
    start, _ = period_bounds("day", datetime.now(UTC))
    UsageNotice.objects.for_tenant(acme["tenant"]).create(
        tenant=acme["tenant"], limit="tenant.tokens_per_day", period_start=start, used=1500, quota=1800
    )
    html = admin_client_root.get(page(acme["tenant"])).content.decode()
    assert "Last 30 days" in html and "<svg" in html and "<rect" in html
    assert html.index(">u-1<") < html.index(">u-2<")  # top users, biggest first
    assert acme["assistant"].name in html and "1500" in html
    assert "tenant.tokens_per_day: 1500 of 1800 used" in html  # the notice, also as a message
    assert "Cost" not in html  # no price set: no cost shown
    ModelPrice.objects.create(model="gpt-test", prompt_per_million=10, completion_per_million=30)
    assert "0.015000 USD" in admin_client_root.get(page(acme["tenant"])).content.decode()


def test_quotas_are_edited_and_checked_in_the_admin(admin_client_root, world):
    acme = world["acme"]["tenant"]
    bad = admin_client_root.post(page(acme), {"usage_quotas": '{"user": {"tokens_per_week": 5}}'})
    assert bad.status_code == 200 and "tokens_per_week" in bad.content.decode()
    ok = admin_client_root.post(page(acme), {"usage_quotas": '{"user": {"turns_per_day": 20}}'})
    assert ok.status_code == 302
    acme.refresh_from_db()
    assert acme.usage_quotas == {"user": {"turns_per_day": 20}}


def test_staff_see_only_their_tenants_usage_and_no_prices(staff_client_a, world):
    acme, globex = world["acme"], world["globex"]
    spend(globex["tenant"], globex["assistant"], globex["person"]["user"], 777)
    listed = staff_client_a.get(reverse("admin:usage_tenantusage_changelist"))
    assert listed.status_code == 200
    assert [t.pk for t in listed.context["cl"].result_list] == [acme["tenant"].pk]
    assert staff_client_a.get(page(acme["tenant"])).status_code == 200
    assert staff_client_a.get(page(globex["tenant"])).status_code in (302, 404)
    assert staff_client_a.get(reverse("admin:usage_modelprice_changelist")).status_code == 403
    assert TenantUsage.objects.count() == 2
