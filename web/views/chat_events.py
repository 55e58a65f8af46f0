"""A streamed chat turn as server-sent events (web.views.chat): context, deltas rendered as they come, done with
the stored reply, and the memory line; a Stop pressed by the person, or a disconnect, trims the stored reply to
what the person saw."""

from __future__ import annotations

import logging
import time

from django.template.loader import render_to_string
from django.utils import translation

from core.exceptions import ApplicationError
from core.sse import sse
from tenancy.models import MESSAGE_REPLACED_KEY, Message
from web.rendering import markdown_render
from web.selectors import memory_events_as_said
from web.services import (
    chat_reply_stop,
    chat_stop_requested,
    streamed_turn_begin,
    streamed_turn_stop,
    streamed_turn_stop_requested,
)
from web.views.chat_rows import generic_failure, message_rows

logger = logging.getLogger(__name__)

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


class _Stops:
    """Where this turn's Stop is read and applied: the turn's record when the browser named the reply (`key`),
    else the user message (clients that name the message only, after they have seen its id)."""

    def __init__(self, request, session, key: str | None, user_message_id: int | None):
        self.request, self.session, self.key, self.user_message_id = request, session, key, user_message_id

    def begin(self) -> bool:
        """True when the person pressed Stop before the turn reached the server: it ends at once."""
        if not self.key:
            return False
        return streamed_turn_begin(tenant=self.request.tenant, session=self.session, key=self.key) is not None

    def requested(self) -> int | None:
        tenant = self.request.tenant
        if self.key:
            return streamed_turn_stop_requested(tenant=tenant, session=self.session, key=self.key)
        return (
            chat_stop_requested(tenant=tenant, user_message_id=self.user_message_id) if self.user_message_id else None
        )

    def apply(self, chars: int):
        request, where = self.request, {"tenant": self.request.tenant, "session": self.session}
        if self.key:
            return streamed_turn_stop(**where, end_user=request.end_user, key=self.key, chars=chars)
        if not self.user_message_id:  # requested() is None then: nothing to apply
            return None
        return chat_reply_stop(**where, end_user=request.end_user, user_message_id=self.user_message_id, chars=chars)


def turn_events(request, session, turn, first, language, key: str | None = None):
    """The turn's events as server-sent events. `key` names the reply as the browser does (its Stop names it)."""
    event = first
    received, rendered_at, checked_at = [], 0.0, time.monotonic()
    user_message_id = _latest_user_message_id(request, session)  # stored by the turn before its first event
    stops = _Stops(request, session, key, user_message_id)
    done = False
    try:
        while event is not None:
            name, payload = event
            if name == "context":
                yield _context_event(session, payload, user_message_id)
                if stops.begin():
                    yield sse("stopped", {"user_message_id": user_message_id})
                    return
            elif name == "delta":
                if time.monotonic() - checked_at >= STOP_CHECK_SECONDS:
                    checked_at = time.monotonic()
                    if _stopped(turn, stops):
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
                _trim_if_stopped_while_stored(payload, stops)
                reply_id = payload.reply_message.pk if payload.reply_message else None
                with translation.override(language):
                    yield sse("done", _done_payload(request, session, payload))
                done = True
                if reply_id is None:
                    return
            elif name == "memory":  # what the turn wrote or changed: the line under the reply, with Undo
                if payload.get("events"):
                    yield _memory_line_event(request, payload, reply_id, language)
                return
            event = next(turn, None)
        if not done:  # a turn that ends without its reply (regenerate and edit send no memory event after it)
            yield sse("error", {"message": generic_failure()})
    except ApplicationError as exc:
        yield sse("error", {"message": exc.message})
    except Exception:  # the stream ends with a sentence, never a stack trace
        logger.exception("chat turn failed while streaming")
        with translation.override(language):
            yield sse("error", {"message": generic_failure()})
    finally:
        turn.close()  # the browser went away (Stop): the turn stores what it had, marked stopped
        _trim_after_close(stops)


def _context_event(session, payload, user_message_id) -> bytes:
    """The "context" event: how many memories the reply draws on, the session's title, the stored message's id."""
    context = payload.as_dict() if hasattr(payload, "as_dict") else dict(payload or {})
    return sse(
        "context",
        {
            "count": len(context.get("memories") or []),
            "title": session.title,
            "user_message_id": user_message_id,
        },
    )


def _trim_if_stopped_while_stored(payload, stops: _Stops) -> None:
    """Stop arrived as the reply was being stored: trim it to what the person saw (payload.reply_message is
    replaced by the trimmed reply)."""
    if payload.reply_message is None:
        return
    seen = stops.requested()  # read once: it can change
    if seen is not None:
        payload.reply_message = stops.apply(seen) or payload.reply_message


def _memory_line_event(request, payload, reply_id, language) -> bytes:
    """The "memory" event: the line under the reply that says what the turn wrote or changed, with Undo."""
    said = (
        Message.objects.for_tenant(request.tenant)
        .filter(pk=payload["message_id"], end_user=request.end_user)
        .values_list("content", flat=True)
        .first()
    )
    [events] = memory_events_as_said(
        tenant=request.tenant, end_user=request.end_user, turns=[(said or "", payload["events"])]
    )
    with translation.override(language):
        html = render_to_string(
            "web/_memory_line.html",
            {"memory_events": events, "memory_message_id": payload["message_id"]},
            request=request,
        )
    return sse("memory", {"reply_id": reply_id, "html": html})


def _trim_after_close(stops: _Stops) -> None:
    """A Stop that arrived before the disconnect was noticed: trim the stored reply to what the person saw.
    Never raises: it runs as the stream closes."""
    try:
        chars = stops.requested()
        if chars is not None:
            stops.apply(chars)
    except Exception:  # closing a stream must never raise into the server
        logger.exception("trimming a stopped reply failed")


def _stopped(turn, stops: _Stops) -> bool:
    """If the person pressed Stop (web.services noted it), end the turn here: closing it stores what the model
    had written, marked stopped, and that is trimmed to what the person saw."""
    chars = stops.requested()
    if chars is None:
        return False
    turn.close()
    stops.apply(chars)
    return True


def _done_payload(request, session, result) -> dict:
    """The stored reply rendered as on a page load, and `error` when the model failed (a fallback reply may
    still exist: the chat layer answers offline then)."""
    payload = {"user_message_id": result.user_message.pk, "error": result.error or None, "title": session.title}
    message = result.reply_message
    if message is None:
        payload["error"] = payload["error"] or generic_failure()
        return payload
    rows = message_rows(request, session, only=(message.pk, result.user_message.pk))
    for row in rows:
        key = "html" if row["message"].pk == message.pk else "user_html"
        payload[key] = render_to_string("web/_message.html", {"row": row, "session": session}, request=request)
    payload["task_html"] = render_to_string("web/_task_strip.html", {"task": row["ctx"]["task"]}, request=request)
    payload["reply_id"] = message.pk
    return payload
