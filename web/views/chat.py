"""The chat page: conversations list, the conversation, the message box; streaming and plain-POST replies."""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from assistants.llm import get_chat_model
from assistants.models import MESSAGE_REPLACED_KEY, Message
from assistants.services.alternatives import (
    ALTERNATIVE_OF_KEY,
    EDIT_OF_KEY,
    chat_reply_regenerate_stream,
    chat_turn_edit_stream,
)
from assistants.services.chat import chat_session_start, chat_turn, chat_turn_stream
from assistants.services.feedback import feedback_record
from assistants.services.sessions import session_auto_title, session_delete, session_rename
from core.exceptions import ApplicationError, NotFound
from core.sse import sse, sse_response
from memory.services.event_undo import memory_event_undo
from web.access import assistant_for, assistants_of, end_user_required, message_for, session_for, sessions_of
from web.presenters import reply_context
from web.rendering import markdown_render
from web.selectors import conversation_search
from web.services import chat_reply_stop, chat_stop_clear, chat_stop_requested

logger = logging.getLogger(__name__)

ASSISTANT_KEY = "web_assistant_id"


def _generic_failure() -> str:
    return _("The assistant could not answer just now. Your message is kept: try sending it again in a moment.")


def _model_is_offline(request, assistant) -> bool:
    try:
        return bool(getattr(get_chat_model(tenant=request.tenant, assistant=assistant), "offline", False))
    except Exception:  # a misconfigured model is reported when a turn runs
        logger.exception("could not resolve the chat model")
        return False


def _earlier_versions(message, by_id: dict, key: str) -> list:
    """The versions `message` replaced, oldest first (a regenerated reply's earlier replies, an edited message's
    earlier wording), following the chain the alternatives service leaves."""
    chain, seen = [], {message.pk}
    previous = (message.metadata or {}).get(key)
    while previous in by_id and previous not in seen:
        seen.add(previous)
        chain.append(by_id[previous])
        previous = (by_id[previous].metadata or {}).get(key)
    return list(reversed(chain))


def _message_rows(request, session, *, only: tuple[int, ...] = ()):
    """The conversation's rows; `only`: just these messages (and the earlier versions they replaced), for the
    end of a streamed turn, which must not read a long conversation again."""
    messages = Message.objects.for_tenant(request.tenant).filter(
        session=session, end_user=request.end_user, role__in=[Message.Role.USER, Message.Role.ASSISTANT]
    )
    if only:
        messages = messages.filter(Q(pk__in=only) | Q(metadata__has_key=MESSAGE_REPLACED_KEY))
    messages = list(messages.prefetch_related("feedback"))
    by_id = {m.pk: m for m in messages}
    rows = []
    asked = None  # the user message a reply answers: its turn's memory events are shown under the reply
    for message in messages:
        if MESSAGE_REPLACED_KEY in (message.metadata or {}):
            continue  # an earlier version: shown under the message that replaced it
        rating, earlier = None, []
        if message.role == Message.Role.ASSISTANT:
            rating = next((f.rating for f in message.feedback.all() if f.end_user_id == request.end_user.pk), None)
            earlier = _earlier_versions(message, by_id, ALTERNATIVE_OF_KEY)
        else:
            asked = message
            earlier = _earlier_versions(message, by_id, EDIT_OF_KEY)
        row = {
            "message": message,
            "ctx": reply_context(message.metadata) if message.role == "assistant" else None,
            "rating": rating,
            "earlier": earlier,
        }
        if message.role == Message.Role.ASSISTANT and asked is not None:
            row.update(memory_events=(asked.metadata or {}).get("memory_events") or [], memory_message_id=asked.pk)
        rows.append(row)
    _mark_latest(rows)
    return rows


def _mark_latest(rows) -> None:
    """Only the latest exchange can be regenerated (its reply) or edited (its message)."""
    for role, flag in ((Message.Role.ASSISTANT, "can_regenerate"), (Message.Role.USER, "can_edit")):
        latest = next((row for row in reversed(rows) if row["message"].role == role), None)
        if latest is not None:
            latest[flag] = True


def _latest_task(rows):
    for row in reversed(rows):
        if row["message"].role == Message.Role.ASSISTANT:
            return row["ctx"]["task"]
    return None


