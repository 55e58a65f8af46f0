"""Writing, correcting and forgetting notes: directly (API, web chat, admin) and from extraction.

Every write goes through the same guards: no personal identifier reaches a note or its embedding, the content
is embedded with the tenant's embedding model, search terms (with the slot's topic words) are refreshed, and a
note about the same user, kind and slot (or a near-identical one) is refreshed or superseded instead of piled
up. Changes made by an actor (admin, API, the user in chat) leave an AuditLog row; forgetting does not copy the
forgotten content into the log.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from core.exceptions import InvalidInput, NotFound
from core.policy import MemoryPolicy, memory_policy_for
from memory.models import MemoryNote, MessageVector
from memory.services.notes.note_events import note_audit, note_event_emit, note_snapshot
from memory.services.notes.note_guard import (
    note_fields_clean,
    note_key_clean,
    note_request_check,
    note_text_clean,
    note_value_clean,
)

# `... as`: callers import pii_reject from notes (extraction, the API); it lives in note_guard.
from memory.services.notes.note_guard import pii_reject as pii_reject
from memory.services.vectors.embeddings import embed_texts, search_terms
from memory.services.writing.topics import TOPIC_BY_SLOT, query_topics, topic_words_for

FORGOTTEN_CONTENT = ""
EDITABLE_FIELDS = {"content", "kind", "key", "confidence", "expires_at", "pinned", "importance", "status", "value"}
IMPORTANCE_BY_KIND = {
    "profile": 0.7,
    "constraint": 0.7,
    "business_status": 0.6,
    "preference": 0.5,
    "plan": 0.5,
    "conclusion": 0.5,
}
HIGH_CONFIDENCE = 0.8


def _slot(key: str) -> str:
    return (key or "").split(":")[-1]


def note_index_text(*, content: str, kind: str, key: str) -> str:
    """What is embedded and keyword-indexed for a note: its content plus its slot's topic words."""
    return f"{content} {topic_words_for(_slot(key))}".strip()


def index(note: MemoryNote, *, embedding_model: str) -> None:
    text = note_index_text(content=note.content, kind=note.kind, key=note.key)
    note.search_text = " ".join(search_terms(text))
    model, vectors = embed_texts(texts=[text], model=embedding_model)
    note.embedding, note.embedding_model = vectors[0], model


def note_policy(note: MemoryNote, policy: MemoryPolicy | None = None) -> MemoryPolicy:
    """`policy` when the caller has one (a turn, an extraction); else the policy of the assistant of the
    conversation the note came from (the tenant's for a note without one): the embedding model and TTLs the note
    was written under, so a later edit keeps it where that assistant's recall looks."""
    if policy is not None:
        return policy
    from tenancy.models import ChatSession

    assistant = None
    if note.session_id:
        session = (
            ChatSession.objects.for_tenant(note.tenant_id)
            .select_related("assistant")
            .filter(pk=note.session_id)
            .first()
        )
        assistant = session.assistant if session is not None else None
    return memory_policy_for(tenant=note.tenant, assistant=assistant)


def _ttl(policy, kind: str):
    days = (policy.ttl_days_by_kind or {}).get(kind)
    return timezone.now() + timedelta(days=float(days)) if days else None


@transaction.atomic
def memory_note_create(
    *,
    tenant,
    end_user,
    kind: str,
    content: str,
    policy: MemoryPolicy,
    key: str = "",
    source: str = "admin",
    confidence: float = 0.9,
    actor: str = "",
    value: dict | None = None,
    quote: str = "",
    status: str = MemoryNote.Status.ACTIVE,
    session=None,
    message=None,
    supersedes: MemoryNote | None = None,
    review_reason: str = "",
) -> MemoryNote:
    """Create one note (TTL by kind from `policy`, the caller's effective policy; embedded, keyword-indexed). A note that supersedes another
    marks the other `superseded` when it is active itself."""
    content = note_request_check(tenant=tenant, end_user=end_user, kind=kind, content=content, confidence=confidence)
    content, quote, key, value = note_fields_clean(
        tenant=tenant,
        end_user=end_user,
        content=content,
        quote=quote,
        key=key,
        value=value,
        pii_policy=policy.pii_policy,
    )
    now = timezone.now()
    note = MemoryNote(
        tenant=tenant,
        end_user=end_user,
        kind=kind,
        key=key[:100],
        content=content,
        value=value,
        quote=quote,
        source=source,
        confidence=float(confidence),
        status=status,
        importance=IMPORTANCE_BY_KIND.get(kind, 0.5),
        expires_at=_ttl(policy, kind),
        supersedes=supersedes,
        session=session,
        observed_at=now,
        review_reason=review_reason,
    )
    index(note, embedding_model=policy.embedding_model)
    note.save()
    _note_created_record(note, tenant=tenant, message=message, supersedes=supersedes, actor=actor)
    return note


