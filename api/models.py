"""What the REST API stores itself: the results of POST /api/v1/chat/ requests sent with an Idempotency-Key."""

from __future__ import annotations

from django.db import models

from tenancy.scoping import TenantOwnedModel


class IdempotencyRecord(TenantOwnedModel):
    """One Idempotency-Key of one tenant: the request it came with and, once finished, the response it got.

    A retry with the same key and the same body gets the stored response instead of a second chat turn; the same
    key with a different body is refused (409). A row without a response is a request still being answered."""

    key = models.CharField(max_length=255, help_text="The client's Idempotency-Key header.")
    api_key = models.ForeignKey("tenancy.ApiKey", null=True, on_delete=models.SET_NULL, related_name="+")
    request_hash = models.CharField(max_length=64, help_text="SHA-256 of the method, path and body.")
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    session = models.ForeignKey(
        "tenancy.ChatSession",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        help_text="Deleted with the session (and with an erased user).",
    )

    class Meta(TenantOwnedModel.Meta):
        constraints = [models.UniqueConstraint(fields=["tenant", "key"], name="uniq_api_idempotency_key")]

    def __str__(self):
        return f"{self.key} ({self.response_status or 'in progress'})"
