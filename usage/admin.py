"""Admin for usage: each tenant's usage page (quotas to edit, the last 30 days as a chart and a table, top
users and assistants, soft-limit notices), the notices, and the platform's model prices (superusers)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from django import forms
from django.contrib import admin, messages
from django.template.loader import render_to_string
from django.utils.translation import gettext_lazy as _

from core.admin_scoping import ReadOnlyAdminMixin, SuperuserOnlyAdminMixin, TenantConsistentForm, TenantScopedAdmin
from core.exceptions import ApplicationError
from usage.models import ModelPrice, TenantUsage, UsageNotice
from usage.quotas import period_bounds, usage_quotas_clean
from usage.selectors import usage_notices, usage_report, usage_top

CHART_WIDTH, CHART_HEIGHT = 600, 120


class TenantUsageForm(TenantConsistentForm):
    usage_quotas = forms.JSONField(
        required=False,
        help_text='e.g. {"tenant": {"tokens_per_month": 2000000}, "user": {"turns_per_day": 200}}. Limits per UTC '
        "day or month for the tenant, each assistant and each end user; at 80% the tenant gets the usage.threshold "
        "webhook and a notice here, at 100% chat turns are refused (429 quota_exceeded). Empty: no limits.",
    )

    class Meta:
        model = TenantUsage
        fields = ["usage_quotas"]

    def clean_usage_quotas(self):
        try:
            return usage_quotas_clean(self.cleaned_data.get("usage_quotas"))
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from exc


def _bars(days: list[dict], first) -> list[dict]:
    by_day = {row["group"]: row for row in days}
    peak = max([row["total_tokens"] for row in days] or [0]) or 1
    width = CHART_WIDTH / 30
    bars = []
    for index in range(30):
        day = (first + timedelta(days=index)).isoformat()
        row = by_day.get(day, {"total_tokens": 0, "turns": 0})
        height = round(CHART_HEIGHT * row["total_tokens"] / peak)
        bars.append(
            {
                "day": day,
                "tokens": row["total_tokens"],
                "turns": row["turns"],
                "x": round(index * width, 1),
                "y": CHART_HEIGHT - height,
                "width": round(width - 2, 1),
                "height": height,
            }
        )
    return bars


def usage_page_html(tenant) -> str:
    """The report shown on a tenant's usage page."""
    today = datetime.now(UTC).date()
    first = today - timedelta(days=29)
    days = usage_report(tenant=tenant, date_from=first, date_to=today, group_by="day")
    tops = [
        ("Top end users", usage_top(tenant=tenant, group_by="user", today=today)),
        ("Top assistants", usage_top(tenant=tenant, group_by="assistant", today=today)),
    ]
    return render_to_string(
        "usage/admin_report.html",
        {
            "days": days,
            "bars": _bars(days, first),
            "tops": tops,
            "priced": any("cost" in row for row in days),
            "notices": usage_notices(tenant=tenant),
            "chart_width": CHART_WIDTH,
            "chart_height": CHART_HEIGHT,
            "first_day": first.isoformat(),
            "last_day": today.isoformat(),
        },
    )


@admin.register(TenantUsage)
class TenantUsageAdmin(TenantScopedAdmin):
    tenant_lookup = "pk"
    form = TenantUsageForm
    list_display = ("__str__", "slug", "quotas")
    readonly_fields = ("report",)
    fields = ("usage_quotas", "report")

    @admin.display(description=_("limits"))
    def quotas(self, obj):
        return json.dumps(obj.usage_quotas, sort_keys=True) if obj.usage_quotas else "none"

    @admin.display(description=_("usage"))
    def report(self, obj):
        return usage_page_html(obj) if obj and obj.pk else ""

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, object_id)
        if obj is not None:
            now = datetime.now(UTC)
            for notice in usage_notices(tenant=obj):
                period = "day" if notice.limit.endswith("_per_day") else "month"
                if notice.period_start == period_bounds(period, now)[0]:
                    messages.warning(request, f"{notice.limit}: {notice.used} of {notice.quota} used (over 80%).")
        return super().change_view(request, object_id, form_url, extra_context)


@admin.register(UsageNotice)
class UsageNoticeAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = ("created_at", "tenant", "limit", "subject_id", "used", "quota", "period_start")
    list_filter = ("limit",)


@admin.register(ModelPrice)
class ModelPriceAdmin(SuperuserOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("model", "prompt_per_million", "completion_per_million", "currency")
