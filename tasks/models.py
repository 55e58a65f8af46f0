"""Working memory (task types and task states) and session scratch. (The job ledger is `core.models.JobRecord`.)"""

from __future__ import annotations

from django.db import models

from tenancy.scoping import TenantOwnedModel


class TaskType(TenantOwnedModel):
    """A kind of task an assistant can run, defined as data: its required fields and what to produce."""

    assistant = models.ForeignKey("tenancy.Assistant", on_delete=models.CASCADE, related_name="task_types")
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

    end_user = models.ForeignKey("tenancy.EndUser", on_delete=models.CASCADE, related_name="task_states")
    session = models.ForeignKey(
        "tenancy.ChatSession", null=True, blank=True, on_delete=models.SET_NULL, related_name="task_states"
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

    session = models.ForeignKey("tenancy.ChatSession", on_delete=models.CASCADE, related_name="scratch")
    end_user = models.ForeignKey("tenancy.EndUser", on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=200)
    value = models.JSONField()
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta(TenantOwnedModel.Meta):
        constraints = [models.UniqueConstraint(fields=["session", "key"], name="uniq_scratch_key")]
        verbose_name = "session scratch entry"
        verbose_name_plural = "session scratch entries"
