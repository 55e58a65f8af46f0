"""The list filters of the memory admin (memory.admin, memory.admin_records): notes by confidence, by how soon
they expire and by how often they were recalled; the tenant filter and the audit actor of a staff action."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import admin
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.admin_autocomplete import TenantAutocompleteFilter

TENANT_FILTER = TenantAutocompleteFilter  # picked by typing, not from a list of every tenant


def actor_of(request) -> str:
    return f"admin:{request.user.get_username()}"


class ConfidenceRangeFilter(admin.SimpleListFilter):
    title = _("confidence")
    parameter_name = "confidence"
    RANGES = {"lt0.3": (0, 0.3), "0.3-0.5": (0.3, 0.5), "0.5-0.8": (0.5, 0.8), "gte0.8": (0.8, 1.01)}

    def lookups(self, request, model_admin):
        return (
            ("lt0.3", _("below 0.3")),
            ("0.3-0.5", _("0.3 to 0.5")),
            ("0.5-0.8", _("0.5 to 0.8")),
            ("gte0.8", _("0.8 and above")),
        )

    def queryset(self, request, queryset):
        chosen = self.value()
        bounds = self.RANGES.get(chosen) if chosen is not None else None
        if bounds is None:
            return queryset
        return queryset.filter(confidence__gte=bounds[0], confidence__lt=bounds[1])


class ExpiresSoonFilter(admin.SimpleListFilter):
    title = _("expiry")
    parameter_name = "expires"

    def lookups(self, request, model_admin):
        return (("7d", _("Expires within 7 days")), ("never", _("Never expires")))

    def queryset(self, request, queryset):
        now = timezone.now()
        if self.value() == "7d":
            return queryset.filter(expires_at__gte=now, expires_at__lte=now + timedelta(days=7))
        if self.value() == "never":
            return queryset.filter(expires_at__isnull=True)
        return queryset


class RecallFilter(admin.SimpleListFilter):
    title = _("recall")
    parameter_name = "recalled"

    def lookups(self, request, model_admin):
        return (("never", _("Never recalled")), ("yes", _("Recalled at least once")))

    def queryset(self, request, queryset):
        never = Q(recall_count=0, last_recalled_at__isnull=True)
        if self.value() == "never":
            return queryset.filter(never)
        if self.value() == "yes":
            return queryset.exclude(never)
        return queryset


class EndUserSearchFilter(admin.SimpleListFilter):
    """The end user as a box to type their external id into, not a list of every user of every tenant (a real
    tenant has thousands). Exact match, within the tenants the staff member may see (the queryset is scoped)."""

    title = _("end user")
    parameter_name = "end_user_is"
    template = "admin/memory/end_user_filter.html"

    def lookups(self, request, model_admin):
        return (("", ""),)  # one entry, so the filter shows; the template draws the box instead

    def queryset(self, request, queryset):
        value = (self.value() or "").strip()
        return queryset.filter(end_user__external_id=value) if value else queryset

    def choices(self, changelist):
        kept = {k: v for k, v in changelist.get_filters_params().items() if k != self.parameter_name}
        hidden = [(k, v[-1] if isinstance(v, list) else v) for k, v in kept.items()]
        yield {"hidden": hidden, "value": self.value() or "", "selected": bool(self.value())}
