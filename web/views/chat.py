"""The chat page: conversations list, the conversation, the message box; streaming and plain-POST replies."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.paginator import Paginator
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from assistants.services.alternatives import (
    chat_reply_regenerate_stream,
    chat_turn_edit_stream,
)
from assistants.services.chat import chat_turn, chat_turn_stream
from assistants.services.feedback import feedback_record
from assistants.services.pinned_sync import session_pinned_after_undo
from assistants.services.sessions import session_auto_title, session_delete, session_rename
from assistants.services.turn_session import turn_session_open
from core.exceptions import ApplicationError, InvalidInput, NotFound
from core.sse import sse_response
from memory.services.notes.event_undo import memory_event_undo
from web.access import assistants_of, end_user_required, message_for, session_for, sessions_of
from web.selectors import conversation_search_grouped
from web.services import TURN_KEY, chat_reply_stop, chat_stop_clear, session_retitle_after_edit, streamed_turn_stop
from web.views.chat_events import turn_events
from web.views.chat_rows import generic_failure, latest_task, message_rows, model_is_offline

logger = logging.getLogger(__name__)

ASSISTANT_KEY = "web_assistant_id"
FIRST_MESSAGE_KEY = "web_first_message"  # the message typed on the home page, until its new conversation opens


def _sessions_page(request):
    """One page of the conversation list (most recent first): a user with 10,000 conversations gets a short list
    with "older" and "newer" links, not all of them (?sessions=<page>)."""
    paginator = Paginator(sessions_of(request), settings.WEB_SESSIONS_PER_PAGE)
    return paginator.get_page(request.GET.get("sessions"))


def _temporary_hours(request) -> int:
    return request.tenant.temporary_chat_ttl_hours


def _chat_context(request, session, *, draft: str = "", error: str = ""):
    rows = message_rows(request, session) if session else []
    assistant = session.assistant if session else assistants_of(request).first()
    return {
        "sessions": _sessions_page(request),
        "session": session,
        "rows": rows,
        "task": latest_task(rows),
        "assistants": assistants_of(request),
        "current_assistant": assistant,
        "offline": model_is_offline(request, assistant) if assistant else False,
        "draft": draft,
        "error": error,
        "max_chars": settings.MAX_MESSAGE_CHARS,
        "temporary_hours": _temporary_hours(request),
        "memory_enabled": request.end_user.memory_enabled,
    }


def _chat_page(request, session, *, draft: str = "", error: str = "", status: int = 200, autosend: bool = False):
    """The chat page of `session` (None: the home page), with what the person typed back in the composer and the
    sentence that says what went wrong, if anything did."""
    context = {**_chat_context(request, session, draft=draft, error=error), "autosend": autosend}
    return render(request, "web/chat.html", context, status=status)


@require_GET
@end_user_required
def chat_home(request):
    """Open the latest conversation, or the empty state with a "new conversation" button."""
    session = sessions_of(request).first()
    if session is not None:
        return redirect("web:chat", session_id=session.pk)
    return _chat_page(request, None)


@require_POST
@end_user_required
def chat_new(request):
    assistant_id = request.POST.get("assistant") or request.session.get(ASSISTANT_KEY)
    if assistant_id and not str(assistant_id).isdigit():
        raise Http404("No such assistant.")
    temporary = request.POST.get("temporary") == "1"
    try:
        session = turn_session_open(
            tenant=request.tenant,
            end_user=request.end_user,
            assistant_id=int(assistant_id) if assistant_id else None,
            temporary=temporary,
        )
    except NotFound as exc:  # no such assistant in this tenant
        raise Http404("No such assistant.") from exc
    except ApplicationError as exc:
        return _chat_page(request, None, error=exc.message, status=400)
    request.session[ASSISTANT_KEY] = session.assistant_id
    text = request.POST.get("text", "")
    if text.strip():  # typed on the home page: the new conversation's page sends it (static/web/app.js)
        request.session[FIRST_MESSAGE_KEY] = {"session": session.pk, "text": text[: settings.MAX_MESSAGE_CHARS]}
    return redirect("web:chat", session_id=session.pk)


@require_GET
@end_user_required
def chat_page(request, session_id: int):
    session = session_for(request, session_id)
    first = request.session.get(FIRST_MESSAGE_KEY) or {}
    if first.get("session") != session.pk:
        return _chat_page(request, session)
    del request.session[FIRST_MESSAGE_KEY]  # once: a reload does not send it again
    return _chat_page(request, session, draft=first.get("text", ""), autosend=True)


@require_POST
@end_user_required
def chat_rename(request, session_id: int):
    session = session_for(request, session_id)
    try:
        session_rename(
            tenant=request.tenant, end_user=request.end_user, session=session, title=request.POST.get("title", "")
        )
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except ApplicationError as exc:
        return _chat_page(request, session, error=exc.message, status=400)
    return redirect("web:chat", session_id=session.pk)


@require_POST
@end_user_required
def chat_delete(request, session_id: int):
    session = session_for(request, session_id)
    try:
        session_delete(tenant=request.tenant, end_user=request.end_user, session=session)
    except NotFound as exc:  # not the person's: the same answer as a missing conversation
        raise Http404(exc.message) from exc
    return redirect("web:home")


@require_POST
@end_user_required
def chat_send(request, session_id: int):
    """The fallback without JavaScript or streaming: a plain form POST, the whole reply at once."""
    session = session_for(request, session_id)
    text = request.POST.get("text", "")
    try:
        result = chat_turn(tenant=request.tenant, session=session, text=text)
    except ApplicationError as exc:
        return _chat_page(request, session, draft=text, error=exc.message, status=400)
    except Exception:  # a person gets a sentence, never a stack trace
        logger.exception("chat turn failed")
        return _chat_page(request, session, draft=text, error=generic_failure(), status=502)
    session_auto_title(tenant=request.tenant, session=session, text=text)
    if result is None or result.error or result.reply_message is None:
        # The model failed. The user's message is stored (and any fallback reply); the text goes back in the box.
        error = (result.error if result else "") or generic_failure()
        status = 200 if result is not None and result.reply_message is not None else 502
        return _chat_page(request, session, draft=text, error=error, status=status)
    return redirect(reverse("web:chat", kwargs={"session_id": session.pk}) + "#composer")


@require_POST
@end_user_required
def chat_stream(request, session_id: int):
    """One turn as server-sent events: context, delta..., then done (rendered reply) or error."""
    session = session_for(request, session_id)
    text = request.POST.get("text", "")
    return _stream_turn(
        request,
        session,
        lambda: chat_turn_stream(tenant=request.tenant, session=session, text=text),
        started=lambda: session_auto_title(tenant=request.tenant, session=session, text=text),
    )


@require_POST
@end_user_required
def memory_undo(request, message_id: int, note_id: int):
    """Undo one memory change of a turn (the line under the reply): the previous version is restored."""
    message = message_for(request, message_id)
    try:
        event = memory_event_undo(
            tenant=request.tenant,
            end_user=request.end_user,
            message_id=message.pk,
            note_id=note_id,
            actor=f"user:{request.end_user.external_id}",
        )
        session_pinned_after_undo(tenant=request.tenant, end_user=request.end_user, event=event)
    except ApplicationError as exc:
        return _chat_page(request, message.session, error=exc.message, status=exc.status)
    return _back_to_message(message)


@require_POST
@end_user_required
def message_feedback(request, message_id: int):
    message = message_for(request, message_id)
    rating = request.POST.get("rating", "")
    try:
        feedback_record(tenant=request.tenant, end_user=request.end_user, message_id=message.pk, rating=rating)
    except ApplicationError as exc:
        if _wants_json(request):
            return JsonResponse({"error": exc.message}, status=exc.status)
        return _chat_page(request, message.session, error=exc.message, status=exc.status)
    if _wants_json(request):
        return JsonResponse({"rating": rating, "message": _("Thanks for the feedback.")})
    return _back_to_message(message)


def _wants_json(request) -> bool:
    """The page's script asked (static/web/app.js): it answers in place, with no reload."""
    return request.headers.get("Accept", "").startswith("application/json")