def _sessions_page(request):
    """One page of the conversation list (most recent first): a user with 10,000 conversations gets a short list
    with "older" and "newer" links, not all of them (?sessions=<page>)."""
    paginator = Paginator(sessions_of(request), settings.WEB_SESSIONS_PER_PAGE)
    return paginator.get_page(request.GET.get("sessions"))


def _temporary_hours(request) -> int:
    return request.tenant.temporary_chat_ttl_hours


def _chat_context(request, session, *, draft: str = "", error: str = ""):
    rows = _message_rows(request, session) if session else []
    assistant = session.assistant if session else assistants_of(request).first()
    return {
        "sessions": _sessions_page(request),
        "session": session,
        "rows": rows,
        "task": _latest_task(rows),
        "assistants": assistants_of(request),
        "current_assistant": assistant,
        "offline": _model_is_offline(request, assistant) if assistant else False,
        "draft": draft,
        "error": error,
        "max_chars": settings.MAX_MESSAGE_CHARS,
        "temporary_hours": _temporary_hours(request),
        "memory_enabled": request.end_user.memory_enabled,
    }


@require_GET
@end_user_required
def chat_home(request):
    """Open the latest conversation, or the empty state with a "new conversation" button."""
    session = sessions_of(request).first()
    if session is not None:
        return redirect("web:chat", session_id=session.pk)
    return render(request, "web/chat.html", _chat_context(request, None))


@require_POST
@end_user_required
def chat_new(request):
    assistant_id = request.POST.get("assistant") or request.session.get(ASSISTANT_KEY)
    assistant = assistant_for(request, assistant_id) if assistant_id else assistants_of(request).first()
    temporary = request.POST.get("temporary") == "1"
    try:
        session = chat_session_start(
            tenant=request.tenant, end_user=request.end_user, assistant=assistant, temporary=temporary
        )
    except ApplicationError as exc:
        return render(request, "web/chat.html", {**_chat_context(request, None), "error": exc.message}, status=400)
    request.session[ASSISTANT_KEY] = session.assistant_id
    return redirect("web:chat", session_id=session.pk)


@require_GET
@end_user_required
def chat_page(request, session_id: int):
    session = session_for(request, session_id)
    return render(request, "web/chat.html", _chat_context(request, session))


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
        return render(request, "web/chat.html", _chat_context(request, session, error=exc.message), status=400)
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
        return render(
            request, "web/chat.html", _chat_context(request, session, draft=text, error=exc.message), status=400
        )
    except Exception:  # a person gets a sentence, never a stack trace
        logger.exception("chat turn failed")
        return render(
            request, "web/chat.html", _chat_context(request, session, draft=text, error=_generic_failure()), status=502
        )
    session_auto_title(tenant=request.tenant, session=session, text=text)
    if result is None or result.error or result.reply_message is None:
        # The model failed. The user's message is stored (and any fallback reply); the text goes back in the box.
        error = (result.error if result else "") or _generic_failure()
        status = 200 if result is not None and result.reply_message is not None else 502
        return render(request, "web/chat.html", _chat_context(request, session, draft=text, error=error), status=status)
    return redirect(reverse("web:chat", kwargs={"session_id": session.pk}) + "#composer")


@require_POST
@end_user_required
def chat_stream(request, session_id: int):
    """One turn as server-sent events: context, delta..., then done (rendered reply) or error."""
    session = session_for(request, session_id)
    text = request.POST.get("text", "")
    language = translation.get_language()
    turn = chat_turn_stream(tenant=request.tenant, session=session, text=text)
    try:
        first = next(turn)  # validation and storing the user's message happen here: errors answer plainly
    except StopIteration:
        return JsonResponse({"error": _generic_failure()}, status=502)
    except ApplicationError as exc:
        return JsonResponse({"error": exc.message, "code": exc.code}, status=exc.status)
    except Exception:
        logger.exception("chat turn failed before streaming")
        return JsonResponse({"error": _generic_failure()}, status=502)
    session_auto_title(tenant=request.tenant, session=session, text=text)
    return sse_response(request, _turn_events(request, session, turn, first, language))


RENDER_EVERY_SECONDS = 0.08  # re-render the streamed Markdown at most this often (the final render always runs)
STOP_CHECK_SECONDS = 0.25  # how often a streaming turn looks for a Stop pressed by the person


