"""The memory admin's records (imported by memory.admin, which Django discovers): experiences (staff approval),
PII rejections (kinds and counts only) and the audit log."""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.db.models import Count, Q
from django.template.defaultfilters import pluralize
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from core.admin_scoping import (
    ACTOR_PREFIXES,
    ReadOnlyAdminMixin,
    TenantScopedAdmin,
    actor_label,
)
from core.exceptions import ApplicationError
from memory.admin_filters import TENANT_FILTER, actor_of
from memory.models import AuditLog, Experience, PiiRejection
from memory.services.notes import moderation


@admin.register(Experience)
class ExperienceAdmin(TenantScopedAdmin):
    """Generalised procedures users liked. Others are offered one only once enough distinct users confirmed it
    (the tenant's experience_min_users) or staff approve it here."""

    list_display = (
        "id",
        "task_summary",
        "assistant",
        "tenant",
        "confirmed_by",
        "approved_at",
        "use_count",
        "created_at",
    )
    list_filter = (TENANT_FILTER, ("approved_at", admin.EmptyFieldListFilter))
    search_fields = ("task_summary", "solution")
    exclude = ("embedding",)
    readonly_fields = (
        "source_message",
        "contributed_by",
        "confirmed_by",
        "fingerprint",
        "approved_at",
        "approved_by",
        "embedding_model",
        "use_count",
    )
    actions = ("approve_for_sharing", "withdraw_approval")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(n_users=Count("contributions__end_user", distinct=True))

    @admin.display(description=_("confirmed by (distinct users)"), ordering="n_users")
    def confirmed_by(self, obj):
        return obj.n_users if hasattr(obj, "n_users") else obj.contributions.count()

    @admin.action(description=_("Approve for all users of the assistant"))
    def approve_for_sharing(self, request, queryset):
        self._approve(request, queryset, approved=True)

    @admin.action(description=_("Withdraw approval (back to confirmed users only)"))
    def withdraw_approval(self, request, queryset):
        self._approve(request, queryset, approved=False)

    def _approve(self, request, queryset, *, approved):
        done = 0
        for experience in queryset.select_related("tenant"):
            try:
                moderation.experience_approve(
                    tenant=experience.tenant, experience=experience, actor=actor_of(request), approved=approved
                )
                done += 1
            except ApplicationError as exc:
                self.message_user(request, f"Experience {experience.pk}: {exc.message}", level=messages.ERROR)
        if done:
            self.message_user(
                request, f"{done} experience{pluralize(done)} {'approved' if approved else 'no longer approved'}."
            )


@admin.register(PiiRejection)
class PiiRejectionAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    """Counts and kinds only: the rejected text is never stored."""

    list_display = ("created_at", "pii_kind", "stage", "count", "end_user", "tenant")
    list_filter = (TENANT_FILTER, "pii_kind", "stage")


class ActorKindFilter(admin.SimpleListFilter):
    """Who acted: staff, the end user, an API key, a system job, or an erased user (assistants.admin.actor_label)."""

    title = _("actor")
    parameter_name = "actor_kind"

    def lookups(self, request, model_admin):
        return [(kind, kind) for kind in ACTOR_PREFIXES]

    def queryset(self, request, queryset):
        chosen = self.value()
        prefixes = ACTOR_PREFIXES.get(chosen) if chosen is not None else None
        if not prefixes:
            return queryset
        match = Q()
        for prefix in prefixes:
            match |= Q(actor__startswith=prefix)
        return queryset.filter(match)


@admin.register(AuditLog)
class AuditLogAdmin(ReadOnlyAdminMixin, TenantScopedAdmin):
    list_display = ("created_at", "actor_display", "action", "object_type", "object_id", "tenant")
    list_filter = (TENANT_FILTER, ActorKindFilter, "action", "object_type", ("created_at", admin.DateFieldListFilter))
    date_hierarchy = "created_at"
    search_fields = ("actor", "object_id")
    fields = (
        "created_at",
        "tenant",
        "actor_display",
        "actor",
        "action",
        "object_type",
        "object_id",
        "before_display",
        "after_display",
    )
    readonly_fields = fields

    @admin.display(description=_("who"), ordering="actor")
    def actor_display(self, obj):
        kind, who = actor_label(obj.actor)
        return f"{kind}: {who}" if who else kind

    @admin.display(description=_("before"))
    def before_display(self, obj):
        return format_html("<pre>{}</pre>", json.dumps(obj.before, ensure_ascii=False, indent=2))

    @admin.display(description=_("after"))
    def after_display(self, obj):
        return format_html("<pre>{}</pre>", json.dumps(obj.after, ensure_ascii=False, indent=2))