def _back_to_message(message):
    """The conversation of `message`, scrolled to it: where the person was when they acted on it."""
    return redirect(reverse("web:chat", kwargs={"session_id": message.session_id}) + f"#m{message.pk}")


def _turn_key(request) -> str | None:
    """The name the browser gave the reply it is about to stream (`turn`), or None; InvalidInput when malformed."""
    key = request.POST.get("turn", "")
    if key and not TURN_KEY.fullmatch(key):
        raise InvalidInput(_("That reply is not named the way the chat names replies; reload the page."))
    return key or None


@require_POST
@end_user_required
def chat_stop(request, session_id: int):
    """The Stop button: the reply ends where the person stopped reading it, on screen and after a reload. The
    Stop names its reply: `turn` (the browser's name for it, known before the message reaches the server) or
    `user_message_id`; a Stop that names neither is refused, so it can never reach an earlier, finished reply."""
    session = session_for(request, session_id)
    raw_id, raw_chars = request.POST.get("user_message_id", ""), request.POST.get("chars", "0")
    if (raw_id and not raw_id.isdigit()) or not raw_chars.isdigit():
        return JsonResponse({"error": _("That stop request is not valid.")}, status=400)
    where = {"tenant": request.tenant, "end_user": request.end_user, "session": session, "chars": int(raw_chars)}
    try:
        key = _turn_key(request)
        if key:
            reply = streamed_turn_stop(**where, key=key)
        elif raw_id:
            reply = chat_reply_stop(**where, user_message_id=int(raw_id))
        else:
            raise InvalidInput(_("That stop request does not say which reply to stop; reload the page."))
    except ApplicationError as exc:
        return JsonResponse({"error": exc.message}, status=exc.status)
    return JsonResponse({"stopped": True, "reply_id": reply.pk if reply else None})


