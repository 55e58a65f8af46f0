"""An end user's admin page as support staff and a privacy officer use it: links to the person's notes
and conversations, and their export and erasure from the page itself, not only as list actions.

A mixin of assistants.admin.EndUserAdmin: the export and erasure pages call the same actions the list has
(`export_user`, `erase_users`) with this one person, so permissions, confirmation and receipts are the same.
"""

from __future__ import annotations

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from memory.models import MemoryNote
from tenancy.models import ChatSession


class EndUserLinksMixin:
    """Adds `data_links` (a read-only field) and the per-person export and erasure pages."""

    @admin.display(description=_("their data"))
    def data_links(self, obj):
        if obj is None or not obj.pk:
            return "-"
        notes = MemoryNote.objects.for_tenant(obj.tenant_id).filter(end_user=obj).count()
        sessions = ChatSession.objects.for_tenant(obj.tenant_id).filter(end_user=obj).count()
        return format_html(
            '<a href="{}">{} note{}</a> · <a href="{}">{} conversation{}</a> · '
            '<a href="{}">Export all their data (JSON)</a> · <a href="{}">Erase all their data…</a>',
            reverse("admin:memory_memorynote_changelist") + f"?end_user__id__exact={obj.pk}",
            notes,
            "" if notes == 1 else "s",
            reverse("admin:tenancy_chatsession_changelist") + f"?end_user__id__exact={obj.pk}",
            sessions,
            "" if sessions == 1 else "s",
            reverse("admin:tenancy_enduser_export", args=[obj.pk]),
            reverse("admin:tenancy_enduser_erase", args=[obj.pk]),
        )

    def get_urls(self):
        view = self.admin_site.admin_view  # type: ignore[attr-defined]
        return [
            path("<path:object_id>/export/", view(self.export_view), name="tenancy_enduser_export"),
            path("<path:object_id>/erase/", view(self.erase_view), name="tenancy_enduser_erase"),
        ] + super().get_urls()  # type: ignore[misc]

    def _person(self, request, object_id, *, change: bool):
        obj = self.get_object(request, object_id)  # type: ignore[attr-defined]
        if obj is None:
            raise Http404("No such end user.")
        allowed = self.has_change_permission if change else self.has_view_permission  # type: ignore[attr-defined]
        if not allowed(request, obj):
            raise PermissionDenied
        return self.get_queryset(request).filter(pk=obj.pk)  # type: ignore[attr-defined]

    def export_view(self, request, object_id):
        return self.export_user(request, self._person(request, object_id, change=False))  # type: ignore[attr-defined]

    def erase_view(self, request, object_id):
        """The erasure confirmation (counts, reason) for this person; once confirmed, back to their page."""
        response = self.erase_users(request, self._person(request, object_id, change=True))  # type: ignore[attr-defined]
        if response is None:
            return HttpResponseRedirect(reverse("admin:tenancy_enduser_change", args=[object_id]))
        return response
