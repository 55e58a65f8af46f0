"""Admin for tools: a tenant's HTTP tools (add, change, delete), and the content-free log of tool calls."""

from __future__ import annotations

import secrets

from django import forms
from django.contrib import admin

from core.admin_scoping import ReadOnlyAdminMixin, TenantConsistentForm, TenantScopedAdmin
from core.exceptions import ApplicationError
from tools.models import Tool, ToolAssistant, ToolCallLog
from tools.services.registry import tool_name_check, tool_parameters_check
from webhooks.services import webhook_url_check


class ToolForm(TenantConsistentForm):
    url = forms.URLField(max_length=500, assume_scheme="https", help_text="http(s) URL receiving the calls.")

    class Meta:
        model = Tool
        fields = ["tenant", "name", "description", "parameters", "url", "timeout_seconds", "is_active"]

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


class ToolAssistantInline(admin.TabularInline):
    """The assistants that may call the tool; only the tool's tenant's assistants are accepted."""

    model = ToolAssistant
    fields = ("assistant",)
    extra = 1


@admin.register(Tool)
class ToolAdmin(TenantScopedAdmin):
    form = ToolForm
    inlines = [ToolAssistantInline]
    list_display = ("name", "tenant", "url", "timeout_seconds", "is_active", "created_at")
    list_filter = ("is_active",)
    readonly_fields = ("secret", "created_at", "updated_at")

    def save_model(self, request, obj, form, change):
        if not obj.secret:
            obj.secret = "tlsec_" + secrets.token_urlsafe(32)
        super().save_model(request, obj, form, change)

    def save_formset(self, request, form, formset, change):
        rows = formset.save(commit=False)
        for row in rows:
            if row.assistant.tenant_id != form.instance.tenant_id:
                continue  # another tenant's assistant is never linked
            row.tenant_id = form.instance.tenant_id
            row.save()
        for row in formset.deleted_objects:
            row.delete()


@admin.register(ToolCallLog)
class ToolCallLogAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    """Which tool, how it ended, how long, whose turn: never the arguments or the result."""

    list_display = ("created_at", "tool", "kind", "status", "duration_ms", "end_user", "assistant", "tenant")
    list_filter = ("status", "kind")
    readonly_fields = ("created_at", "tool", "kind", "status", "duration_ms", "end_user", "assistant")
    exclude = ("tenant",)

    def has_change_permission(self, request, obj=None):
        return False
