"""Long-term memory notes about one end user, experiences of an assistant, and the moderation audit log."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from pgvector.django import HnswIndex, VectorField

from tenancy.scoping import TenantOwnedModel


class MemoryNote(TenantOwnedModel):
    class Kind(models.TextChoices):
        PROFILE = "profile"
        PREFERENCE = "preference"
        PLAN = "plan"
        BUSINESS_STATUS = "business_status"
        CONSTRAINT = "constraint"
        CONCLUSION = "conclusion"

    class Source(models.TextChoices):
        USER_STATED = "user_stated"
        AGENT_INFERRED = "agent_inferred"
        TOOL_RESULT = "tool_result"
        ADMIN = "admin"

    class Status(models.TextChoices):
        ACTIVE = "active"
        PENDING_REVIEW = "pending_review"
        SUPERSEDED = "superseded"
        EXPIRED = "expired"
        FORGOTTEN = "forgotten"
        REJECTED = "rejected"
        ARCHIVED = "archived"

    end_user = models.ForeignKey("tenancy.EndUser", on_delete=models.CASCADE, related_name="memory_notes")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    key = models.CharField(max_length=100, blank=True, help_text="Slot within the kind (e.g. budget, city).")
    content = models.TextField(help_text="The fact as one sentence, in the user's language.")
    value = models.JSONField(
        null=True, blank=True, help_text="Structured value, e.g. {'amount': 400000, 'approx': true}."
    )
    quote = models.TextField(blank=True, help_text="The user's words the note rests on.")
    source = models.CharField(max_length=20, choices=Source.choices, default=Source.USER_STATED)
    confidence = models.FloatField(default=0.8)
    importance = models.FloatField(default=0.5)
    pinned = models.BooleanField(default=False, help_text="Pinned notes never decay.")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE, db_index=True)
    expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    supersedes = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="superseded_by",
        db_constraint=False,
    )
    session = models.ForeignKey(
        "tenancy.ChatSession", null=True, blank=True, on_delete=models.SET_NULL, related_name="memory_notes"
    )
    # Foreign keys into notes, messages and message vectors are not database constraints (db_constraint=False):
    # those tables are partitioned by HASH(tenant_id) and a key into one would need a unique constraint on `id`
    # alone (core/partitioning.py). Django's deletion collector still cascades and sets null.
    # The stubs cannot infer the type of a many-to-many given its through model by name.
    source_messages = models.ManyToManyField(  # type: ignore[var-annotated]
        "tenancy.Message", blank=True, related_name="memory_notes", through="NoteSourceMessage"
    )
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True)
    # memory_memorynote.embedding_half, halfvec(N) GENERATED ALWAYS AS (embedding::halfvec(N)) STORED, is not a
    # model field on purpose: only recall's SQL reads it (memory.services.recall.recall), and as a field every INSERT
    # would return it and every read parse it (134 us a note). Migration memory.0008_i22_note_halfvec. Likewise
    # embedding_bit, bit(N) GENERATED ALWAYS AS (binary_quantize(embedding)::bit(N)) STORED (memory.0014).
    embedding_model = models.CharField(max_length=200, blank=True)
    search_text = models.TextField(blank=True, help_text="Terms for keyword recall (words and CJK bigrams).")
    observed_at = models.DateTimeField(null=True, blank=True, help_text="When the user said it (import keeps history).")
    last_recalled_at = models.DateTimeField(null=True, blank=True)
    recall_count = models.PositiveIntegerField(default=0)
    review_reason = models.CharField(
        max_length=40,
        blank=True,
        help_text="Why a note waits in review: agent_inferred, low_confidence, conflict (asked in chat).",
    )
    corrected_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When a person (the user, staff, an integrator) last corrected it: extraction never overwrites it "
        "then, unless the user restates that fact with a new value (issue 16).",
    )
    corrected_by = models.CharField(max_length=200, blank=True, help_text="Who corrected it (user:…, admin:…, api:…).")
    importance_decayed_at = models.DateTimeField(
        null=True, blank=True, help_text="Last time passive forgetting lowered the importance (at most once a day)."
    )

    class Meta(TenantOwnedModel.Meta):
        constraints = [
            models.CheckConstraint(
                condition=models.Q(confidence__gte=0) & models.Q(confidence__lte=1), name="note_confidence_0_1"
            ),
        ]
        indexes = [
            models.Index(fields=["tenant", "end_user", "status"]),
            models.Index(fields=["tenant", "end_user", "kind", "key"]),
            # note_user_active_bits (tenant, end_user, expires_at) INCLUDE (id, embedding_model, embedding_bit)
            # WHERE status = 'active', and note_user_terms_gin: raw SQL in memory.0014 (embedding_bit is no field)
            HnswIndex(
                name="note_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]

    def __str__(self):
        return f"[{self.kind}] {self.content[:80]}"


class NoteSourceMessage(models.Model):
    """One message a note rests on: the table of MemoryNote.source_messages, with the tenant of both, so that it
    is distributed with them on Citus (docs/scaling.md). Add through the relation with the tenant:
    `note.source_messages.add(message, through_defaults={"tenant_id": note.tenant_id})`."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+")
    memorynote = models.ForeignKey(MemoryNote, on_delete=models.CASCADE, db_constraint=False)
    message = models.ForeignKey("tenancy.Message", on_delete=models.CASCADE, db_constraint=False)

    class Meta:
        db_table = "memory_memorynote_source_messages"
        constraints = [
            models.UniqueConstraint(fields=["tenant", "memorynote", "message"], name="note_source_message_unique")
        ]


