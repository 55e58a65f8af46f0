""" "What I remember about you": every active note with its provenance; correct, forget, forget everything."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from assistants.services.pinned_sync import session_pinned_follow_notes
from assistants.services.tenants import end_user_memory_set
from core.exceptions import ApplicationError
from memory.models import MemoryNote
from memory.services.notes.note_versions import VersionMismatch, memory_note_update_if_version
from memory.services.notes.notes import memory_note_forget
from web.access import end_user_required, note_for
from web.forms import NoteCorrectionForm
from web.note_cards import note_cards

# Everything but notes already forgotten or rejected: "forget everything" must also clear superseded history.
FORGETTABLE = [
    MemoryNote.Status.ACTIVE,
    MemoryNote.Status.PENDING_REVIEW,
    MemoryNote.Status.SUPERSEDED,
    MemoryNote.Status.EXPIRED,
    MemoryNote.Status.ARCHIVED,
]


def _actor(request) -> str:
    """The audit actor of a person acting for themself: "user:<external_id>", as every layer writes it (erasure
    replaces it with "erased user"; the admin shows it as "end user")."""
    return f"user:{request.end_user.external_id}"


def _notes_page(request):
    """One page of the active notes, newest first (?page=<n>): a user with 100,000 notes gets WEB_NOTES_PER_PAGE
    of them, with their provenance and history, not all."""
    notes = (
        MemoryNote.objects.for_tenant(request.tenant)
        .filter(end_user=request.end_user, status=MemoryNote.Status.ACTIVE)
        .select_related("session")
        .order_by("-created_at", "-id")
    )
    return Paginator(notes, settings.WEB_NOTES_PER_PAGE).get_page(request.GET.get("page"))


@require_GET
@end_user_required
def memory_page(request):
    page = _notes_page(request)
    return render(
        request,
        "web/memory.html",
        {
            "rows": note_cards(tenant=request.tenant, end_user=request.end_user, notes=list(page)),
            "page": page,
            "memory_enabled": request.end_user.memory_enabled,
            # a card's Forget is sent by static/web/app.js when this window ends (or the page is left): Undo
            # only unfolds the card, since nothing was forgotten yet
            "forget_undo_seconds": settings.WEB_FORGET_UNDO_SECONDS,
        },
    )


@require_POST
@end_user_required
def memory_switch(request):
    """The memory switch: off, nothing new is remembered or recalled; the notes listed stay until forgotten."""
    value = request.POST.get("enabled")
    if value not in ("on", "off"):
        messages.error(request, _("Choose whether memory should be on or off."))
        return redirect("web:memory")
    end_user_memory_set(tenant=request.tenant, end_user=request.end_user, enabled=value == "on", actor=_actor(request))
    if value == "on":
        messages.success(request, _("Memory is on. The assistant will remember what matters from now on."))
    else:
        messages.success(
            request,
            _(
                "Memory is off. Nothing new is remembered, and what is kept below is not used "
                "until you turn memory back on."
            ),
        )
    return redirect("web:memory")


@require_POST
@end_user_required
def memory_correct(request, note_id: int):
    note = note_for(request, note_id)
    if note.status != MemoryNote.Status.ACTIVE:
        messages.error(request, _("That note can no longer be changed."))
        return redirect("web:memory")
    form = NoteCorrectionForm(request.POST, prefix=f"n{note.pk}")
    if not form.is_valid():
        messages.error(request, _("The corrected note is empty: write what should be remembered instead."))
        return redirect("web:memory")
    version = form.cleaned_data["version"]
    try:
        note = memory_note_update_if_version(
            tenant=request.tenant,
            note=note,
            expected={version} if version else None,
            actor=_actor(request),
            content=form.cleaned_data["content"],
        )
    except VersionMismatch:
        messages.error(
            request,
            _(
                "That note was changed since this page was opened (in another tab or device); nothing was saved. "
                "Here is its current wording: correct it again if it is still wrong."
            ),
        )
        return redirect("web:memory")
    except ApplicationError as exc:
        messages.error(request, exc.message)
        return redirect("web:memory")
    session_pinned_follow_notes(tenant=request.tenant, end_user=request.end_user, current=note)
    messages.success(request, _("Corrected. The assistant will use the new wording from now on."))
    return redirect("web:memory")


@require_POST
@end_user_required
def memory_forget(request, note_id: int):
    note = note_for(request, note_id)
    if note.status != MemoryNote.Status.FORGOTTEN:
        memory_note_forget(tenant=request.tenant, note=note, actor=_actor(request))
    if request.POST.get("quiet") != "1":  # the card already said so (static/web/app.js)
        messages.success(request, _("Forgotten. The assistant will not use it again."))
    return redirect("web:memory")


@require_POST
@end_user_required
def memory_forget_all(request):
    if request.POST.get("confirm") != "yes":
        messages.error(request, _("Tick the box to confirm that everything should be forgotten."))
        return redirect("web:memory")
    notes = MemoryNote.objects.for_tenant(request.tenant).filter(end_user=request.end_user, status__in=FORGETTABLE)
    count = 0  # the notes the page listed (active ones); their earlier versions and pending ones go too, uncounted
    for note in notes:
        was_active = note.status == MemoryNote.Status.ACTIVE
        memory_note_forget(tenant=request.tenant, note=note, actor=_actor(request))
        count += 1 if was_active else 0
    messages.success(
        request,
        ngettext("Forgot everything (%(count)d note).", "Forgot everything (%(count)d notes).", count)
        % {"count": count},
    )
    return redirect("web:memory")
