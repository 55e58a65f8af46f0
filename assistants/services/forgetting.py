""" "Forget …" means everywhere: a user's forget request removes the fact from every place a turn keeps
it, not only from the notes:

- long-term notes (memory.services.notes.notes.memory_forget_matching: content, embedding, search terms, episodic recall);
- pinned facts and lines of the rolling summary of the user's sessions (this module: both live on ChatSession);
- values of the user's task states, their step history and drafted result (tasks.services.working_memory);
- session scratch entries that hold it (tasks.services.scratch).

The confirmation says what was forgotten and where. This is the chat turn's layer: it sees memory and tasks,
which do not see each other. The pre-turn hook marks the message as a memory command, so no other hook reads it
as a fact or a task value.
"""

from __future__ import annotations

import re

from django.db import transaction
from django.utils.translation import gettext, pgettext_lazy

from core.i18n import user_language
from core.text import has_chinese
from memory.reading import message_read, user_notes_targeted
from memory.reading.answers import ask_answered
from memory.reading.ordinals import listed_item
from memory.services.forgetting.forget_requests import forget_target
from memory.services.notes.events import forget_event, memory_events_record
from memory.services.notes.notes import memory_forget_matching, memory_notes_forget
from memory.services.vectors.embeddings import search_terms
from memory.services.writing.topics import query_topics
from tenancy.models import ChatSession

# Pinned fact keys (assistants.services.pinned) and the note slots they hold.
PINNED_SLOTS = {
    "budget": {"budget"},
    "city": {"location"},
    "district": {"location"},
    "size": {"shop_size"},
    "category": {"business"},
    "allergy": {"allergy"},
    "headcount": {"staff"},
}
_FILLER = re.compile(
    r"这件事|这个事|那件事|的事情?|这一点|这条|那条|the fact that|\bthat\b|\babout\b|\bmy\b|\bthe\b|"
    r"\b(?:i'm|i am|i|don't|do not|doesn't|not|no|never|am|is|are)\b|"
    r"我之前说的|我说过的|我说的|我|你",
    re.IGNORECASE,
)
# Where a forgotten fact was removed from, as the user is told (translated in locale/zh_Hans).
PLACE_NAMES = {
    "notes": pgettext_lazy("forgotten from", "notes"),
    "pinned": pgettext_lazy("forgotten from", "pinned facts"),
    "summary": pgettext_lazy("forgotten from", "the conversation summary"),
    "task": pgettext_lazy("forgotten from", "task state"),
    "scratch": pgettext_lazy("forgotten from", "session scratch"),
}


class Needles:
    """What a forget request names, to look for in other places: the request's words and the forgotten notes'
    values (a place, a type, an option and its surface forms)."""

    def __init__(self, *, target: str, forgotten: list[dict]):
        self.terms = set(search_terms(_FILLER.sub(" ", target)))
        self.slots = set(query_topics(target)) | {(f.get("key") or "").split(":")[-1] for f in forgotten} - {""}
        values = set()
        for f in forgotten:
            for field in ("place", "type", "option"):
                v = (f.get("value") or {}).get(field)
                if isinstance(v, str) and len(v) >= 2:
                    values.add(v.lower())
        self.values = values

    def found_in(self, text: str) -> bool:
        text = str(text or "")
        low = text.lower()
        if any(v in low for v in self.values):
            return True
        if not self.terms:
            return False
        theirs = set(search_terms(text))
        shared = len(self.terms & theirs)
        return shared >= min(len(self.terms), 2) and shared / len(self.terms) >= 0.6


def _sessions_forget(*, tenant, end_user, needles: Needles, current=None) -> set[str]:
    """Remove matching pinned facts and summary sentences from the user's sessions. Returns the places touched."""
    places: set[str] = set()
    for session in ChatSession.objects.for_tenant(tenant).select_for_update().filter(end_user=end_user):
        pinned = dict(session.pinned_facts or {})
        kept = {}
        for key, fact in pinned.items():
            value = fact.get("value") if isinstance(fact, dict) else fact
            slots = PINNED_SLOTS.get(key.split(":")[0], set())
            if (slots & needles.slots) or needles.found_in(value if isinstance(value, str) else str(value)):
                places.add("pinned")
                continue
            kept[key] = fact
        sentences = re.split(r"(?<=[。！？!?\n])|(?<=\.)\s+", session.summary or "")
        summary = "".join(s for s in sentences if not needles.found_in(s)).strip()
        if summary != (session.summary or "").strip():
            places.add("summary")
        if kept != pinned or summary != (session.summary or "").strip():
            ChatSession.objects.for_tenant(tenant).filter(pk=session.pk).update(pinned_facts=kept, summary=summary)
            if current is not None and current.pk == session.pk:  # this turn's context is built without them
                current.pinned_facts, current.summary = kept, summary
            _reply_contexts_forget(tenant=tenant, session=session, removed=set(pinned) - set(kept), needles=needles)
    return places


