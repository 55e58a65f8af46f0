"""A tenant's HTTP tools and the content-free log of every tool call."""

from __future__ import annotations

from django.db import models

from tenancy.scoping import TenantOwnedModel

NAME_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"  # what OpenAI-compatible servers accept as a function name


class Tool(TenantOwnedModel):
    """An HTTP tool: the model's calls are POSTed to `url` as JSON, signed like webhooks."""

    name = models.CharField(max_length=64, help_text="What the model calls it: letters, digits, _ and -.")
    description = models.TextField(max_length=1000, help_text="What it does, for the model to decide when to call.")
    parameters = models.JSONField(default=dict, help_text="JSON Schema of the arguments; checked before each call.")
    url = models.URLField(max_length=500, help_text="http(s) URL receiving the calls (same address rules as webhooks).")
    timeout_seconds = models.FloatField(default=5.0, help_text="A call that takes longer is reported as timed out.")
    secret = models.CharField(max_length=80, help_text="Signs every call (X-Signature, HMAC-SHA256).")
    is_active = models.BooleanField(default=True)
    # The stubs cannot infer the type of a many-to-many given its through model by name.
    assistants = models.ManyToManyField(  # type: ignore[var-annotated]
        "tenancy.Assistant",
        blank=True,
        related_name="tools",
        through="ToolAssistant",
        help_text="The assistants that may call it.",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="uniq_tool_name_per_tenant"),
            models.CheckConstraint(
                condition=models.Q(timeout_seconds__gt=0, timeout_seconds__lte=60), name="tool_timeout_range"
            ),
        ]

    def __str__(self):
        return self.name


class ToolAssistant(models.Model):
    """One assistant that may call a tool: the table of Tool.assistants, with the tenant of both, so that it is
    distributed with them on Citus (docs/scaling.md), as memory's NoteSourceMessage is. Add through the relation
    with the tenant: `tool.assistants.set(assistants, through_defaults={"tenant_id": tool.tenant_id})`."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+")
    tool = models.ForeignKey(Tool, on_delete=models.CASCADE)
    assistant = models.ForeignKey("tenancy.Assistant", on_delete=models.CASCADE)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tenant", "tool", "assistant"], name="tool_assistant_unique")]


class ToolCallLog(TenantOwnedModel):
    """One tool call: which tool, how it ended, how long it took, for whom. Never its arguments or result."""

    tool = models.CharField(max_length=64)
    kind = models.CharField(max_length=10, help_text="memory (built in), http or python.")
    status = models.CharField(max_length=20, help_text="ok, cached, error, timeout, invalid_arguments, refused, ...")
    duration_ms = models.PositiveIntegerField(default=0)
    end_user = models.ForeignKey("tenancy.EndUser", on_delete=models.CASCADE, related_name="+")
    assistant = models.ForeignKey(
        "tenancy.Assistant", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        indexes = [models.Index(fields=["tenant", "created_at"])]
        ordering = ["-id"]
        verbose_name = "tool call"  # the admin's words (tests/admin/test_admin_words.py): a call, not a "log"
        verbose_name_plural = "tool calls"
