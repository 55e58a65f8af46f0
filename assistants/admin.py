"""Admin for tenants (with their memory policy), end users (erase, export), assistants, API keys, sessions."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.http import Http404
from django.template.defaultfilters import pluralize
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

# Importing it registers the read-only history (sessions, messages, feedback, erasure receipts).
from assistants.admin_conversations import TENANT_FILTER
from assistants.admin_policy import TTL_FIELDS, TenantPolicyFormMixin
from assistants.admin_user_links import EndUserLinksMixin
from assistants.services.privacy import user_erase_preview, user_erase_request, user_export_file
from assistants.services.tenants import api_key_create, api_key_revoke
from core.admin_scoping import (
    SuperuserOnlyAdminMixin,
    TenantConsistentForm,
    TenantScopedAdmin,
)
from core.downloads import file_download
from core.exceptions import ApplicationError
from memory.models import MemoryNote
from memory.services.notes.health import memory_health_get
from tenancy.identifiers import external_id_shown
from tenancy.models import (
    ApiKey,
    Assistant,
    EndUser,
    Tenant,
    TenantStaff,
)


def actor_of(request) -> str:
    return f"admin:{request.user.get_username()}"


# --- Tenants ------------------------------------------------------------------------------------------------


class TenantForm(TenantPolicyFormMixin, TenantConsistentForm):
    class Meta:
        model = Tenant
        fields = "__all__"

    def clean_ttl_days_by_kind(self):
        value = self.cleaned_data["ttl_days_by_kind"]
        if not isinstance(value, dict):
            raise forms.ValidationError('Write the TTLs as {"kind": days, ...}, e.g. {"plan": 30}.')
        known = set(MemoryNote.Kind.values) | {"whim"}
        for kind, days in value.items():
            if kind not in known:
                raise forms.ValidationError(f"'{kind}' is not a note kind; use one of: {', '.join(sorted(known))}.")
            if not isinstance(days, int) or isinstance(days, bool) or days < 1:
                raise forms.ValidationError(f"The TTL of '{kind}' must be a whole number of days, at least 1.")
        return value

    def clean(self):
        data = super().clean()
        for name in ("review_confidence_threshold", "decay_rate_per_day", "decay_floor", "archive_importance_floor"):
            value = data.get(name)
            if value is not None and not 0 <= value <= 1:
                self.add_error(name, "Use a number between 0 and 1.")
        return data


class TenantStaffInline(admin.TabularInline):
    model = TenantStaff
    extra = 0
    raw_id_fields = ("user",)
    verbose_name_plural = _("staff who may moderate this tenant in the admin")


@admin.register(Tenant)
class TenantAdmin(TenantScopedAdmin):
    tenant_lookup = "pk"
    form = TenantForm
    list_display = ("slug", "name", "health_link", "created_at")
    search_fields = ("slug", "name")
    readonly_fields = ("health_link", "created_at", "updated_at")
    fieldsets = (
        (None, {"fields": ("slug", "name", "health_link")}),
        (
            _("Short-term memory: window and token budgets"),
            {
                "fields": (
                    "window_turns",
                    "context_limit_tokens",
                    "budget_pinned_tokens",
                    "budget_memories_tokens",
                    "budget_task_tokens",
                    "budget_summary_tokens",
                    "budget_window_tokens",
                    "reply_reserve_tokens",
                    "summary_trigger_messages",
                )
            },
        ),
        (
            _("Long-term memory: how long each kind of note is kept, review, recall"),
            {
                "fields": (
                    *TTL_FIELDS,
                    "review_confidence_threshold",
                    "inferred_policy",
                    "recall_all_below",
                    "recall_top_k",
                    "recall_min_relevance",
                )
            },
        ),
        (_("Personal identifiers (PII)"), {"fields": ("pii_policy",)}),
        (_("Experience memory: sharing what users liked"), {"fields": ("experience_sharing", "experience_min_users")}),
        (
            _("Decay and forgetting"),
            {
                "fields": (
                    "decay_rate_per_day",
                    "decay_floor",
                    "unrecalled_days_before_decay",
                    "archive_importance_floor",
                    "task_ttl_days",
                )
            },
        ),
        (_("Models"), {"fields": ("chat_model", "embedding_model")}),
        (_("Temporary chats"), {"fields": ("temporary_chat_ttl_hours",)}),
        (_("Background work"), {"fields": ("bulk_jobs_max",)}),
        (_("Advanced: note lifetimes as JSON"), {"classes": ("collapse",), "fields": ("ttl_days_by_kind",)}),
        (_("Record"), {"classes": ("collapse",), "fields": ("created_at", "updated_at")}),
    )

    def get_inlines(self, request, obj):
        return [TenantStaffInline] if request.user.is_superuser else []

    def has_add_permission(self, request):
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        return fields + ["slug"] if not request.user.is_superuser else fields

    @admin.display(description=_("memory health"))
    def health_link(self, obj):
        if not obj or not obj.pk:
            return "-"
        return format_html(
            '<a href="{}">Memory health dashboard</a>', reverse("admin:tenancy_tenant_health", args=[obj.pk])
        )

    def get_urls(self):
        return [
            path(
                "<path:object_id>/health/",
                self.admin_site.admin_view(self.health_view),
                name="tenancy_tenant_health",
            )
        ] + super().get_urls()

    def health_view(self, request, object_id):
        tenant = self.get_object(request, object_id)
        if tenant is None or not self.has_view_permission(request, tenant):
            raise Http404("No such tenant.")
        context = {
            **self.admin_site.each_context(request),
            "title": f"Memory health: {tenant}",
            "tenant": tenant,
            "health": memory_health_get(tenant=tenant),
            "opts": self.model._meta,
            "inbox_url": reverse("admin:memory_reviewinboxnote_changelist") + f"?tenant__id__exact={tenant.pk}",
        }
        return TemplateResponse(request, "admin/tenancy/tenant/health.html", context)


@admin.register(TenantStaff)
class TenantStaffAdmin(SuperuserOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("user", "tenant", "created_at")
    list_filter = (TENANT_FILTER,)
    raw_id_fields = ("user",)


# --- End users: erasure and export ---------------------------------------------------------------------------


class ErasureFilter(admin.SimpleListFilter):
    title = _("erasure")
    parameter_name = "erasure"

    def lookups(self, request, model_admin):
        return (("requested", "Erasure in progress"), ("none", "No erasure requested"))

    def queryset(self, request, queryset):
        if self.value() == "requested":
            return queryset.filter(erasure_requested_at__isnull=False)
        if self.value() == "none":
            return queryset.filter(erasure_requested_at__isnull=True)
        return queryset


@admin.register(EndUser)
class EndUserAdmin(EndUserLinksMixin, TenantScopedAdmin):
    list_display = ("shown_id", "display_name", "tenant", "memory_enabled", "erasure_requested_at", "created_at")
    list_filter = (TENANT_FILTER, ErasureFilter, "memory_enabled")
    search_fields = ("external_id", "display_name")
    # memory_enabled is the person's own switch (web chat, API): staff see it but do not flip it for them.
    readonly_fields = ("data_links", "erasure_requested_at", "memory_enabled", "created_at", "updated_at")
    raw_id_fields = ("user",)
    actions = ("erase_users", "export_user")

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        if obj is not None:
            fields += ["tenant", "shown_id"]
        return fields + ["user"] if not request.user.is_superuser else fields

    def get_exclude(self, request, obj=None):
        # An existing id is shown escaped (shown_id), never as the raw text it may disguise itself with.
        return ["external_id"] if obj is not None else super().get_exclude(request, obj)

    @admin.display(description=_("external id"), ordering="external_id")
    def shown_id(self, obj):
        return external_id_shown(obj.external_id)

    def has_delete_permission(self, request, obj=None):
        return False  # an end user leaves through "Erase all data of this user", which leaves a receipt

    @admin.action(description=_("Erase all data of this user"), permissions=["change"])
    def erase_users(self, request, queryset):
        users = list(queryset.select_related("tenant"))
        reason = " ".join(request.POST.get("reason", "").split())
        reason_error = ""
        if request.POST.get("confirm") == "yes" and not reason:
            reason_error = "Write the reason for the erasure (it is kept on the receipt): nothing was erased."
        elif request.POST.get("confirm") == "yes":
            jobs = []
            for user in users:
                try:
                    jobs.append(
                        user_erase_request(
                            tenant=user.tenant, end_user=user, requested_by=actor_of(request), reason=reason
                        )
                    )
                except ApplicationError as exc:
                    self.message_user(request, f"{user}: {exc.message}", messages.ERROR)
            if jobs:
                ledger = reverse("admin:core_jobrecord_changelist") + "?kind=user_erase"
                self.message_user(
                    request,
                    format_html(
                        'Erasure queued for {} user{}: job{} {}. Progress is in the <a href="{}">job ledger</a>; '
                        "each finished erasure leaves an erasure receipt.",
                        len(jobs),
                        pluralize(len(jobs)),
                        pluralize(len(jobs)),
                        ", ".join(str(j.pk) for j in jobs),
                        ledger,
                    ),
                    messages.SUCCESS,
                )
            return None
        previews = [(user, user_erase_preview(tenant=user.tenant, end_user=user)) for user in users]
        totals: dict[str, int] = {}
        for _user, counts in previews:
            for kind, n in counts.items():
                totals[kind] = totals.get(kind, 0) + n
        context = {
            **self.admin_site.each_context(request),
            "title": "Erase all data of these users?",
            "previews": previews,
            "totals": sorted(totals.items()),
            "opts": self.model._meta,
            "queryset": users,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "action": "erase_users",
            "reason": reason,
            "reason_error": reason_error,
        }
        return TemplateResponse(request, "admin/tenancy/enduser/erase_confirmation.html", context)

    @admin.action(description=_("Export all data of this user (JSON)"), permissions=["view"])
    def export_user(self, request, queryset):
        users = list(queryset.select_related("tenant")[:2])
        if len(users) != 1:
            self.message_user(request, "Select exactly one user to export.", messages.ERROR)
            return None
        user = users[0]
        return file_download(
            request,
            user_export_file(tenant=user.tenant, end_user=user),
            content_type="application/json",
            filename=f"export-{user.tenant.slug}-{user.pk}.json",
            whole_below=settings.EXPORT_MEMORY_BYTES,
        )


@admin.register(Assistant)
class AssistantAdmin(TenantScopedAdmin):
    list_display = ("name", "tenant", "chat_model", "created_at")
    list_filter = (TENANT_FILTER,)
    search_fields = ("name",)


# --- API keys -----------------------------------------------------------------------------------------------


class ApiKeyAddForm(TenantConsistentForm):
    class Meta:
        model = ApiKey
        fields = ("tenant", "name")


@admin.register(ApiKey)
class ApiKeyAdmin(TenantScopedAdmin):
    list_display = ("name", "prefix", "tenant", "revoked_at", "last_used_at", "created_at")
    list_filter = (TENANT_FILTER, ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("name", "prefix")
    readonly_fields = ("prefix", "revoked_at", "last_used_at", "created_at")
    fields = ("tenant", "name", "prefix", "revoked_at", "last_used_at", "created_at")
    actions = ("revoke_keys",)

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = ApiKeyAddForm
            kwargs["fields"] = ("tenant", "name")
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        return ("tenant", "name") if obj is None else self.fields

    def get_readonly_fields(self, request, obj=None):
        return self.readonly_fields + (("tenant",) if obj is not None else ())

    def save_model(self, request, obj, form, change):
        if change:
            return super().save_model(request, obj, form, change)
        key, raw = api_key_create(tenant=form.cleaned_data["tenant"], name=form.cleaned_data["name"])
        obj.pk, obj.prefix, obj.hashed_key, obj.created_at = key.pk, key.prefix, key.hashed_key, key.created_at
        obj._state.adding = False
        self.message_user(request, f"The new API key, shown only this once (copy it now): {raw}", messages.WARNING)

    @admin.action(description=_("Revoke the selected keys"), permissions=["change"])
    def revoke_keys(self, request, queryset):
        keys = list(queryset.select_related("tenant"))
        for key in keys:
            api_key_revoke(tenant=key.tenant, key=key)
        self.message_user(
            request, f"Revoked {len(keys)} key{pluralize(len(keys))}; they no longer authenticate.", messages.SUCCESS
        )