def _note_created_record(note: MemoryNote, *, tenant, message, supersedes: MemoryNote | None, actor: str) -> None:
    """What a new note's row brings with it, in this order: the message it came from, its event, the supersede of
    the note it replaces (only when the new note is active: one held for review replaces nothing yet), its audit."""
    if message is not None:
        note.source_messages.add(message, through_defaults={"tenant_id": note.tenant_id})
    note_event_emit(note, "memory.created", supersedes=supersedes.pk if supersedes is not None else None)
    if supersedes is not None and note.status == MemoryNote.Status.ACTIVE:
        _mark_superseded(supersedes, tenant=tenant, by=note, actor=actor)
    note_audit(tenant=tenant, actor=actor, action="create", note=note, before=None, after=note_snapshot(note))


AUTOMATIC_ACTOR = "job:memory_extract"  # who supersedes a note when no person did (the extraction job)


def _mark_superseded(old: MemoryNote, *, tenant, by: MemoryNote, actor: str) -> None:
    """Mark `old` superseded by `by`, and audit it: automatic supersedes are recorded like a person's."""
    MemoryNote.all_tenants.filter(pk=old.pk).update(status=MemoryNote.Status.SUPERSEDED, updated_at=timezone.now())
    before = note_snapshot(old)
    old.status = MemoryNote.Status.SUPERSEDED
    note_audit(
        tenant=tenant,
        actor=actor or AUTOMATIC_ACTOR,
        action="supersede",
        note=old,
        before=before,
        after={**note_snapshot(old), "superseded_by": by.pk},
    )
    note_event_emit(old, "memory.superseded", superseded_by=by.pk)


CORRECTING_FIELDS = {"content", "value", "kind", "key"}


def value_from_content(*, content: str, key: str) -> dict | None:
    """The structured value a corrected sentence states for the note's slot ("The user's budget is 20,000 euros."
    -> {"amount": 20000, "currency": "EUR"}), or None: a stale value must not outlive the sentence it was read
    from."""
    from memory.services.writing.rules import read_message

    slot = _slot(key)
    if not slot:
        return None
    for candidate in read_message(content):
        if _slot(candidate.key) == slot and candidate.value:
            return candidate.value
    return None


