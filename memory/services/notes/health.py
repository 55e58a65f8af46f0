"""Memory health of one tenant, for the admin dashboard (a read: nothing here writes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.db.models import Count, Exists, F, Func, OuterRef, Q, Sum, TextField, Value
from django.db.models.functions import Lower, TruncWeek
from django.utils import timezone
from pgvector.django import CosineDistance

from memory.models import MemoryNote, PiiRejection

# Two active notes of one user are duplicates when their vectors (same embedding model) are this close, or when
# their content is the same after lower-casing and removing spaces and punctuation (also CJK punctuation).
DUPLICATE_MAX_COSINE_DISTANCE = 0.05  # cosine similarity > 0.95
_NOISE = r"[[:space:][:punct:]，。！？、；：“”‘’（）《》【】…·～]+"
WEEKS_SHOWN = 8


@dataclass
class MemoryHealth:
    active_notes: int = 0
    users_with_notes: int = 0
    notes_per_user: list[dict] = field(default_factory=list)  # [{"end_user_id", "external_id", "active"}], top 20
    average_notes_per_user: float = 0.0
    duplicate_notes: int = 0
    duplicate_rate: float = 0.0
    never_recalled: int = 0
    never_recalled_share: float = 0.0
    superseded_per_week: list[dict] = field(default_factory=list)  # [{"week": date, "count"}], oldest first
    pii_rejections: int = 0
    pii_rejections_by_kind: list[dict] = field(default_factory=list)  # [{"pii_kind", "count"}]
    pending_reviews: int = 0


def _normalised(expr):
    return Func(Lower(expr), Value(_NOISE), Value(""), Value("g"), function="regexp_replace", output_field=TextField())


def memory_health_get(*, tenant) -> MemoryHealth:
    notes = MemoryNote.objects.for_tenant(tenant)
    active = notes.filter(status=MemoryNote.Status.ACTIVE)
    health = MemoryHealth()
    health.active_notes = active.count()

    per_user = list(
        active.values("end_user_id", external_id=F("end_user__external_id"))
        .annotate(active=Count("id"))
        .order_by("-active", "end_user_id")
    )
    health.users_with_notes = len(per_user)
    health.notes_per_user = per_user[:20]
    if per_user:
        health.average_notes_per_user = round(health.active_notes / len(per_user), 2)

    # A note is a duplicate when an older active note of the same user says the same thing.
    older_same = active.filter(end_user_id=OuterRef("end_user_id"), id__lt=OuterRef("id"))
    near_vector = (
        older_same.filter(embedding__isnull=False, embedding_model=OuterRef("embedding_model"))
        .annotate(distance=CosineDistance("embedding", OuterRef("embedding")))
        .filter(distance__lt=DUPLICATE_MAX_COSINE_DISTANCE)
    )
    same_text = older_same.annotate(norm=_normalised(F("content"))).filter(norm=OuterRef("norm"))
    health.duplicate_notes = (
        active.annotate(norm=_normalised(F("content")))
        .filter(Q(embedding__isnull=False) & Exists(near_vector) | Exists(same_text))
        .count()
    )
    health.never_recalled = active.filter(recall_count=0, last_recalled_at__isnull=True).count()
    if health.active_notes:
        health.duplicate_rate = round(health.duplicate_notes / health.active_notes, 4)
        health.never_recalled_share = round(health.never_recalled / health.active_notes, 4)

    since = timezone.now() - timedelta(weeks=WEEKS_SHOWN)
    weekly = {
        row["week"].date(): row["count"]
        for row in notes.filter(status=MemoryNote.Status.SUPERSEDED, updated_at__gte=since)
        .annotate(week=TruncWeek("updated_at"))
        .values("week")
        .annotate(count=Count("id"))
    }
    today = timezone.localdate()
    this_week = today - timedelta(days=today.weekday())
    health.superseded_per_week = [
        {"week": week, "count": weekly.get(week, 0)}
        for week in (this_week - timedelta(weeks=n) for n in range(WEEKS_SHOWN - 1, -1, -1))
    ]

    rejections = PiiRejection.objects.for_tenant(tenant)
    health.pii_rejections_by_kind = list(
        rejections.values("pii_kind").annotate(count=Sum("count")).order_by("-count", "pii_kind")
    )
    health.pii_rejections = sum(row["count"] for row in health.pii_rejections_by_kind)
    health.pending_reviews = notes.filter(status=MemoryNote.Status.PENDING_REVIEW).count()
    return health


def pii_rejection_summary(*, tenant_ids=None) -> list[dict]:
    """PII rejections as counts per tenant and kind (never content), for the review inbox."""
    qs = PiiRejection.objects.unscoped()
    if tenant_ids is not None:
        qs = qs.filter(tenant_id__in=tenant_ids)
    return list(
        qs.values("tenant__slug", "pii_kind", "stage")
        .annotate(count=Sum("count"))
        .order_by("tenant__slug", "-count", "pii_kind")
    )