def _latest_user_message_id(request, session) -> int | None:
    return (
        Message.objects.for_tenant(request.tenant)
        .filter(session=session, role=Message.Role.USER)
        .exclude(metadata__has_key=MESSAGE_REPLACED_KEY)
        .order_by("-id")
        .values_list("pk", flat=True)
        .first()
    )


def _turn_events(request, session, turn, first, language):
    event = first
    received, rendered_at, checked_at = [], 0.0, time.monotonic()
    user_message_id = _latest_user_message_id(request, session)  # stored by the turn before its first event
    done = False
    try:
        while event is not None:
            name, payload = event
            if name == "context":
                context = payload.as_dict() if hasattr(payload, "as_dict") else dict(payload or {})
                yield sse(
                    "context",
                    {
                        "count": len(context.get("memories") or []),
                        "title": session.title,
                        "user_message_id": user_message_id,
                    },
                )
            elif name == "delta":
                if user_message_id and time.monotonic() - checked_at >= STOP_CHECK_SECONDS:
                    checked_at = time.monotonic()
                    if _stopped(request, session, turn, user_message_id):
                        yield sse("stopped", {"user_message_id": user_message_id})
                        return
                received.append(str(payload))
                data = {"text": str(payload)}
                now = time.monotonic()
                if now - rendered_at >= RENDER_EVERY_SECONDS:  # the same renderer as the stored reply
                    data["html"] = markdown_render("".join(received))
                    rendered_at = now
                yield sse("delta", data)
            elif name == "done":
                if (
                    user_message_id
                    and payload.reply_message is not None
                    and chat_stop_requested(tenant=request.tenant, user_message_id=user_message_id) is not None
                ):
                    # Stop arrived as the reply was being stored: trim it to what the person saw.
                    payload.reply_message = chat_reply_stop(
                        tenant=request.tenant,
                        end_user=request.end_user,
                        session=session,
                        user_message_id=user_message_id,
                        chars=chat_stop_requested(tenant=request.tenant, user_message_id=user_message_id),
                    )
                reply_id = payload.reply_message.pk if payload.reply_message else None
                with translation.override(language):
                    yield sse("done", _done_payload(request, session, payload))
                done = True
                if reply_id is None:
                    return
            elif name == "memory":  # what the turn wrote or changed: the line under the reply, with Undo
                if payload.get("events"):
                    with translation.override(language):
                        html = render_to_string(
                            "web/_memory_line.html",
                            {"memory_events": payload["events"], "memory_message_id": payload["message_id"]},
                            request=request,
                        )
                    yield sse("memory", {"reply_id": reply_id, "html": html})
                return
            event = next(turn, None)
        if not done:  # a turn that ends without its reply (regenerate and edit send no memory event after it)
            yield sse("error", {"message": _generic_failure()})
    except ApplicationError as exc:
        yield sse("error", {"message": exc.message})
    except Exception:  # the stream ends with a sentence, never a stack trace
        logger.exception("chat turn failed while streaming")
        with translation.override(language):
            yield sse("error", {"message": _generic_failure()})
    finally:
        turn.close()  # the browser went away (Stop): the turn stores what it had, marked stopped
        if user_message_id:
            try:  # a Stop that arrived before the disconnect was noticed: trim to what the person saw
                chars = chat_stop_requested(tenant=request.tenant, user_message_id=user_message_id)
                if chars is not None:
                    chat_reply_stop(
                        tenant=request.tenant,
                        end_user=request.end_user,
                        session=session,
                        user_message_id=user_message_id,
                        chars=chars,
                    )
            except Exception:  # closing a stream must never raise into the server
                logger.exception("trimming a stopped reply failed")


def _stopped(request, session, turn, user_message_id) -> bool:
    """If the person pressed Stop (web.services.chat_reply_stop noted it), end the turn here: closing it stores
    what the model had written, marked stopped, and that is trimmed to what the person saw."""
    chars = chat_stop_requested(tenant=request.tenant, user_message_id=user_message_id)
    if chars is None:
        return False
    turn.close()
    chat_reply_stop(
        tenant=request.tenant, end_user=request.end_user, session=session, user_message_id=user_message_id, chars=chars
    )
    return True


