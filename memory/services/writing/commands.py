"""Memory commands inside a chat turn (a pre-turn hook, see assistants.services.hooks):

- "忘掉我之前说的咖啡偏好" / "forget that I drink coffee": the matching notes are forgotten now, and the reply
  says what was forgotten;
- a statement that changes a known fact unclearly ("预算大概 15 万吧" after "预算大概 10 万") makes the reply ask
  ("我记得你说过预算约 10 万元，现在是 15 万了吗？"); the extraction job holds the new value for review;
- the user's answer to that question settles it: yes -> the new note replaces the old, no -> it is rejected.
"""

from __future__ import annotations

import re

from django.db import transaction
from django.utils.translation import gettext as _

from core.i18n import user_language
from core.policy import MemoryPolicy
from core.text import has_chinese
from memory.models import MemoryNote
from memory.reading import message_read, user_notes_targeted
from memory.services.forgetting.forget_requests import forget_target
from memory.services.notes.notes import memory_note_update, memory_notes_forget
from memory.services.writing.rules import injection_kind, read_message
from memory.services.writing.writing import existing_note, is_unclear_change, same_fact
from tenancy.models import Message

YES = re.compile(
    r"^(?:是的?|对的?|没错|嗯+|对呀|是啊|确实|现在是|改了|yes|yeah|yep|right|correct|that's right|sure)", re.IGNORECASE
)
NO = re.compile(r"^(?:不是|不对|没有|没变|还是|不|否|no\b|nope|not really|still)", re.IGNORECASE)


def _describe(value: dict | None, content: str, chinese: bool) -> str:
    if isinstance(value, dict) and "amount" in value:
        n = value["amount"]
        if chinese:
            return f"{n / 10000:g} 万" if n >= 10000 else f"{n:g}"
        return f"{n:,.0f}"
    if isinstance(value, dict) and value.get("option"):
        return str(value["option"])
    if isinstance(value, dict) and (value.get("place") or value.get("type")):
        return str(value.get("place") or value.get("type"))
    return content.rstrip("。.")


def _settle(*, tenant, session, message, policy) -> dict | None:
    """The user's answer to our last question about an unclear change."""
    text = message.content.strip()
    if not (YES.search(text) or NO.search(text)):  # not an answer: no need to look for the question
        return None
    previous = (
        Message.objects.for_tenant(tenant)
        .filter(session=session, id__lt=message.pk, role=Message.Role.USER)
        .order_by("-id")
        .first()
    )
    if previous is None:
        return None
    pending = _pending_conflict(tenant=tenant, session=session, previous=previous, policy=policy)
    text = message.content.strip()
    chinese = has_chinese(text)
    answer = "yes" if YES.search(text) else "no" if NO.search(text) else None
    if pending is None or answer is None:
        return None
    actor = f"user:{session.end_user.external_id}"
    Message.objects.for_tenant(tenant).filter(pk=message.pk).update(
        metadata={**(message.metadata or {}), "memory_answer": {"note": pending.pk, "answer": answer}}
    )
    message.metadata = {**(message.metadata or {}), "memory_answer": {"note": pending.pk, "answer": answer}}
    if answer == "yes":
        hint = _change_accept(tenant=tenant, message=message, pending=pending, actor=actor, chinese=chinese)
    else:
        memory_note_update(tenant=tenant, note=pending, actor=actor, status=MemoryNote.Status.REJECTED)
        with user_language(chinese):
            hint = _("OK, I'll keep what I had.")
    return {"section": "memory", "data": {"settled": pending.pk, "answer": answer}, "reply_hint": hint}


def _pending_conflict(*, tenant, session, previous, policy) -> MemoryNote | None:
    """The change held for review that the user's previous message made (the one we asked about). Offline, that
    message is extracted first: its job may not have run yet, and offline it is cheap and idempotent."""
    if (
        policy.chat_model == "offline"
        and not MemoryNote.objects.for_tenant(tenant).filter(source_messages=previous).exists()
    ):
        from memory.services.writing.extraction import memory_extract_for_message

        memory_extract_for_message(tenant_id=tenant.pk, message_id=previous.pk)
    return (
        MemoryNote.objects.for_tenant(tenant)
        .filter(
            end_user=session.end_user,
            status=MemoryNote.Status.PENDING_REVIEW,
            review_reason="conflict",
            source_messages=previous,
        )
        .first()
    )


