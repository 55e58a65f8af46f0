"""Admin for long-term memory: note moderation, the review inbox, experiences, PII rejections, the audit log."""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.template.defaultfilters import pluralize
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.text import Truncator
from django.utils.translation import gettext_lazy as _

from core.admin_scoping import (
    TenantConsistentForm,
    TenantScopedAdmin,
)
from core.exceptions import ApplicationError
from memory import admin_records  # noqa: F401 - imported for its admin.register calls (experiences, audit log)
from memory.admin_filters import (
    TENANT_FILTER,
    ConfidenceRangeFilter,
    EndUserSearchFilter,
    ExpiresSoonFilter,
    RecallFilter,
    actor_of,
)
from memory.models import MemoryNote
from memory.services.notes import moderation
from memory.services.notes.notes import memory_note_forget, memory_note_history


class NoteForm(TenantConsistentForm):
    class Meta:
        model = MemoryNote
        fields = ("tenant", "end_user", "kind", "key", "content", "confidence", "expires_at", "pinned")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        expires = self.fields.get("expires_at")
        for widget, name in zip(
            getattr(expires.widget, "widgets", ()) if expires else (), ("date", "time"), strict=False
        ):
            widget.attrs.setdefault("aria-label", f"Expires at ({name})")  # one label per box (axe-core)

    def clean_content(self):
        content = (self.cleaned_data.get("content") or "").strip()
        if not content:
            raise forms.ValidationError("A note needs some content: write the fact in one sentence.")
        return content

    def clean_confidence(self):
        value = self.cleaned_data.get("confidence")
        if value is not None and not 0 <= value <= 1:
            raise forms.ValidationError("Confidence is a number between 0 and 1.")
        return value


