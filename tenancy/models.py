"""Tenants, their end users and assistants, chat sessions and messages: the data every layer reads.

These models were the assistants app's until issue 40 moved them to the bottom layer; each keeps its table
(`db_table`, the name it had there), so the move changed the migration state only (tenancy 0001)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from tenancy.identifiers import external_id_shown
from tenancy.scoping import TenantOwnedModel, TimeStampedModel


def default_ttl_days_by_kind() -> dict:
    # Plans go stale fastest, who the user is lasts longest (seed 000: "still useful in six months").
    return {
        "profile": 365,
        "preference": 180,
        "business_status": 180,
        "constraint": 180,
        "plan": 30,
        "conclusion": 90,
        "whim": 7,
    }


class Tenant(TimeStampedModel):
    """A company running assistants. Holds the memory policy; an Assistant may override any of it."""

    class InferredPolicy(models.TextChoices):
        DROP = "drop", "Drop facts the model inferred"
        REVIEW = "review", "Keep inferred facts, low confidence, pending review"

    class PiiPolicy(models.TextChoices):
        DROP = "drop", "Drop any candidate that contains a personal identifier"
        REDACT = "redact", "Redact identifiers and keep the rest of the candidate"

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=200)

    # Short-term memory
    window_turns = models.PositiveIntegerField(
        default=10, help_text="Recent turns (user+assistant pairs) kept verbatim."
    )
    context_limit_tokens = models.PositiveIntegerField(default=8000, help_text="The chat model's context limit.")
    budget_pinned_tokens = models.PositiveIntegerField(default=300)
    budget_memories_tokens = models.PositiveIntegerField(default=800)
    budget_task_tokens = models.PositiveIntegerField(default=300)
    budget_summary_tokens = models.PositiveIntegerField(default=600)
    budget_window_tokens = models.PositiveIntegerField(default=3000)
    reply_reserve_tokens = models.PositiveIntegerField(default=1000, help_text="Kept free for the model's answer.")
    summary_trigger_messages = models.PositiveIntegerField(
        default=6, help_text="Compaction runs when this many messages have left the window unsummarised."
    )
    # Long-term memory
    ttl_days_by_kind = models.JSONField(default=default_ttl_days_by_kind, help_text="Time to live of a note, per kind.")
    review_confidence_threshold = models.FloatField(
        default=0.5, help_text="Notes below this confidence wait in the review inbox."
    )
    inferred_policy = models.CharField(max_length=10, choices=InferredPolicy.choices, default=InferredPolicy.DROP)
    pii_policy = models.CharField(max_length=10, choices=PiiPolicy.choices, default=PiiPolicy.DROP)
    decay_rate_per_day = models.FloatField(default=0.95, help_text="Recall score multiplier per day of age (seed 002).")
    decay_floor = models.FloatField(default=0.3, help_text="Time decay never goes below this factor.")
    unrecalled_days_before_decay = models.PositiveIntegerField(default=90)
    archive_importance_floor = models.FloatField(default=0.1, help_text="Decayed notes below this are archived.")
    recall_all_below = models.PositiveIntegerField(
        default=20, help_text="A user with at most this many notes gets all of them in context (seed 000)."
    )
    recall_top_k = models.PositiveIntegerField(default=8)
    recall_min_relevance = models.FloatField(
        default=0.3,
        help_text="What the chat turn puts in context must be at least this relevant (0..1, cosine "
        "plus keyword evidence). Explicit recall (API) always returns k items.",
    )
    task_ttl_days = models.PositiveIntegerField(default=7)
    # Experience memory
    experience_sharing = models.BooleanField(
        default=True,
        help_text="Offer experiences (generalised procedures users liked) to other users of the "
        "assistant. Off: an experience only helps the users it came from.",
    )
    experience_min_users = models.PositiveIntegerField(
        default=3,
        help_text="Distinct users who must confirm an experience before others are offered it "
        "(staff approval in the admin also shares it).",
    )
    # Fairness of background work between tenants
    bulk_jobs_max = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        help_text="Bulk jobs (imports, re-embedding, erasure) of this tenant that may run at "
        "once; the others wait, so other tenants' work gets the remaining workers. "
        "Blank: BULK_JOBS_PER_TENANT (1).",
    )
    chat_model = models.CharField(max_length=200, blank=True, help_text="Blank: LLM_CHAT_MODEL.")
    embedding_model = models.CharField(max_length=200, blank=True, help_text="Blank: LLM_EMBEDDING_MODEL.")
    temporary_chat_ttl_hours = models.PositiveIntegerField(
        default=24,
        help_text="A temporary chat (nothing written to long-term memory) is deleted this many hours after it starts.",
    )
    usage_quotas = models.JSONField(
        default=dict,
        blank=True,
        help_text='Usage limits (issue 43, docs/memory.md "Usage quotas"): {"tenant"|"assistant"|"user": '
        '{"tokens_per_day"|"tokens_per_month"|"turns_per_day"|"turns_per_month": n}}; "assistant" and "user" '
        "cap each one. Empty: no limit.",
    )

    class Meta:
        db_table = "assistants_tenant"

    def __str__(self):
        return self.name or self.slug


class ApiKey(TenantOwnedModel):
    """A tenant's key for the REST API. Only a hash is stored; the key is shown once, at creation."""

    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, db_index=True, help_text="First characters, to recognise a key.")
    hashed_key = models.CharField(max_length=128, unique=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta(TenantOwnedModel.Meta):
        db_table = "assistants_apikey"
        verbose_name = "API key"
        verbose_name_plural = "API keys"

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"


class EndUser(TenantOwnedModel):
    """A person who talks to a tenant's assistants, addressed by the integrator's external_id."""

    external_id = models.CharField(max_length=200, help_text="The integrator's id for this person.")
    display_name = models.CharField(max_length=200, blank=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="end_user",
        help_text="Web chat login, if this person uses the web chat.",
    )
    locale = models.CharField(max_length=10, blank=True)
    erasure_requested_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Set when erasure starts; from then on nothing new is written for this user.",
    )
    memory_enabled = models.BooleanField(
        default=True,
        help_text="Off: no long-term notes are written or recalled for this person (the person's "
        "own switch; pinned facts of the current conversation still work).",
    )

    class Meta(TenantOwnedModel.Meta):
        db_table = "assistants_enduser"
        constraints = [models.UniqueConstraint(fields=["tenant", "external_id"], name="uniq_end_user_external_id")]

    def __str__(self):
        # Escaped: an id stored before tenancy.identifiers' rule must not disguise itself in the admin.
        return external_id_shown(self.display_name or self.external_id)