def _done_payload(request, session, result) -> dict:
    """The stored reply rendered as on a page load, and `error` when the model failed (a fallback reply may
    still exist: the chat layer answers offline then)."""
    payload = {"user_message_id": result.user_message.pk, "error": result.error or None, "title": session.title}
    message = result.reply_message
    if message is None:
        payload["error"] = payload["error"] or _generic_failure()
        return payload
    rows = _message_rows(request, session, only=(message.pk, result.user_message.pk))
    for row in rows:
        key = "html" if row["message"].pk == message.pk else "user_html"
        payload[key] = render_to_string("web/_message.html", {"row": row}, request=request)
    payload["task_html"] = render_to_string("web/_task_strip.html", {"task": row["ctx"]["task"]}, request=request)
    payload["reply_id"] = message.pk
    return payload


@require_POST
@end_user_required
def memory_undo(request, message_id: int, note_id: int):
    """Undo one memory change of a turn (the line under the reply): the previous version is restored."""
    message = message_for(request, message_id)
    try:
        memory_event_undo(
            tenant=request.tenant,
            end_user=request.end_user,
            message_id=message.pk,
            note_id=note_id,
            actor=f"user:{request.end_user.external_id}",
        )
    except ApplicationError as exc:
        return render(
            request, "web/chat.html", _chat_context(request, message.session, error=exc.message), status=exc.status
        )
    return redirect(reverse("web:chat", kwargs={"session_id": message.session_id}) + f"#m{message.pk}")


@require_POST
@end_user_required
def message_feedback(request, message_id: int):
    message = message_for(request, message_id)
    rating = request.POST.get("rating", "")
    try:
        feedback_record(tenant=request.tenant, end_user=request.end_user, message_id=message.pk, rating=rating)
    except ApplicationError as exc:
        if request.headers.get("Accept", "").startswith("application/json"):
            return JsonResponse({"error": exc.message}, status=exc.status)
        return render(
            request, "web/chat.html", _chat_context(request, message.session, error=exc.message), status=exc.status
        )
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse({"rating": rating, "message": _("Thanks for the feedback.")})
    return redirect(reverse("web:chat", kwargs={"session_id": message.session_id}) + f"#m{message.pk}")


@require_POST
@end_user_required
def chat_stop(request, session_id: int):
    """The Stop button: the reply ends where the person stopped reading it, on screen and after a reload."""
    session = session_for(request, session_id)
    raw_id, raw_chars = request.POST.get("user_message_id", ""), request.POST.get("chars", "0")
    if (raw_id and not raw_id.isdigit()) or not raw_chars.isdigit():
        return JsonResponse({"error": _("That stop request is not valid.")}, status=400)
    try:
        reply = chat_reply_stop(
            tenant=request.tenant,
            end_user=request.end_user,
            session=session,
            user_message_id=int(raw_id) if raw_id else None,
            chars=int(raw_chars),
        )
    except ApplicationError as exc:
        return JsonResponse({"error": exc.message}, status=exc.status)
    return JsonResponse({"stopped": True, "reply_id": reply.pk if reply else None})


@require_GET
@end_user_required
def chat_search(request):
    """Search across the person's own conversations: titles and messages (?q=)."""
    query = request.GET.get("q", "")
    hits = conversation_search(tenant=request.tenant, end_user=request.end_user, query=query)
    context = _chat_context(request, None)
    context.update({"query": query.strip(), "hits": hits, "searching": True})
    return render(request, "web/search.html", context)


def _stream_turn(request, session, start):
    """Answer a turn started by `start()` (a chat_turn_stream-like generator) as the chat's event stream."""
    language = translation.get_language()
    turn = start()
    try:
        first = next(turn)
    except StopIteration:
        return JsonResponse({"error": _generic_failure()}, status=502)
    except ApplicationError as exc:
        return JsonResponse({"error": exc.message, "code": exc.code}, status=exc.status)
    except Exception:
        logger.exception("chat turn failed before streaming")
        return JsonResponse({"error": _generic_failure()}, status=502)
    return sse_response(request, _turn_events(request, session, turn, first, language))


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
    return _stream_turn(
        request,
        session,
        lambda: chat_turn_edit_stream(tenant=request.tenant, session=session, message=message, text=text),
    )