@admin.register(MemoryNote)
class MemoryNoteAdmin(TenantScopedAdmin):
    form = NoteForm
    # Fits a 1366 px screen beside both sidebars; source, expiry and recall are filters and on the note's page.
    # Typed as any length: ReviewInboxAdmin lists other columns, filters and actions.
    list_display: tuple[str, ...] = (
        "id",
        "short_content",
        "status_display",
        "confidence_display",
        "person",
        "tenant",
        "created",
    )
    list_display_links = ("id", "short_content")
    list_per_page = 50
    list_filter: ClassVar[tuple[Any, ...]] = (
        TENANT_FILTER,
        EndUserSearchFilter,
        "kind",
        "source",
        "status",
        ConfidenceRangeFilter,
        ExpiresSoonFilter,
        RecallFilter,
        "pinned",
    )
    search_fields = ("content", "key", "end_user__external_id")
    list_select_related = ("end_user", "tenant")
    autocomplete_fields = ("end_user",)
    # No "Delete selected": a note leaves through "Forget", which is audited like every other change (a hard
    # delete happens only in a user's erasure, which leaves a receipt).
    actions: tuple[str, ...] = ("approve", "reject", "edit", "expire_now", "pin", "unpin", "forget")
    change_fields = ("kind", "key", "content", "confidence", "expires_at")
    info_fields: tuple[str, ...] = (  # the review inbox puts the side-by-side view first
        "tenant",
        "end_user",
        "status",
        "source",
        "pinned",
        "importance",
        "quote",
        "value",
        "provenance",
        "supersede_chain",
        "observed_at",
        "last_recalled_at",
        "recall_count",
        "embedding_model",
        "created_at",
        "updated_at",
    )

    class Media:
        css = {"all": ("admin/memory/notes.css",)}

    @admin.display(description=_("content"))
    def short_content(self, obj):
        return format_html(
            '{}<div class="note-line">{} · {}</div>',
            Truncator(obj.content).chars(160),
            obj.get_kind_display(),
            obj.get_source_display(),
        )

    @admin.display(description=_("status"), ordering="status")
    def status_display(self, obj):
        label = obj.get_status_display()
        return f"{label} · pinned" if obj.pinned else label

    @admin.display(description=_("conf."), ordering="confidence")
    def confidence_display(self, obj):
        return f"{obj.confidence:.2f}"

    @admin.display(description=_("end user"), ordering="end_user__external_id")
    def person(self, obj):
        name = str(obj.end_user)
        return format_html('<span title="{}">{}</span>', name, Truncator(name).chars(22))

    @admin.display(description=_("created"), ordering="created_at")
    def created(self, obj):
        return timezone.localtime(obj.created_at).date().isoformat()

    def get_actions(self, request):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def has_delete_permission(self, request, obj=None):
        return False  # forget instead (audited); see `actions`

    def get_fields(self, request, obj=None):
        if obj is None:
            return NoteForm.Meta.fields
        return self.change_fields + self.info_fields

    def get_readonly_fields(self, request, obj=None):
        return () if obj is None else self.info_fields

    @admin.display(description=_("provenance (the messages it came from)"))
    def provenance(self, obj):
        parts = [
            format_html(
                '<div><a href="{}">message {}</a> ({}): {}</div>',
                reverse("admin:tenancy_message_change", args=[m.pk]),
                m.pk,
                m.role,
                Truncator(m.content).chars(120),
            )
            for m in obj.source_messages.all().order_by("id")
        ]
        if obj.session_id:
            parts.append(
                format_html(
                    '<div><a href="{}">session {}</a></div>',
                    reverse("admin:tenancy_chatsession_change", args=[obj.session_id]),
                    obj.session_id,
                )
            )
        return format_html_join("", "{}", ((p,) for p in parts)) if parts else "- (no source message recorded)"

    @admin.display(description=_("supersede chain (oldest first)"))
    def supersede_chain(self, obj):
        try:
            chain = memory_note_history(tenant=obj.tenant, note=obj)
        except MemoryNote.DoesNotExist:
            chain = [obj]
        if len(chain) == 1:
            return "- (not superseded, supersedes nothing)"
        return format_html_join(
            "",
            '<div>{}<a href="{}">note {}</a> [{}] {}</div>',
            (
                (
                    "→ " if i else "",
                    reverse("admin:memory_memorynote_change", args=[n.pk]),
                    n.pk,
                    n.status,
                    Truncator(n.content).chars(80) + (" (this note)" if n.pk == obj.pk else ""),
                )
                for i, n in enumerate(chain)
            ),
        )

    def save_model(self, request, obj, form, change):
        data = form.cleaned_data
        if change:
            changes = {f: data[f] for f in form.changed_data if f in moderation.EDITABLE_FIELDS}
            if changes:
                saved = moderation.memory_note_edit(tenant=obj.tenant, note=obj, actor=actor_of(request), **changes)
                obj.__dict__.update(saved.__dict__)
            return
        note = moderation.memory_note_admin_create(
            tenant=data["tenant"],
            end_user=data["end_user"],
            actor=actor_of(request),
            kind=data["kind"],
            key=data.get("key", ""),
            content=data["content"],
            confidence=data["confidence"],
            expires_at=data.get("expires_at"),
            pinned=data.get("pinned", False),
        )
        obj.__dict__.update(note.__dict__)

    ONE_NOTE_ACTIONS = {
        "approve": (moderation.memory_note_approve, "Approved", {}),
        "reject": (moderation.memory_note_reject, "Rejected", {}),
        "expire": (moderation.memory_note_expire_now, "Expired", {}),
        "pin": (moderation.memory_note_pin, "Pinned", {"pinned": True}),
        "unpin": (moderation.memory_note_pin, "Unpinned", {"pinned": False}),
        "forget": (memory_note_forget, "Forgot", {}),
    }
    ONE_NOTE_LABELS = {
        "approve": _("Approve"),
        "reject": _("Reject"),
        "expire": _("Expire now"),
        "pin": _("Pin"),
        "unpin": _("Unpin"),
        "forget": _("Forget"),
    }

    @staticmethod
    def actions_for(note) -> list[str]:
        """The buttons a note's page offers in its state: a pending note can be approved or rejected, an active
        one expired, pinned or unpinned; any note still holding content can be forgotten."""
        Status = MemoryNote.Status
        verbs = []
        if note.status == Status.PENDING_REVIEW:
            verbs += ["approve", "reject"]
        if note.status == Status.ACTIVE:
            verbs += ["expire", "unpin" if note.pinned else "pin"]
        if note.status not in (Status.FORGOTTEN, Status.REJECTED):
            verbs.append("forget")
        return verbs

    def get_urls(self):
        info = self.model._meta.app_label, self.model._meta.model_name
        return [
            path(
                "<path:object_id>/moderate/<slug:verb>/",
                self.admin_site.admin_view(self.moderate_view),
                name="{}_{}_moderate".format(*info),
            )
        ] + super().get_urls()

    def moderate_view(self, request, object_id, verb):
        """The buttons on a note's page: POST only, the same services and audit as the list actions."""
        note = self.get_object(request, object_id)
        if note is None or verb not in self.ONE_NOTE_ACTIONS:
            raise Http404("No such note or action.")
        if request.method != "POST" or not self.has_change_permission(request, note):
            raise PermissionDenied
        service, verb_done, extra = self.ONE_NOTE_ACTIONS[verb]
        self._moderate(request, self.get_queryset(request).filter(pk=note.pk), service, verb_done, **extra)
        info = self.model._meta.app_label, self.model._meta.model_name
        return HttpResponseRedirect(reverse("admin:{}_{}_change".format(*info), args=[note.pk]))

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if obj is not None and self.has_change_permission(request, obj):
            info = self.model._meta.app_label, self.model._meta.model_name
            context["moderation_buttons"] = [
                (self.ONE_NOTE_LABELS[verb], reverse("admin:{}_{}_moderate".format(*info), args=[obj.pk, verb]))
                for verb in self.actions_for(obj)
            ]
        return super().render_change_form(request, context, add, change, form_url, obj)

    def _moderate(self, request, queryset, service, verb, **extra):
        done, refused = 0, []
        for note in queryset.select_related("tenant"):
            try:
                service(tenant=note.tenant, note=note, actor=actor_of(request), **extra)
                done += 1
            except ApplicationError as exc:
                refused.append(exc.message)
        if done:
            self.message_user(request, f"{verb} {done} note{pluralize(done)}.", messages.SUCCESS)
        for reason in refused[:10]:
            self.message_user(request, reason, messages.WARNING)

    @admin.action(description=_("Approve (make recallable)"), permissions=["change"])
    def approve(self, request, queryset):
        self._moderate(request, queryset, moderation.memory_note_approve, "Approved")

    @admin.action(description=_("Reject"), permissions=["change"])
    def reject(self, request, queryset):
        self._moderate(request, queryset, moderation.memory_note_reject, "Rejected")

    @admin.action(description=_("Edit (opens the note; the new text is re-embedded)"), permissions=["change"])
    def edit(self, request, queryset):
        notes = list(queryset[:2])
        if len(notes) != 1:
            self.message_user(request, "Select exactly one note to edit.", messages.ERROR)
            return None
        info = self.model._meta.app_label, self.model._meta.model_name
        return HttpResponseRedirect(reverse("admin:{}_{}_change".format(*info), args=[notes[0].pk]))

    @admin.action(description=_("Expire now"), permissions=["change"])
    def expire_now(self, request, queryset):
        self._moderate(request, queryset, moderation.memory_note_expire_now, "Expired")

    @admin.action(description=_("Pin (never decays or expires)"), permissions=["change"])
    def pin(self, request, queryset):
        self._moderate(request, queryset, moderation.memory_note_pin, "Pinned", pinned=True)

    @admin.action(description=_("Unpin"), permissions=["change"])
    def unpin(self, request, queryset):
        self._moderate(request, queryset, moderation.memory_note_pin, "Unpinned", pinned=False)

    @admin.action(description=_("Forget selected notes (audited; the content is erased)"), permissions=["change"])
    def forget(self, request, queryset):
        notes = queryset.exclude(status=MemoryNote.Status.FORGOTTEN)
        self._moderate(request, notes, memory_note_forget, "Forgot")
