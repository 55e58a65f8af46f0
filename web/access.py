"""Who is asking, and which of their objects they may touch.

Every web view resolves the logged-in account to exactly one EndUser (EndUser.user) and its tenant, then looks
objects up within that tenant AND that end user. Another user's id answers 404, the same as a missing one.
"""

from __future__ import annotations

from functools import wraps

from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render
from django.utils import timezone

from core.erasure import end_user_being_erased
from memory.models import MemoryNote
from tenancy.models import Assistant, ChatSession, EndUser, Message


def end_user_for_account(user) -> EndUser | None:
    if not user.is_authenticated:
        return None
    return EndUser.objects.unscoped().select_related("tenant").filter(user=user).first()


def end_user_required(view):
    """Login required; sets request.end_user and request.tenant, or explains why this account cannot chat."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        end_user = end_user_for_account(request.user)
        if end_user is None:
            return render(request, "web/no_access.html", status=403)
        if end_user_being_erased(end_user):
            logout(request)
            return render(request, "web/erased.html", status=410)
        request.end_user = end_user
        request.tenant = end_user.tenant
        return view(request, *args, **kwargs)

    return wrapper


def _live_sessions(request):
    """The person's conversations, less temporary chats whose time is up (the purge job deletes them soon)."""
    return (
        ChatSession.objects.for_tenant(request.tenant)
        .select_related("assistant")
        .filter(end_user=request.end_user)
        .exclude(temporary=True, expires_at__lte=timezone.now())
    )


def session_for(request, session_id: int) -> ChatSession:
    session = _live_sessions(request).filter(pk=session_id).first()
    if session is None:
        raise Http404("No such conversation.")
    return session


def sessions_of(request):
    return _live_sessions(request).order_by("-last_activity_at", "-id")


def assistants_of(request):
    return Assistant.objects.for_tenant(request.tenant).order_by("id")


def message_for(request, message_id: int) -> Message:
    message = Message.objects.for_tenant(request.tenant).filter(pk=message_id, end_user=request.end_user).first()
    if message is None:
        raise Http404("No such message.")
    return message


def note_for(request, note_id: int) -> MemoryNote:
    note = MemoryNote.objects.for_tenant(request.tenant).filter(pk=note_id, end_user=request.end_user).first()
    if note is None:
        raise Http404("No such note.")
    return note