@require_GET
@end_user_required
def chat_search(request):
    """Search across the person's own conversations: titles and messages (?q=)."""
    query = request.GET.get("q", "")
    groups = conversation_search_grouped(tenant=request.tenant, end_user=request.end_user, query=query)
    context = _chat_context(request, None)
    context.update({"query": query.strip(), "groups": groups, "searching": True})
    return render(request, "web/search.html", context)


def _stream_turn(request, session, start, *, started=None):
    """Answer a turn started by `start()` (a chat_turn_stream-like generator) as the chat's event stream. Its first
    event is read here (validation and storing the person's message happen there), so a refusal answers as plain
    JSON; `started()`, if given, runs once it has been read, before the stream is sent."""
    language = translation.get_language()
    try:
        key = _turn_key(request)
    except ApplicationError as exc:  # before anything is stored
        return JsonResponse({"error": exc.message, "code": exc.code}, status=exc.status)
    turn = start()
    try:
        first = next(turn)
    except StopIteration:
        return JsonResponse({"error": generic_failure()}, status=502)
    except ApplicationError as exc:
        return JsonResponse({"error": exc.message, "code": exc.code}, status=exc.status)
    except Exception:
        logger.exception("chat turn failed before streaming")
        return JsonResponse({"error": generic_failure()}, status=502)
    if started is not None:
        started()
    return sse_response(request, turn_events(request, session, turn, first, language, key))


@require_POST
@end_user_required
def message_regenerate(request, message_id: int):
    """Regenerate: another reply to the same message; the old one stays as an earlier version."""
    reply = message_for(request, message_id)
    session = session_for(request, reply.session_id)
    chat_stop_clear(tenant=request.tenant, session=session)
    return _stream_turn(
        request, session, lambda: chat_reply_regenerate_stream(tenant=request.tenant, session=session, reply=reply)
    )


@require_POST
@end_user_required
def message_edit(request, message_id: int):
    """Edit and resend the latest message: a new turn; the old message and its reply stay as an earlier version."""
    message = message_for(request, message_id)
    session = session_for(request, message.session_id)
    text = request.POST.get("text", "")
    session_retitle_after_edit(tenant=request.tenant, session=session, message=message, text=text)
    return _stream_turn(
        request,
        session,
        lambda: chat_turn_edit_stream(tenant=request.tenant, session=session, message=message, text=text),
    )
