"""Admin for webhooks: endpoints (add, change, re-enable after failures) and the delivery log (read-only)."""

from __future__ import annotations

import json
import secrets

from django import forms
from django.contrib import admin, messages
from django.template.defaultfilters import pluralize
from django.utils.html import format_html_join
from django.utils.translation import gettext_lazy as _

from core.admin_scoping import ReadOnlyAdminMixin, TenantConsistentForm, TenantScopedAdmin
from core.exceptions import ApplicationError
from webhooks.models import EVENTS, WebhookDelivery, WebhookEndpoint
from webhooks.services import webhook_delivery_resend, webhook_endpoint_enable, webhook_events_check, webhook_url_check


class WebhookEndpointForm(TenantConsistentForm):
    url = forms.URLField(
        max_length=500,
        assume_scheme="https",  # what Django 6 assumes; says so now
        help_text="http(s) URL that receives the events as JSON POSTs.",
    )
    events = forms.MultipleChoiceField(choices=[(e, e) for e in EVENTS], widget=forms.CheckboxSelectMultiple)

    class Meta:
        model = WebhookEndpoint
        fields = ["tenant", "url", "events", "include_content", "description", "is_active"]

    def clean_url(self):
        try:
            return webhook_url_check(self.cleaned_data["url"])
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from exc

    def clean_events(self):
        try:
            return webhook_events_check(list(self.cleaned_data["events"]))
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from exc


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(TenantScopedAdmin):
    form = WebhookEndpointForm
    list_display = ("url", "tenant", "event_list", "is_active", "disabled_at", "consecutive_failures", "created_at")
    list_filter = ("is_active", ("disabled_at", admin.EmptyFieldListFilter))
    readonly_fields = ("secret", "disabled_at", "consecutive_failures", "created_at", "updated_at")
    actions = ["re_enable"]

    @admin.display(description=_("events"))
    def event_list(self, obj):
        return ", ".join(obj.events)

    def save_model(self, request, obj, form, change):
        if not obj.secret:
            obj.secret = "whsec_" + secrets.token_urlsafe(32)
        super().save_model(request, obj, form, change)

    @admin.action(description=_("Re-enable and send the held events"))
    def re_enable(self, request, queryset):
        sent, enabled = 0, queryset.count()
        for endpoint in queryset:
            sent += webhook_endpoint_enable(tenant=endpoint.tenant, endpoint=endpoint)
        self.message_user(
            request,
            f"Re-enabled {enabled} endpoint{pluralize(enabled)}; {sent} held event{pluralize(sent)} queued.",
            messages.SUCCESS,
        )


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = (
        "id",
        "event",
        "endpoint",
        "status",
        "attempts",
        "last_status_code",
        "last_error",
        "delivered_at",
        "created_at",
    )
    list_filter = ("status", "event")
    readonly_fields = (
        "endpoint",
        "event_id",
        "event",
        "payload_json",
        "status",
        "attempts",
        "next_attempt_at",
        "delivered_at",
        "last_status_code",
        "last_error",
        "attempt_log",
        "created_at",
    )
    exclude = ("payload", "log", "tenant")
    actions = ["resend"]

    @admin.display(description=_("payload (ids and kinds; content is never stored)"))
    def payload_json(self, obj):
        return json.dumps(obj.payload, ensure_ascii=False)

    @admin.display(description=_("attempts"))
    def attempt_log(self, obj):
        return format_html_join(
            "\n",
            "<div>{} — #{}: {} {} ({} ms)</div>",
            (
                (e.get("at"), e.get("attempt"), e.get("status") or "", e.get("error") or "ok", e.get("ms"))
                for e in obj.log or []
            ),
        )

    @admin.action(description=_("Send again"))
    def resend(self, request, queryset):
        count = 0
        for delivery in queryset.exclude(status=WebhookDelivery.Status.SUCCEEDED):
            webhook_delivery_resend(tenant=delivery.tenant, delivery=delivery)
            count += 1
        self.message_user(
            request, f"{count} {'delivery' if count == 1 else 'deliveries'} queued again.", messages.SUCCESS
        )

    def has_change_permission(self, request, obj=None):
        return False