def _reply_contexts_forget(*, tenant, session, removed: set[str], needles: Needles) -> None:
    """The pinned facts and summary each reply was built from are kept with it (the web chat's "used N memories"):
    the forgotten ones leave those copies too."""
    from tenancy.models import Message

    for reply in Message.objects.for_tenant(tenant).filter(
        session=session, role=Message.Role.ASSISTANT, metadata__has_key="context"
    ):
        context = dict((reply.metadata or {}).get("context") or {})
        pinned = {k: v for k, v in (context.get("pinned_facts") or {}).items() if k not in removed}
        sentences = re.split(r"(?<=[。！？!?\n])|(?<=\.)\s+", context.get("summary") or "")
        summary = "".join(s for s in sentences if not needles.found_in(s)).strip()
        if pinned != (context.get("pinned_facts") or {}) or summary != (context.get("summary") or "").strip():
            context.update(pinned_facts=pinned, summary=summary)
            Message.objects.for_tenant(tenant).filter(pk=reply.pk).update(
                metadata={**reply.metadata, "context": context}
            )


def _describe(forgotten: list[dict], places: set[str], target: str, chinese: bool) -> str:
    order = [p for p in ("notes", "pinned", "summary", "task", "scratch") if p in places]
    if forgotten:
        items = ("；" if chinese else "; ").join(f["content"].rstrip("。.") for f in forgotten)
    else:
        items = target
    with user_language(chinese):
        where = ("、" if chinese else ", ").join(str(PLACE_NAMES[p]) for p in order)
        return gettext("Done, I have forgotten: %(items)s. Removed from %(where)s.") % {"items": items, "where": where}


@transaction.atomic
def forget_everywhere(*, tenant, end_user, query: str, actor: str = "", session=None, notes=None) -> dict:
    """Forget what `query` names in every place it lives. Returns {"forgotten": [...], "places": [...]}.
    `notes`: the notes the reader named (memory.reading.targets); without them, the notes matching `query`."""
    from tasks.services.scratch import scratch_forget
    from tasks.services.working_memory import task_states_forget

    if notes is None:
        forgotten = memory_forget_matching(tenant=tenant, end_user=end_user, query=query, actor=actor, with_values=True)
    else:
        forgotten = memory_notes_forget(
            tenant=tenant, end_user=end_user, notes=notes, query=query, actor=actor, with_values=True
        )
    needles = Needles(target=query, forgotten=forgotten)
    places = {"notes"} if forgotten else set()
    places |= _sessions_forget(tenant=tenant, end_user=end_user, needles=needles, current=session)
    if task_states_forget(tenant=tenant, end_user=end_user, found_in=needles.found_in):
        places.add("task")
    if scratch_forget(tenant=tenant, end_user=end_user, found_in=needles.found_in):
        places.add("scratch")
    for f in forgotten:
        f.pop("value", None)
    return {"forgotten": forgotten, "places": sorted(places)}


def _asked_before(*, tenant, session, message) -> list | None:
    """The two notes the previous user message of this session asked about ("Do you mean X or Y?"), if it did."""
    from memory.models import MemoryNote
    from tenancy.models import Message

    previous = (
        Message.objects.for_tenant(tenant)
        .filter(session=session, role=Message.Role.USER, id__lt=message.pk)
        .order_by("-id")
        .only("metadata")
        .first()
    )
    ids = (previous.metadata or {}).get("forget_ask") if previous is not None else None
    if not ids:
        return None
    notes = {
        n.pk: n
        for n in MemoryNote.objects.for_tenant(tenant).filter(
            pk__in=ids,
            end_user=session.end_user,
            status__in=[MemoryNote.Status.ACTIVE, MemoryNote.Status.PENDING_REVIEW],
        )
    }
    return [notes[i] for i in ids if i in notes] or None