@transaction.atomic
def memory_note_update(
    *, tenant, note: MemoryNote, actor: str = "", policy: MemoryPolicy | None = None, **changes
) -> MemoryNote:
    """Correct a note (content, kind, key, confidence, expires_at, pinned, importance, status, value); a new
    content is re-embedded and re-indexed, with the embedding model of `policy` (else of the note's own
    conversation's assistant: the model its recall searches with)."""
    if note.tenant_id != tenant.pk:
        raise NotFound("That note does not exist.")
    unknown = set(changes) - EDITABLE_FIELDS
    if unknown:
        raise InvalidInput(f"These fields cannot be changed: {', '.join(sorted(unknown))}.")
    if "confidence" in changes and not 0 <= float(changes["confidence"]) <= 1:
        raise InvalidInput("Confidence must be between 0 and 1.")
    if "kind" in changes and changes["kind"] not in MemoryNote.Kind.values:
        raise InvalidInput(f"'{changes['kind']}' is not a note kind.")
    if "status" in changes and changes["status"] not in MemoryNote.Status.values:
        raise InvalidInput(f"'{changes['status']}' is not a note status.")
    if note.status == MemoryNote.Status.FORGOTTEN and "content" in changes:
        raise InvalidInput("A forgotten note cannot be edited: create a new one.")
    before = note_snapshot(note)
    if "content" in changes:
        changes["content"] = note_text_clean(
            tenant=tenant, end_user=note.end_user, text=str(changes["content"]), stage="note", refuse=True
        ).strip()
        if not changes["content"]:
            raise InvalidInput("A note needs a content sentence.")
    if "content" in changes and "value" not in changes and note.value is not None:
        changes["value"] = value_from_content(content=changes["content"], key=changes.get("key", note.key))
    if "key" in changes:
        changes["key"] = note_key_clean(tenant=tenant, end_user=note.end_user, key=str(changes["key"] or ""))
    if "value" in changes:
        changes["value"] = note_value_clean(tenant=tenant, end_user=note.end_user, value=changes["value"], refuse=True)
    for name, value in changes.items():
        setattr(note, name, value)
    if actor and CORRECTING_FIELDS & set(changes):
        # a person's correction is final until the user restates that fact (memory.services.writing.writing)
        note.corrected_at, note.corrected_by = timezone.now(), actor[:200]
    if {"content", "kind", "key"} & set(changes):
        index(note, embedding_model=note_policy(note, policy).embedding_model)
    note.save()
    if changes.get("status") == MemoryNote.Status.ACTIVE and note.supersedes_id:
        old = (
            MemoryNote.objects.for_tenant(tenant).filter(pk=note.supersedes_id, status=MemoryNote.Status.ACTIVE).first()
        )
        if old:
            _mark_superseded(old, tenant=tenant, by=note, actor=actor)
    note_event_emit(note, "memory.updated", changed=sorted(changes))
    note_audit(tenant=tenant, actor=actor, action="update", note=note, before=before, after=note_snapshot(note))
    return note


@transaction.atomic
def memory_note_forget(*, tenant, note: MemoryNote, actor: str = "") -> MemoryNote:
    """Forget one note: status forgotten, content, quote, value, embedding and search terms removed (not just
    hidden). The user's messages it came from leave episodic recall too."""
    if note.tenant_id != tenant.pk:
        raise NotFound("That note does not exist.")
    before = {"kind": note.kind, "key": note.key, "status": note.status}  # never the forgotten content
    from tenancy.models import Message

    Message.objects.for_tenant(tenant).filter(memory_notes=note).update(search_vector="")
    MessageVector.objects.for_tenant(tenant).filter(message__memory_notes=note).delete()
    from memory.services.notes.events import memory_note_traces_forget

    memory_note_traces_forget(tenant=tenant, note=note)  # its text in turns' memory events and reply contexts
    note.status = MemoryNote.Status.FORGOTTEN
    note.content = FORGOTTEN_CONTENT
    note.quote = ""
    note.value = None
    note.embedding = None
    note.search_text = ""
    note.save()
    note_event_emit(note, "memory.forgotten")
    note_audit(
        tenant=tenant,
        actor=actor,
        action="forget",
        note=note,
        before=before,
        after={"kind": note.kind, "key": note.key, "status": note.status},
    )
    return note


FORGETTABLE = [MemoryNote.Status.ACTIVE, MemoryNote.Status.PENDING_REVIEW]


def memory_notes_matching(*, tenant, end_user, query: str) -> list[MemoryNote]:
    """The user's active or pending notes a forget request names: by slot ("咖啡偏好" -> drink) or by the
    request's words (a note sharing most of the request's terms)."""
    slots = query_topics(query)
    terms = set(search_terms(query)) - {"偏好", "习惯", "prefer", "preference", "忘掉", "忘记", "forget"}
    notes = list(MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user, status__in=FORGETTABLE))
    matched = []
    for note in notes:
        slot = _slot(note.key)
        note_terms = set((note.search_text or "").split())
        option_hit = False
        if slot in slots:
            topic = TOPIC_BY_SLOT[slot]
            words = set(topic.terms) | {f for forms in topic.options.values() for f in forms}
            option_hit = any(w in query.lower() for w in words)
        overlap = len(terms & note_terms) / len(terms) if terms else 0.0
        if option_hit or overlap >= 0.5:
            matched.append(note)
    return matched


