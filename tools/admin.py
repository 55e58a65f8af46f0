"""Admin for tools: a tenant's HTTP tools (add, change, delete), and the content-free log of tool calls."""

from __future__ import annotations

import secrets

from django import forms
from django.contrib import admin

from core.admin_scoping import ReadOnlyAdminMixin, TenantConsistentForm, TenantScopedAdmin
from core.exceptions import ApplicationError
from tools.models import Tool, ToolCallLog
from tools.services.registry import tool_name_check, tool_parameters_check
from webhooks.services import webhook_url_check


class ToolForm(TenantConsistentForm):
    url = forms.URLField(max_length=500, assume_scheme="https", help_text="http(s) URL receiving the calls.")

    class Meta:
        model = Tool
        fields = ["tenant", "name", "description", "parameters", "url", "timeout_seconds", "assistants", "is_active"]

    def _checked(self, check, field: str):
        try:
            return check(self.cleaned_data[field])
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from exc

    def clean_name(self):
        return self._checked(tool_name_check, "name")

    def clean_url(self):
        return self._checked(webhook_url_check, "url")

    def clean_parameters(self):
        return self._checked(tool_parameters_check, "parameters")


@admin.register(Tool)
class ToolAdmin(TenantScopedAdmin):
    form = ToolForm
    list_display = ("name", "tenant", "url", "timeout_seconds", "is_active", "created_at")
    list_filter = ("is_active",)
    readonly_fields = ("secret", "created_at", "updated_at")
    filter_horizontal = ("assistants",)

    def save_model(self, request, obj, form, change):
        if not obj.secret:
            obj.secret = "tlsec_" + secrets.token_urlsafe(32)
        super().save_model(request, obj, form, change)


@admin.register(ToolCallLog)
class ToolCallLogAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    """Which tool, how it ended, how long, whose turn: never the arguments or the result."""

    list_display = ("created_at", "tool", "kind", "status", "duration_ms", "end_user", "assistant", "tenant")
    list_filter = ("status", "kind")
    readonly_fields = ("created_at", "tool", "kind", "status", "duration_ms", "end_user", "assistant")
    exclude = ("tenant",)

    def has_change_permission(self, request, obj=None):
        return False
