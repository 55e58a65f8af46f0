"""The admin's review inbox (registered by memory.apps on ready: it extends memory.admin's note admin): notes
waiting as pending_review, each beside the note it would replace, so a moderator decides with both in view."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from core.admin_scoping import staff_tenant_ids
from memory.admin import MemoryNoteAdmin
from memory.admin_filters import TENANT_FILTER, ConfidenceRangeFilter, EndUserSearchFilter
from memory.models import MemoryNote, ReviewInboxNote
from memory.services.notes.health import pii_rejection_summary


def _replaced(obj: MemoryNote) -> MemoryNote | None:
    """The note a candidate would supersede, of the same tenant and user, if it still exists."""
    if not obj.supersedes_id:
        return None
    return MemoryNote.objects.for_tenant(obj.tenant).filter(pk=obj.supersedes_id, end_user_id=obj.end_user_id).first()


@admin.register(ReviewInboxNote)
class ReviewInboxAdmin(MemoryNoteAdmin):
    """Notes waiting as pending_review; PII rejections are listed above them as counts and kinds only."""

    list_display = (
        "id",
        "short_content",
        "would_replace",
        "why_waiting",
        "kind",
        "source",
        "confidence",
        "end_user",
        "tenant",
        "created_at",
    )
    list_filter = (TENANT_FILTER, EndUserSearchFilter, "kind", "source", ConfidenceRangeFilter)
    actions = ("approve", "reject", "edit", "pin")

    info_fields = ("side_by_side", *MemoryNoteAdmin.info_fields)

    def get_queryset(self, request):
        return super().get_queryset(request).filter(status=MemoryNote.Status.PENDING_REVIEW)

    def has_add_permission(self, request):
        return False

    @admin.display(description=_("why it waits"))
    def why_waiting(self, obj):
        labels = {
            "agent_inferred": "inferred by the assistant",
            "low_confidence": f"confidence below {obj.tenant.review_confidence_threshold}",
            "conflict": "would replace a note it contradicts (shown beside it)",
        }
        found = []
        stored = getattr(obj, "review_reason", "")  # set by extraction where the field exists
        if stored:
            found.append(stored)
        if obj.source == MemoryNote.Source.AGENT_INFERRED:
            found.append("agent_inferred")
        if obj.confidence < obj.tenant.review_confidence_threshold:
            found.append("low_confidence")
        if obj.supersedes_id:
            found.append("conflict")
        return "; ".join(dict.fromkeys(labels.get(r, r.replace("_", " ")) for r in found)) or "-"

    def changelist_view(self, request, extra_context=None):
        extra_context = {
            **(extra_context or {}),
            "pii_rejections": pii_rejection_summary(tenant_ids=staff_tenant_ids(request)),
        }
        return super().changelist_view(request, extra_context)

    @admin.display(description=_("would replace"))
    def would_replace(self, obj):
        old = _replaced(obj)
        if old is None:
            return "-"
        return format_html(
            '<a href="{}">{}</a><div class="note-line">{} · {}</div>',
            reverse("admin:memory_memorynote_change", args=[old.pk]),
            Truncator(old.content).chars(160) or "(forgotten)",
            old.get_status_display(),
            timezone_date(old),
        )

    @admin.display(description=_("remembered now → this candidate"))
    def side_by_side(self, obj):
        old = _replaced(obj)
        if old is None:
            return "- (replaces nothing: approving it adds a note)"
        return format_html(
            '<table class="side-by-side"><thead><tr><th>Remembered now (<a href="{}">note {}</a>, {})</th>'
            "<th>This candidate</th></tr></thead><tbody><tr><td>{}</td><td>{}</td></tr>"
            "<tr><td>“{}”</td><td>“{}”</td></tr><tr><td>{} · confidence {} · {}</td>"
            "<td>{} · confidence {} · {}</td></tr></tbody></table>",
            reverse("admin:memory_memorynote_change", args=[old.pk]),
            old.pk,
            old.get_status_display(),
            old.content,
            obj.content,
            old.quote or "-",
            obj.quote or "-",
            old.get_source_display(),
            f"{old.confidence:.2f}",
            timezone_date(old),
            obj.get_source_display(),
            f"{obj.confidence:.2f}",
            timezone_date(obj),
        )


def timezone_date(note: MemoryNote) -> str:
    return timezone.localtime(note.observed_at or note.created_at).date().isoformat()