def python_tool_names_check(value) -> None:
    """Assistant.python_tools: a list of names of functions in ASSISTANT_PYTHON_TOOLS (a tool's name is the last
    part of its dotted path)."""
    configured = {path.rsplit(".", 1)[-1] for path in settings.ASSISTANT_PYTHON_TOOLS}
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ValidationError('A list of Python tool names, such as ["order_status"].')
    unknown = sorted(set(value) - configured)
    if unknown:
        raise ValidationError(
            f"No Python tool named {', '.join(unknown)}; configured: {', '.join(sorted(configured)) or '(none)'}."
        )


class Assistant(TenantOwnedModel):
    name = models.CharField(max_length=200)
    system_prompt = models.TextField(help_text="The persona. Sent first in every context; never compressed or edited.")
    chat_model = models.CharField(max_length=200, blank=True, help_text="Blank: the tenant's model.")
    temperature = models.FloatField(default=0.3)
    policy_overrides = models.JSONField(
        default=dict, blank=True, help_text="Any tenant memory-policy field, overridden for this assistant."
    )
    python_tools = models.JSONField(
        default=list,
        blank=True,
        validators=[python_tool_names_check],
        help_text="Names of the Python tools (settings ASSISTANT_PYTHON_TOOLS) this assistant's model may call.",
    )

    class Meta(TenantOwnedModel.Meta):
        db_table = "assistants_assistant"

    def __str__(self):
        return self.name


