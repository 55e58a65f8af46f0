"""Webhook endpoints of a tenant and the log of deliveries to them (docs/webhooks.md)."""

from __future__ import annotations

import uuid

from django.db import models

from tenancy.scoping import TenantOwnedModel

EVENTS = (
    "memory.created",
    "memory.updated",
    "memory.superseded",
    "memory.forgotten",
    "user.erased",
    "import.completed",
    "task.completed",
    "usage.threshold",  # 80% of a usage limit reached, once per limit and period (usage.services)
)


class WebhookEndpoint(TenantOwnedModel):
    url = models.URLField(max_length=500, help_text="http(s) URL that receives the events as JSON POSTs.")
    events = models.JSONField(default=list, help_text="Event types sent here, e.g. ['memory.created'].")
    secret = models.CharField(max_length=80, help_text="Signs every delivery (X-Signature, HMAC-SHA256).")
    include_content = models.BooleanField(
        default=False, help_text="Send note content and the user's external_id in payloads. Off: ids and kinds only."
    )
    description = models.CharField(max_length=200, blank=True)
    is_active = models.BooleanField(default=True, help_text="The tenant's switch: off sends nothing.")
    disabled_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Set when deliveries kept failing; events are held until staff re-enable the endpoint, then sent.",
    )
    consecutive_failures = models.PositiveIntegerField(
        default=0, help_text="Deliveries in a row that failed every retry; WEBHOOK_DISABLE_AFTER disables it."
    )

    class Meta:
        indexes = [models.Index(fields=["tenant", "is_active"])]

    def __str__(self):
        return self.url


class WebhookDelivery(TenantOwnedModel):
    class Status(models.TextChoices):
        PENDING = "pending"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        HELD = "held"  # the endpoint was disabled: sent when staff re-enable it

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event_id = models.UUIDField(
        default=uuid.uuid4,
        editable=False,
        db_index=True,
        help_text="The event's id: the same on every retry, so a receiver can dedupe.",
    )
    event = models.CharField(max_length=40)
    payload = models.JSONField(
        help_text="The body without content (ids and kinds); content is added at "
        "delivery time when the endpoint asks for it, and never stored here."
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True, db_index=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.IntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    log = models.JSONField(default=list, help_text="One entry per attempt: time, HTTP status or error, ms.")

    class Meta:
        indexes = [models.Index(fields=["status", "next_attempt_at"])]
        ordering = ["-id"]
        verbose_name_plural = "webhook deliveries"
