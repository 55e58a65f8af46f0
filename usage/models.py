"""Usage: hourly aggregates of what a tenant's assistants and end users used, notices of limits
approached, and the optional price table.

Content-free by construction: ids, model names, counts and durations; never message text, never an end user's
external id (it is looked up for display, and is gone with the user). An erased user's rows are merged into the
tenant's "no user" rows (`end_user_id = 0`, usage.services.usage_user_deidentify).
"""

from __future__ import annotations

from django.db import models

from tenancy.models import Tenant
from tenancy.scoping import TenantOwnedModel, TimeStampedModel


class UsageHour(TenantOwnedModel):
    """One hour of one kind of use, for one (assistant, end user, model, purpose). Written only by
    usage.services.usage_flush, as an upsert that adds to the counters."""

    hour = models.DateTimeField(help_text="The hour (UTC) the events happened in.")
    assistant_id = models.BigIntegerField(default=0, help_text="0: no assistant (a tenant-wide job, an API call).")
    end_user_id = models.BigIntegerField(default=0, help_text="0: no end user, or an erased one (de-identified).")
    model = models.CharField(max_length=200, help_text="The model's name; 'offline' for the offline model.")
    kind = models.CharField(max_length=20, help_text="turn (a chat turn and its reply), chat, embedding, tool.")
    purpose = models.CharField(
        max_length=60, help_text="What asked for it: chat (the turn), api, or the job's name (memory_extract, ...)."
    )
    calls = models.PositiveIntegerField(default=0, help_text="Model calls (a turn's reply is one).")
    errors = models.PositiveIntegerField(default=0, help_text="Model calls that failed.")
    prompt_tokens = models.BigIntegerField(default=0)
    completion_tokens = models.BigIntegerField(default=0)
    counted_tokens = models.BigIntegerField(
        default=0, help_text="Of the tokens, those counted here because the provider reported none (offline model)."
    )
    duration_ms = models.BigIntegerField(default=0, help_text="Time spent in model calls, summed.")
    turns = models.PositiveIntegerField(default=0)
    tool_calls = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "hour", "assistant_id", "end_user_id", "model", "kind", "purpose"],
                name="usage_hour_key",
            )
        ]
        indexes = [models.Index(fields=["tenant", "end_user_id", "hour"], name="usage_hour_user")]


class UsageNotice(TenantOwnedModel):
    """A soft limit reached (80% of a hard one): written once per limit and period, which is what makes the
    `usage.threshold` webhook fire once; shown in the admin."""

    limit = models.CharField(max_length=60, help_text="e.g. 'tenant.tokens_per_day', 'user.turns_per_month'.")
    subject_id = models.BigIntegerField(default=0, help_text="The assistant's or end user's id; 0 for the tenant.")
    period_start = models.DateTimeField()
    used = models.BigIntegerField()
    quota = models.BigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "limit", "subject_id", "period_start"], name="usage_notice_once")
        ]
        ordering = ["-created_at"]


class ModelPrice(TimeStampedModel):
    """The price of a model (platform-wide, set by superusers). With none, usage shows no cost."""

    model = models.CharField(max_length=200, unique=True, help_text="The model's name exactly as used.")
    prompt_per_million = models.DecimalField(max_digits=12, decimal_places=4, help_text="Per 1M prompt tokens.")
    completion_per_million = models.DecimalField(max_digits=12, decimal_places=4, help_text="Per 1M completion tokens.")
    currency = models.CharField(max_length=3, default="USD")

    def __str__(self):
        return f"{self.model} ({self.currency})"


class TenantUsage(Tenant):
    """The tenant seen from its usage: the admin page with its quotas, last 30 days and top users (usage.admin).
    A proxy: no table of its own, so the tenant's own admin page stays as it is."""

    class Meta:
        proxy = True
        verbose_name = "tenant usage and quotas"
        verbose_name_plural = "tenant usage and quotas"