def _said_before(*, tenant, session, message) -> str:
    """The text a bare "forget that" points at: the last reply before the message, else the user's message before."""
    from tenancy.models import Message

    earlier = Message.objects.for_tenant(tenant).filter(session=session, id__lt=message.pk).order_by("-id")
    reply = earlier.filter(role=Message.Role.ASSISTANT).values_list("content", flat=True).first()
    said = earlier.filter(role=Message.Role.USER).values_list("content", flat=True).first()
    return (reply or said or message.content)[:1000]


def _mark(*, tenant, message, **fields) -> None:
    from tenancy.models import Message

    metadata = {**(message.metadata or {}), **fields}
    Message.objects.for_tenant(tenant).filter(pk=message.pk).update(metadata=metadata)
    message.metadata = metadata


def forget_turn_hook(*, tenant, session, message) -> dict | None:
    """Pre-turn hook (assistants.services.hooks): a forget request is applied everywhere at once, and the reply
    says what was forgotten and where. The notes it names are found by meaning (memory.reading.targets); when two
    are about equally close the reply asks which one, and the next message's answer ("the first", "both", or
    naming one) is applied."""
    act = message_read(message.content).forget
    chinese = has_chinese(message.content)
    actor = f"user:{session.end_user.external_id}"
    if act is None:
        asked = _asked_before(tenant=tenant, session=session, message=message)
        chosen = ask_answered(message.content, asked) if asked else None
        if chosen is None:
            return None
        _mark(tenant=tenant, message=message, memory_command="forget")
        target = "; ".join(n.content for n in chosen)
        return _forget_reply(tenant=tenant, session=session, message=message, target=target, notes=chosen)
    _mark(tenant=tenant, message=message, memory_command="forget")
    # "actually, forget that" names what was just said: the reply before it (which repeats the fact) or the message
    target = (forget_target(message.content) if act.phrase else "") or _said_before(
        tenant=tenant, session=session, message=message
    )
    # "第二条删掉" after a reply that listed what the assistant remembers: that item of the list
    target = listed_item(target, _said_before(tenant=tenant, session=session, message=message)) or target
    targeting = user_notes_targeted(
        tenant=tenant, end_user=session.end_user, phrase=target, sentence=act.sentence, spared=act.spared
    )
    if targeting.ask:
        notes = [n for n, _score in targeting.ask]
        _mark(tenant=tenant, message=message, forget_ask=[n.pk for n in notes])
        with user_language(chinese):
            hint = gettext("Do you mean “%(first)s” or “%(second)s”? Tell me which one to forget, or say both.") % {
                "first": notes[0].content.rstrip("。."),
                "second": notes[1].content.rstrip("。."),
            }
        memory_events_record(tenant=tenant, message=message, events=[])
        return {"section": "memory", "data": {"ask": [n.pk for n in notes]}, "reply_hint": hint}
    named = [n for n, _score in targeting.named]
    return _forget_reply(tenant=tenant, session=session, message=message, target=target, notes=named, actor=actor)


def _forget_reply(*, tenant, session, message, target: str, notes: list, actor: str = "") -> dict:
    """Forget `notes` and what `target` names everywhere; the hook's result with the reply's sentence."""
    outcome = forget_everywhere(
        tenant=tenant,
        end_user=session.end_user,
        query=target,
        actor=actor or f"user:{session.end_user.external_id}",
        session=session,
        notes=notes,
    )
    chinese = has_chinese(message.content)
    if outcome["places"]:
        hint = _describe(outcome["forgotten"], set(outcome["places"]), target, chinese)
    else:
        with user_language(chinese):
            hint = gettext("I have no memory about “%(target)s”, so there was nothing to forget.") % {"target": target}
    memory_events_record(
        tenant=tenant,
        message=message,
        events=[forget_event(forgotten=outcome["forgotten"], places=outcome["places"])] if outcome["places"] else [],
    )
    return {
        "section": "memory",
        "data": {"forgotten": outcome["forgotten"], "places": outcome["places"]},
        "reply_hint": hint,
    }
