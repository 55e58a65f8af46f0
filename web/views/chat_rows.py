"""The chat page's messages as the templates show them (web.views.chat): each with its earlier versions, the
latest reply marked, the task strip of the latest turn."""

from __future__ import annotations

import logging

from django.db.models import Q
from django.utils.translation import gettext as _

from assistants.llm import get_chat_model
from assistants.services.alternatives import (
    ALTERNATIVE_OF_KEY,
    EDIT_OF_KEY,
)
from core.policy import memory_policy_for
from tenancy.models import MESSAGE_REPLACED_KEY, Message
from web.presenters import reply_context
from web.selectors import memory_events_as_said

logger = logging.getLogger(__name__)


def generic_failure() -> str:
    return _("The assistant could not answer just now. Your message is kept: try sending it again in a moment.")


def model_is_offline(request, assistant) -> bool:
    try:
        policy = memory_policy_for(tenant=request.tenant, assistant=assistant)
        return bool(getattr(get_chat_model(policy=policy, assistant=assistant), "offline", False))
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


def message_rows(request, session, *, only: tuple[int, ...] = ()):
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
    _as_said(request, rows)
    _mark_latest(rows)
    return rows


def _as_said(request, rows) -> None:
    """Each memory line with amounts as the user wrote them ("400k", not "400,000")."""
    shown = [row for row in rows if row.get("memory_events")]
    if not shown:
        return
    asked = {m.pk: m.content for m in (row["message"] for row in rows) if m.role == Message.Role.USER}
    turns = [(asked.get(row["memory_message_id"], ""), row["memory_events"]) for row in shown]
    events = memory_events_as_said(tenant=request.tenant, end_user=request.end_user, turns=turns)
    for row, reworded in zip(shown, events, strict=True):
        row["memory_events"] = reworded


def _mark_latest(rows) -> None:
    """Only the latest exchange can be regenerated (its reply) or edited (its message)."""
    for role, flag in ((Message.Role.ASSISTANT, "can_regenerate"), (Message.Role.USER, "can_edit")):
        latest = next((row for row in reversed(rows) if row["message"].role == role), None)
        if latest is not None:
            latest[flag] = True


def latest_task(rows):
    for row in reversed(rows):
        if row["message"].role == Message.Role.ASSISTANT:
            return row["ctx"]["task"]
    return None
