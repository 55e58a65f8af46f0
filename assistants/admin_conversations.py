"""The admin of conversations (imported by assistants.admin, which Django discovers): sessions and their
messages as read-only history, feedback, and erasure receipts looked up by a user's id."""

from __future__ import annotations

import json
from typing import cast

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from assistants.services.privacy import user_id_hash
from core.admin_autocomplete import EndUserAutocompleteFilter, TenantAutocompleteFilter
from core.admin_scoping import (
    ReadOnlyAdminMixin,
    TenantScopedAdmin,
    actor_label,
    staff_tenant_ids,
)
from tenancy.models import (
    ChatSession,
    EndUser,
    ErasureReceipt,
    Feedback,
    Message,
    Tenant,
)

TENANT_FILTER = TenantAutocompleteFilter  # picked by typing, not from a list of every tenant


def short(text, n=80) -> str:
    return Truncator(text or "").chars(n)


# --- Sessions and messages (read-only history) --------------------------------------------------------------


class MessageInline(admin.TabularInline):
    model = Message
    fields = ("created_at", "role", "content", "token_count")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ("created_at", "id")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(ChatSession)
class ChatSessionAdmin(TenantScopedAdmin):
    list_display = ("__str__", "end_user", "assistant", "tenant", "temporary", "expires_at", "last_activity_at")
    list_filter = (TENANT_FILTER, EndUserAutocompleteFilter, "temporary")
    search_fields = ("title", "end_user__external_id")
    autocomplete_fields = ("end_user", "assistant")
    readonly_fields = (
        "summary",
        "summary_through",
        "summary_version",
        "pinned_facts_display",
        "last_activity_at",
        "created_at",
        "temporary",
        "expires_at",
    )
    exclude = ("pinned_facts",)
    inlines = (MessageInline,)

    @admin.display(description=_("pinned facts"))
    def pinned_facts_display(self, obj):
        facts = obj.pinned_facts or {}
        if not facts:
            return "-"
        return format_html("<pre>{}</pre>", json.dumps(facts, ensure_ascii=False, indent=2))


@admin.register(Message)
class MessageAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = ("id", "role", "short_content", "session", "end_user", "tenant", "created_at")
    list_filter = (TENANT_FILTER, EndUserAutocompleteFilter, "role")
    search_fields = ("content",)
    list_select_related = ("session", "end_user", "tenant")

    @admin.display(description=_("content"))
    def short_content(self, obj):
        return short(obj.content)


@admin.register(Feedback)
class FeedbackAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = ("id", "rating", "message", "end_user", "tenant", "created_at")
    list_filter = (TENANT_FILTER, EndUserAutocompleteFilter, "rating")


class ErasureLookupForm(forms.Form):
    tenant = forms.ModelChoiceField(queryset=Tenant.objects.none(), empty_label=None)
    external_id = forms.CharField(
        label="External id",
        max_length=200,
        strip=True,
        help_text="The integrator's id of the person, exactly as it was used.",
        widget=forms.TextInput(attrs={"autocomplete": "off", "size": 40}),
    )

    def offer(self, tenants: QuerySet[Tenant]) -> None:
        """Let the form choose among `tenants` (the staff member's own) only."""
        cast(forms.ModelChoiceField, self.fields["tenant"]).queryset = tenants


@admin.register(ErasureReceipt)
class ErasureReceiptAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = ("__str__", "tenant", "user_id_hash", "requested_by_label", "reason", "job", "completed_at")
    list_filter = (TENANT_FILTER, ("completed_at", admin.DateFieldListFilter))
    search_fields = ("user_id_hash", "requested_by", "reason")
    # one label for the requester everywhere (list, receipt, lookup): "staff: support1", never the stored "admin:…"
    fields = (
        "tenant",
        "user_id_hash",
        "requested_by_label",
        "reason",
        "counts_display",
        "job",
        "created_at",
        "completed_at",
    )
    readonly_fields = fields
    change_list_template = "admin/tenancy/erasurereceipt/change_list.html"

    @admin.display(description=_("requested by"), ordering="requested_by")
    def requested_by_label(self, obj):
        kind, who = actor_label(obj.requested_by)
        return f"{kind}: {who}" if who else kind

    def get_urls(self):
        return [
            path("lookup/", self.admin_site.admin_view(self.lookup_view), name="tenancy_erasurereceipt_lookup")
        ] + super().get_urls()

    def lookup_view(self, request):
        """ "Was this external id erased, when, by whom?", answered from the receipts, which keep only the id's
        hash: the id is hashed here and never stored, logged or put in a URL (the form is a POST)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        allowed = staff_tenant_ids(request)  # None: a superuser, every tenant
        tenants = Tenant.objects.all() if allowed is None else Tenant.objects.filter(pk__in=allowed)
        form = ErasureLookupForm(request.POST or None)
        form.offer(tenants.order_by("slug"))
        answer = None
        if request.method == "POST" and form.is_valid():
            tenant, hashed = form.cleaned_data["tenant"], user_id_hash(form.cleaned_data["external_id"])
            receipts = list(
                ErasureReceipt.objects.for_tenant(tenant).filter(user_id_hash=hashed).order_by("-completed_at", "-id")
            )
            pending = (
                EndUser.objects.for_tenant(tenant)
                .filter(external_id=form.cleaned_data["external_id"], erasure_requested_at__isnull=False)
                .first()
            )
            answer = {
                "tenant": tenant,
                "hash": hashed,
                "pending": pending,
                "receipts": [{"receipt": r, "requested_by": self.requested_by_label(r)} for r in receipts],
            }
            form = ErasureLookupForm(initial={"tenant": tenant})  # the id is not echoed back into the page
            form.offer(tenants.order_by("slug"))
        context = {
            **self.admin_site.each_context(request),
            "title": "Erasure lookup",
            "form": form,
            "answer": answer,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/tenancy/erasurereceipt/lookup.html", context)

    @admin.display(description=_("rows deleted per table"))
    def counts_display(self, obj):
        return format_html_join("", "<div><code>{}</code>: {}</div>", sorted((obj.counts or {}).items()))