class ChatSession(TenantOwnedModel):
    end_user = models.ForeignKey(EndUser, on_delete=models.CASCADE, related_name="sessions")
    assistant = models.ForeignKey(Assistant, on_delete=models.CASCADE, related_name="sessions")
    title = models.CharField(max_length=200, blank=True)
    summary = models.TextField(blank=True, help_text="Rolling summary of every message up to summary_through.")
    summary_through = models.ForeignKey(
        "Message",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_constraint=False,
        help_text="The last message the summary covers; later messages are still verbatim.",
    )
    summary_version = models.PositiveIntegerField(default=0, help_text="Compare-and-set guard for compaction.")
    pinned_facts = models.JSONField(
        default=dict, blank=True, help_text="Core constraints: key -> {value, message_id, updated_at}."
    )
    last_activity_at = models.DateTimeField(auto_now_add=True, db_index=True)
    temporary = models.BooleanField(
        default=False,
        help_text="A temporary chat: nothing is written to long-term memory or experiences, nothing "
        "is recalled, and the session is deleted at expires_at.",
    )
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Temporary chats only: when it is deleted.")

    class Meta(TenantOwnedModel.Meta):
        db_table = "assistants_chatsession"
        indexes = [
            models.Index(fields=["tenant", "end_user", "-last_activity_at"]),
            models.Index(fields=["expires_at"], condition=models.Q(temporary=True), name="session_temporary_expiry"),
        ]

    def __str__(self):
        return self.title or f"Session {self.pk}"


# Message.metadata key of an earlier version: a reply regenerated since, or a user message edited and resent since
# (value: the id of the message that replaced it). Shown to the person as an earlier version, never sent again.
MESSAGE_REPLACED_KEY = "replaced_by"


class Message(TenantOwnedModel):
    class Role(models.TextChoices):
        SYSTEM = "system"
        USER = "user"
        ASSISTANT = "assistant"
        TOOL = "tool"

    # no index of its own: the (session, id) index serves every lookup by session, and with both PostgreSQL read a
    # long session whole through this one to find the turn next to a message (assistants.0013)
    session = models.ForeignKey(ChatSession, on_delete=models.CASCADE, related_name="messages", db_index=False)
    end_user = models.ForeignKey(EndUser, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=10, choices=Role.choices)
    content = models.TextField()
    token_count = models.PositiveIntegerField(default=0)
    metadata = models.JSONField(default=dict, blank=True, help_text="What the reply was built from, model, errors.")
    search_vector = models.TextField(blank=True, help_text="Space-separated terms for keyword recall (CJK bigrams).")

    class Meta(TenantOwnedModel.Meta):
        db_table = "assistants_message"
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["session", "id"]), models.Index(fields=["tenant", "end_user", "created_at"])]

    def __str__(self):
        return f"{self.role}: {self.content[:60]}"


class Feedback(TenantOwnedModel):
    class Rating(models.TextChoices):
        UP = "up"
        DOWN = "down"

    # db_constraint=False: messages are partitioned by tenant (core/partitioning.py); Django still cascades
    message = models.ForeignKey(Message, on_delete=models.CASCADE, related_name="feedback", db_constraint=False)
    end_user = models.ForeignKey(EndUser, on_delete=models.CASCADE, related_name="feedback")
    rating = models.CharField(max_length=4, choices=Rating.choices)
    comment = models.TextField(blank=True)

    class Meta(TenantOwnedModel.Meta):
        db_table = "assistants_feedback"
        constraints = [models.UniqueConstraint(fields=["message", "end_user"], name="uniq_feedback_per_message")]
        verbose_name = "reply rating"  # a thumbs up or down on one reply ("feedbacks" is no word)
        verbose_name_plural = "reply ratings"


class ErasureReceipt(TenantOwnedModel):
    """Proof that one end user's data was erased. Holds no personal content: only a hash of the id and counts."""

    user_id_hash = models.CharField(max_length=64, db_index=True)
    requested_by = models.CharField(max_length=200)
    reason = models.CharField(max_length=500, blank=True, help_text="Why the erasure was asked for (no names).")
    counts = models.JSONField(default=dict)
    job = models.ForeignKey("core.JobRecord", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta(TenantOwnedModel.Meta):
        db_table = "assistants_erasurereceipt"

    def __str__(self) -> str:
        """The receipt as the admin titles it: the hashed id it proves erased, and when."""
        when = self.completed_at or self.created_at
        return (
            f"Erasure of {self.user_id_hash[:12]}… on {when:%Y-%m-%d}"
            if when
            else f"Erasure of {self.user_id_hash[:12]}…"
        )


class TenantStaff(TimeStampedModel):
    """Links a Django staff account to the tenant whose data it may see and change in the admin.

    A staff account without a link sees nothing (the admin fails closed); superusers see every tenant.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tenant_memberships")
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="staff")

    class Meta:
        db_table = "assistants_tenantstaff"
        verbose_name = "tenant staff member"
        constraints = [models.UniqueConstraint(fields=["user", "tenant"], name="uniq_tenant_staff")]

    def __str__(self):
        return f"{self.user} @ {self.tenant}"
