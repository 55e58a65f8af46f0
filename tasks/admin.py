"""Admin for working memory (task types and states) and session scratch."""

from __future__ import annotations

from django.contrib import admin

from core.admin_autocomplete import EndUserAutocompleteFilter, TenantAutocompleteFilter
from core.admin_scoping import ReadOnlyAdminMixin, TenantScopedAdmin
from tasks.models import SessionScratch, TaskState, TaskType

TENANT_FILTER = TenantAutocompleteFilter  # picked by typing, not from a list of every tenant


@admin.register(TaskType)
class TaskTypeAdmin(TenantScopedAdmin):
    list_display = ("name", "assistant", "tenant", "created_at")
    list_filter = (TENANT_FILTER,)
    search_fields = ("name",)
    autocomplete_fields = ("assistant",)


@admin.register(TaskState)
class TaskStateAdmin(TenantScopedAdmin):
    list_display = ("task_name", "state", "end_user", "tenant", "expires_at", "updated_at")
    list_filter = (TENANT_FILTER, EndUserAutocompleteFilter, "state")
    search_fields = ("task_name", "end_user__external_id")
    autocomplete_fields = ("end_user", "session", "task_type")
    readonly_fields = ("version", "created_at", "updated_at")


@admin.register(SessionScratch)
class SessionScratchAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = ("key", "session", "end_user", "tenant", "expires_at")
    list_filter = (TENANT_FILTER,)
    search_fields = ("key",)