class PiiRejection(TenantOwnedModel):
    """A candidate the PII guard refused. Counts and kinds only, never the content."""

    end_user = models.ForeignKey("tenancy.EndUser", null=True, on_delete=models.CASCADE, related_name="+")
    pii_kind = models.CharField(max_length=40)
    stage = models.CharField(max_length=40, help_text="extraction, summary, embedding, experience ...")
    count = models.PositiveIntegerField(default=1)

    class Meta(TenantOwnedModel.Meta):
        verbose_name = "blocked personal identifier"  # the admin's words, not "pii rejection"
        verbose_name_plural = "blocked personal identifiers"


class Experience(TenantOwnedModel):
    """A generalised procedure (what kind of task, which steps worked) that users of one assistant liked; never a
    user's own words. Offered to the users who contributed it; to the assistant's other users only once
    `experience_min_users` distinct users confirmed it or staff approved it, and only while the tenant shares
    experiences (tasks.services.experience)."""

    assistant = models.ForeignKey("tenancy.Assistant", on_delete=models.CASCADE, related_name="experiences")
    task_summary = models.TextField(help_text="The generalised task, e.g. 'large batch text classification'.")
    solution = models.TextField(help_text="The generalised steps that worked; checked to hold nothing of a user.")
    fingerprint = models.CharField(
        max_length=64,
        blank=True,
        db_index=True,
        help_text="sha256 of the normalised summary and steps: the same procedure liked by another user confirms "
        "this experience instead of creating a new one. Blank on experiences learned before issue 15.",
    )
    source_message = models.ForeignKey(
        "tenancy.Message",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_constraint=False,
    )
    contributed_by = models.ForeignKey(
        "tenancy.EndUser",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="experiences",
        help_text="The first contributor (all of them: contributions).",
    )
    approved_at = models.DateTimeField(
        null=True, blank=True, help_text="Set when staff approve it for all users of the assistant (admin)."
    )
    approved_by = models.CharField(max_length=200, blank=True)
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True)
    use_count = models.PositiveIntegerField(default=0)

    class Meta(TenantOwnedModel.Meta):
        constraints = [
            models.UniqueConstraint(
                fields=["tenant", "assistant", "fingerprint"],
                condition=~models.Q(fingerprint=""),
                name="uniq_experience_fingerprint",
            ),
        ]

    def __str__(self):
        return self.task_summary[:80]


class ExperienceContribution(TenantOwnedModel):
    """One user's independent confirmation of an experience (a thumbs-up on a reply that generalised to it).
    Erasing the user deletes it; an experience left without contributions is deleted with it."""

    experience = models.ForeignKey(Experience, on_delete=models.CASCADE, related_name="contributions")
    end_user = models.ForeignKey("tenancy.EndUser", on_delete=models.CASCADE, related_name="+")
    source_message = models.ForeignKey(
        "tenancy.Message",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_constraint=False,
    )

    class Meta(TenantOwnedModel.Meta):
        constraints = [models.UniqueConstraint(fields=["experience", "end_user"], name="uniq_experience_contributor")]


class AuditLog(TenantOwnedModel):
    """Who did what to which object, before and after. Written by services; read-only in the admin."""

    actor = models.CharField(max_length=200)
    action = models.CharField(max_length=60)
    object_type = models.CharField(max_length=60)
    object_id = models.CharField(max_length=60)
    before = models.JSONField(null=True, blank=True)
    after = models.JSONField(null=True, blank=True)

    class Meta(TenantOwnedModel.Meta):
        verbose_name = "audit log entry"
        verbose_name_plural = "audit log entries"


class ReviewInboxNote(MemoryNote):
    """The admin's review inbox: notes waiting as `pending_review` (not recalled until a moderator approves)."""

    class Meta:
        proxy = True
        default_manager_name = "all_tenants"  # as on every tenant-owned model: Django internals use it
        verbose_name = "note awaiting review"
        verbose_name_plural = "review inbox"


class MessageVector(TenantOwnedModel):
    """The embedding of one past user message (or of one chunk of a long one), so that episodic recall finds a
    message by meaning as well as by keywords. Written in the background after each turn and during import;
    erased with the message (cascade) and with the user."""

    end_user = models.ForeignKey("tenancy.EndUser", on_delete=models.CASCADE, related_name="+")
    session = models.ForeignKey("tenancy.ChatSession", on_delete=models.CASCADE, related_name="+")
    message = models.ForeignKey(
        "tenancy.Message", on_delete=models.CASCADE, related_name="vectors", db_constraint=False
    )  # messages are partitioned: see MemoryNote.source_messages
    chunk = models.PositiveIntegerField(default=0, help_text="Index of the chunk within the message (0 if whole).")
    embedding = VectorField(dimensions=settings.EMBEDDING_DIMENSIONS)
    # memory_messagevector.embedding_half (halfvec, GENERATED from embedding, STORED) is not a model field, for the
    # reason given at MemoryNote.embedding; only episodic recall's SQL reads it. Migration memory.0013.
    embedding_model = models.CharField(max_length=200)
    said_at = models.DateTimeField(help_text="When the message was said (its created_at), for time decay.")

    class Meta(TenantOwnedModel.Meta):
        constraints = [
            # with tenant: a unique constraint of a partitioned table includes the partition key
            models.UniqueConstraint(fields=["tenant", "message", "chunk"], name="message_vector_unique_chunk"),
        ]
        indexes = [
            models.Index(fields=["tenant", "end_user", "embedding_model"]),
            HnswIndex(
                name="message_vector_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
        ]
