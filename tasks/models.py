"""Working memory (task types and task states), session scratch, and the ledger of background jobs."""
from __future__ import annotations

from django.db import models

from core.models import TenantOwnedModel, TimeStampedModel


class TaskType(TenantOwnedModel):
    """A kind of task an assistant can run, defined as data: its required fields and what to produce."""

    assistant = models.ForeignKey("assistants.Assistant", on_delete=models.CASCADE, related_name="task_types")
    name = models.CharField(max_length=100)
    trigger_phrases = models.JSONField(default=list, blank=True, help_text="Phrases that start this task.")
    required_fields = models.JSONField(
        default=list, help_text='[{"name": "预算", "description": "...", "aliases": ["budget"]}]'
    )
    completion_prompt = models.TextField(blank=True, help_text="What to produce when every field is collected.")

    class Meta(TenantOwnedModel.Meta):
        constraints = [models.UniqueConstraint(fields=["assistant", "name"], name="uniq_task_type_name")]

    def __str__(self):
        return self.name


class TaskState(TenantOwnedModel):
    class State(models.TextChoices):
        COLLECTING_INFO = "collecting_info"
        PLANNING = "planning"
        WAITING_CONFIRM = "waiting_confirm"
        COMPLETED = "completed"
        PAUSED = "paused"
        CANCELLED = "cancelled"
        EXPIRED = "expired"

    end_user = models.ForeignKey("assistants.EndUser", on_delete=models.CASCADE, related_name="task_states")
    session = models.ForeignKey(
        "assistants.ChatSession", null=True, blank=True, on_delete=models.SET_NULL, related_name="task_states"
    )
    task_type = models.ForeignKey(TaskType, null=True, blank=True, on_delete=models.SET_NULL, related_name="states")
    task_name = models.CharField(max_length=100)
    state = models.CharField(max_length=20, choices=State.choices, default=State.COLLECTING_INFO, db_index=True)
    required_fields = models.JSONField(default=list)
    collected = models.JSONField(default=dict, blank=True, help_text="field -> {value, message_id}.")
    pending_fields = models.JSONField(default=list, blank=True)
    step_history = models.JSONField(default=list, blank=True)
    result = models.TextField(blank=True)
    version = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField(null=True, blank=True, db_index=True)

    def __str__(self):
        return f"{self.task_name} ({self.state})"


class SessionScratch(TenantOwnedModel):
    """Intermediate results within a session (e.g. a tool call's output), reused instead of recomputed."""

    session = models.ForeignKey("assistants.ChatSession", on_delete=models.CASCADE, related_name="scratch")
    end_user = models.ForeignKey("assistants.EndUser", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200)
    value = models.JSONField()
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [models.UniqueConstraint(fields=["session", "key"], name="uniq_scratch_key")]


class JobRecord(TimeStampedModel):
    """The ledger of background jobs, shown in the admin and the API. Tenant is null for platform-wide jobs."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    tenant = models.ForeignKey("assistants.Tenant", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    end_user = models.ForeignKey(
        "assistants.EndUser", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
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
        null=True, blank=True,
        help_text="Outbox rows (kind 'dispatch'): when the job is sent again unless it completed by then. A running "
                  "job's worker renews it every JOB_LEASE_SECONDS / 3; a sent job waits DISPATCH_START_SECONDS.")

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["lease_expires_at"], condition=models.Q(kind="dispatch",
                                status__in=["queued", "running"]), name="job_outbox_due")]
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
