"""The platform's own records: the ledger of background jobs and the workers' heartbeats."""

from __future__ import annotations

from django.db import models

from tenancy.scoping import TimeStampedModel


class JobRecord(TimeStampedModel):
    """The ledger of background jobs, shown in the admin and the API. Tenant is null for platform-wide jobs."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    tenant = models.ForeignKey("tenancy.Tenant", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    end_user = models.ForeignKey("tenancy.EndUser", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    kind = models.CharField(max_length=60, db_index=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED, db_index=True)
    idempotency_key = models.CharField(max_length=200, blank=True, db_index=True)
    progress = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Outbox rows (kind 'dispatch'): when the job is sent again unless it completed by then. A running "
        "job's worker renews it every JOB_LEASE_SECONDS / 3; a sent job waits DISPATCH_START_SECONDS.",
    )

    class Meta:
        db_table = "tasks_jobrecord"  # created by the tasks app; moved here with its table unchanged
        ordering = ["-created_at"]
        verbose_name = "background job"
        verbose_name_plural = "background jobs"
        indexes = [
            models.Index(
                fields=["lease_expires_at"],
                condition=models.Q(kind="dispatch", status__in=["queued", "running"]),
                name="job_outbox_due",
            )
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "idempotency_key"], condition=~models.Q(idempotency_key=""), name="uniq_job_key"
            )
        ]

    def __str__(self):
        return f"{self.kind} #{self.pk} ({self.status})"


class WorkerHeartbeat(models.Model):
    """Written by every Celery worker every few seconds; /healthz reads it (works on any broker)."""

    hostname = models.CharField(max_length=200, unique=True)
    last_seen = models.DateTimeField()

    class Meta:
        db_table = "tasks_workerheartbeat"  # created by the tasks app; moved here with its table unchanged