@transaction.atomic
def memory_forget_matching(*, tenant, end_user, query: str, actor: str = "", with_values: bool = False) -> list[dict]:
    """Forget the active notes that match `query`; returns what was forgotten as [{id, kind, content}] (the
    content as it was, for the confirmation; it is no longer stored). The user's past messages that match the
    request leave episodic recall as well."""
    if end_user.tenant_id != tenant.pk:
        raise NotFound("That user does not exist.")
    query = (query or "").strip()
    if not query:
        raise InvalidInput("Say what to forget, e.g. 'my coffee preference'.")
    notes = memory_notes_matching(tenant=tenant, end_user=end_user, query=query)
    return memory_notes_forget(
        tenant=tenant, end_user=end_user, notes=notes, query=query, actor=actor, with_values=with_values
    )


@transaction.atomic
def memory_notes_forget(
    *, tenant, end_user, notes: list[MemoryNote], query: str, actor: str = "", with_values: bool = False
) -> list[dict]:
    """Forget `notes` (the user's own, as the reader named them: memory.reading.targets) and the versions they
    superseded; `query`, what the request named, takes the user's past messages on it out of episodic recall."""
    forgotten = []
    for note in notes:
        if note.end_user_id != end_user.pk or note.tenant_id != tenant.pk:
            raise NotFound("That note does not exist.")
        item = {"id": note.pk, "kind": note.kind, "content": note.content}
        if with_values:  # for the caller that removes the same fact from other places (assistants.services.forgetting)
            item.update(key=note.key, value=note.value)
        forgotten.append(item)
        # the earlier versions it superseded are the same fact: forgotten with it, not kept as history
        for old in memory_note_history(tenant=tenant, note=note):
            if old.pk != note.pk and old.status != MemoryNote.Status.FORGOTTEN and old.end_user_id == end_user.pk:
                memory_note_forget(tenant=tenant, note=old, actor=actor or f"user:{end_user.external_id}")
        memory_note_forget(tenant=tenant, note=note, actor=actor or f"user:{end_user.external_id}")
    _forget_messages(tenant=tenant, end_user=end_user, query=query)
    return forgotten


def _forget_messages(*, tenant, end_user, query: str) -> None:
    """The user's messages on the forgotten topic leave episodic recall (their text stays in the session history
    until the user's data is erased; that is the privacy layer's job)."""
    from django.db.models import Q

    from tenancy.models import Message

    words = set()
    for slot in query_topics(query):
        topic = TOPIC_BY_SLOT[slot]
        words |= set(topic.terms) | {f for forms in topic.options.values() for f in forms}
    if not words:
        return
    on_topic = Q()
    for word in words:
        on_topic |= Q(content__icontains=word)
    Message.objects.for_tenant(tenant).filter(on_topic, end_user=end_user, role="user").exclude(
        search_vector=""
    ).update(search_vector="")


def memory_note_history(*, tenant, note: MemoryNote) -> list[MemoryNote]:
    """The supersede chain through `note`, oldest first ("美式 → 拿铁，因为胃不好")."""
    chain = [note]
    current = note
    seen = {note.pk}
    while current.supersedes_id and current.supersedes_id not in seen:
        current = MemoryNote.objects.for_tenant(tenant).get(pk=current.supersedes_id)
        seen.add(current.pk)
        chain.insert(0, current)
    current = note
    while True:
        nxt = (
            MemoryNote.objects.for_tenant(tenant).filter(supersedes=current).exclude(pk__in=seen).order_by("id").first()
        )
        if nxt is None:
            break
        seen.add(nxt.pk)
        chain.append(nxt)
        current = nxt
    return chain


def memory_note_refresh(
    *, note: MemoryNote, confidence: float, message=None, policy: MemoryPolicy | None = None
) -> MemoryNote:
    """The user said a known fact again: bump updated_at and confidence (never lower it), keep one note. A
    confirmed note's lifetime starts again from now (its TTL by kind of `policy`, the extraction's; else of the
    note's own policy), as if it had just been learnt."""
    note.confidence = max(note.confidence, min(1.0, confidence))
    note.observed_at = timezone.now()
    if note.expires_at is not None and not note.pinned:
        renewed = _ttl(note_policy(note, policy), note.kind)
        note.expires_at = max(note.expires_at, renewed) if renewed else note.expires_at
    note.save(update_fields=["confidence", "observed_at", "expires_at", "updated_at"])
    if message is not None:
        note.source_messages.add(message, through_defaults={"tenant_id": note.tenant_id})
    return note
