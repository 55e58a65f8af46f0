"""Admin for working memory (task types and states), session scratch, and the job ledger."""
from __future__ import annotations

import json

from django.contrib import admin
from django.contrib.admin import RelatedOnlyFieldListFilter
from django.utils.html import format_html

from assistants.admin_scoping import ReadOnlyAdminMixin, SuperuserOnlyAdminMixin, TenantScopedAdmin
from tasks.models import JobRecord, SessionScratch, TaskState, TaskType, WorkerHeartbeat

TENANT_FILTER = ("tenant", RelatedOnlyFieldListFilter)


def pretty(value):
    return format_html("<pre>{}</pre>", json.dumps(value, ensure_ascii=False, indent=2, default=str))


@admin.register(TaskType)
class TaskTypeAdmin(TenantScopedAdmin):
    list_display = ("name", "assistant", "tenant", "created_at")
    list_filter = (TENANT_FILTER,)
    search_fields = ("name",)
    autocomplete_fields = ("assistant",)


@admin.register(TaskState)
class TaskStateAdmin(TenantScopedAdmin):
    list_display = ("task_name", "state", "end_user", "tenant", "expires_at", "updated_at")
    list_filter = (TENANT_FILTER, "state")
    search_fields = ("task_name", "end_user__external_id")
    autocomplete_fields = ("end_user", "session", "task_type")
    readonly_fields = ("version", "created_at", "updated_at")


@admin.register(SessionScratch)
class SessionScratchAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = ("key", "session", "end_user", "tenant", "expires_at")
    list_filter = (TENANT_FILTER,)
    search_fields = ("key",)


@admin.register(JobRecord)
class JobRecordAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    """The job ledger. Tenant staff see their tenant's jobs; platform-wide jobs (no tenant) only superusers."""

    list_display = ("id", "kind", "status", "tenant", "attempts", "created_at", "finished_at")
    list_filter = ("kind", "status", TENANT_FILTER)
    search_fields = ("idempotency_key",)
    fields = ("kind", "status", "tenant", "end_user", "idempotency_key", "attempts", "progress_display",
              "result_display", "error", "created_at", "started_at", "finished_at")
    readonly_fields = fields

    @admin.display(description="progress")
    def progress_display(self, obj):
        return pretty(obj.progress)

    @admin.display(description="result")
    def result_display(self, obj):
        return pretty(obj.result)


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(SuperuserOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("hostname", "last_seen")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False
