"""Admin for the platform's own rows: the job ledger and the worker heartbeats."""

from __future__ import annotations

import json

from django.contrib import admin
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from core.admin_autocomplete import TenantAutocompleteFilter
from core.admin_scoping import ReadOnlyAdminMixin, SuperuserOnlyAdminMixin, TenantScopedAdmin
from core.models import JobRecord, WorkerHeartbeat

# Tenant and end user are picked by typing (core.admin_autocomplete): a list of every tenant or user does not scale.
TENANT_FILTER = TenantAutocompleteFilter

# The admin in the platform's words (for support staff and privacy officers), not "Django administration"; lazy,
# so each request reads them in its own language (locale/zh_Hans).
admin.site.site_header = _("Memory platform: support and privacy")
admin.site.site_title = _("Memory platform admin")
admin.site.index_title = _("Tenants, end users, their memory and the jobs that keep it")


def pretty(value):
    return format_html("<pre>{}</pre>", json.dumps(value, ensure_ascii=False, indent=2, default=str))


@admin.register(JobRecord)
class JobRecordAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    """The job ledger. Tenant staff see their tenant's jobs; platform-wide jobs (no tenant) only superusers."""

    list_display = ("id", "kind", "status", "tenant", "attempts", "created_at", "finished_at")
    list_filter = ("kind", "status", TENANT_FILTER)
    search_fields = ("idempotency_key",)
    fields = (
        "kind",
        "status",
        "tenant",
        "end_user",
        "idempotency_key",
        "attempts",
        "progress_display",
        "result_display",
        "error",
        "created_at",
        "started_at",
        "finished_at",
    )
    readonly_fields = fields

    @admin.display(description=_("progress"))
    def progress_display(self, obj):
        return pretty(obj.progress)

    @admin.display(description=_("result"))
    def result_display(self, obj):
        return pretty(obj.result)


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(SuperuserOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("hostname", "last_seen")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False