def _change_accept(*, tenant, message, pending: MemoryNote, actor: str, chinese: bool) -> str:
    """The user said yes: the held change becomes the active note (superseding the old one), the turn records it as
    a memory event, and the reply says what the notes now hold."""
    from memory.services.notes.events import memory_events_record, note_event

    memory_note_update(
        tenant=tenant,
        note=pending,
        actor=actor,
        status=MemoryNote.Status.ACTIVE,
        confidence=max(pending.confidence, 0.85),
    )
    before = MemoryNote.objects.for_tenant(tenant).filter(pk=pending.supersedes_id).first()
    memory_events_record(
        tenant=tenant,
        message=message,
        events=[note_event(action="superseded" if before is not None else "written", note=pending, before=before)],
    )
    with user_language(chinese):
        return _("Got it, I've updated my notes: %(content)s") % {"content": pending.content}


def _ask(*, tenant, session, message, policy) -> dict | None:
    """Ask when this message changes a known fact unclearly."""
    if injection_kind(message.content):
        return None  # a claim or injected markup never changes a fact, so there is nothing to ask about
    chinese = has_chinese(message.content)
    for candidate in read_message(message.content):
        if candidate.whim or not candidate.key:
            continue
        old = existing_note(
            tenant=tenant, end_user=session.end_user, candidate=candidate, embedding_model=policy.embedding_model
        )
        if old is None or same_fact(old, candidate) or not is_unclear_change(old, candidate, policy):
            continue
        # in Chinese the old note itself is quoted back, in the second person ("用户…" -> "你…")
        was = old.content.rstrip("。").replace("用户", "你") if chinese else _describe(old.value, old.content, chinese)
        now = _describe(candidate.value, candidate.content, chinese)
        with user_language(chinese):
            hint = _("I remember you said %(was)s; is it %(now)s now?") % {"was": was, "now": now}
        return {"section": "memory", "data": {"conflict": old.pk, "key": candidate.key}, "reply_hint": hint}
    return None


def memory_turn_hook(*, tenant, session, message, policy: MemoryPolicy) -> dict | None:
    """See assistants.services.hooks for the contract. `policy`: the turn's."""
    if (message.metadata or {}).get("memory_command") == "forget":
        return None  # applied everywhere by assistants.services.forgetting, which runs first in a turn
    target = forget_target(message.content)
    if target:
        act = message_read(message.content).forget
        targeting = user_notes_targeted(
            tenant=tenant,
            end_user=session.end_user,
            phrase=target,
            sentence=act.sentence if act else target,
            spared=act.spared if act else (),
        )
        chinese = has_chinese(message.content)
        if targeting.ask:  # two notes about equally close: ask, never guess
            first, second = (n.content.rstrip("。.") for n, _score in targeting.ask)
            with user_language(chinese):
                hint = _("Do you mean “%(first)s” or “%(second)s”? Tell me which one to forget, or say both.") % {
                    "first": first,
                    "second": second,
                }
            return {"section": "memory", "data": {"ask": [n.pk for n, _ in targeting.ask]}, "reply_hint": hint}
        with transaction.atomic():
            forgotten = memory_notes_forget(
                tenant=tenant,
                end_user=session.end_user,
                notes=[n for n, _score in targeting.named],
                query=target,
                actor=f"user:{session.end_user.external_id}",
            )
        if forgotten:
            items = (
                "；".join(f["content"].rstrip("。") for f in forgotten)
                if chinese
                else "; ".join(f["content"].rstrip(".") for f in forgotten)
            )
            with user_language(chinese):
                hint = _("Done, I have forgotten: %(items)s.") % {"items": items}
        else:
            with user_language(chinese):
                hint = _("I have no memory about “%(target)s”, so there was nothing to forget.") % {"target": target}
        return {"section": "memory", "data": {"forgotten": forgotten}, "reply_hint": hint}
    settled = _settle(tenant=tenant, session=session, message=message, policy=policy)
    if settled:
        return settled
    return _ask(tenant=tenant, session=session, message=message, policy=policy)
