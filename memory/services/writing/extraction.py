"""Extraction of long-term notes from a user message, with the write rules enforced in code.

Candidates come from the offline rules (memory.services.writing.rules) when the tenant's chat model is "offline", or
from the model (structured JSON over the OpenAI-compatible API, validated with pydantic) otherwise. Whatever
their origin, every candidate then passes the same checks:
1. only what the user explicitly said is `user_stated`: a candidate whose quote is not in the user's message is
   `agent_inferred`, and is dropped or kept for review with low confidence (Tenant.inferred_policy);
2. durable only: a passing whim is dropped;
3. no personal identifier reaches a note (or its embedding): dropped or redacted (Tenant.pii_policy), counted in
   the result and in PiiRejection (kinds only);
4. hedges are kept as hedges: value.approx and a lower confidence.
Garbage from the model (not JSON, wrong fields) is never stored: the job fails and is retried by the ledger.
Idempotent per message: a message that already gave notes gives none again.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.db import transaction

from core.policy import memory_policy_for
from core.text import has_chinese, with_apostrophes
from memory.models import MemoryNote
from memory.reading import OffRecord, message_read
from memory.reading.changes import change_candidates, change_read, says_change
from memory.reading.model_engine import (  # noqa: F401  (the model's side, re-exported for its callers)
    ExtractionOutputInvalid,
    extract_with_model,
    model_acts_checked,
    nearest_notes,
)
from memory.reading.styles import with_style
from memory.services.identifiers.pii import pii_find, pii_redact
from memory.services.notes.notes import pii_reject
from memory.services.recall.episodes import message_vectors_write
from memory.services.vectors.embeddings import embeddings_kept_for_turn, search_terms
from memory.services.writing.quantities import slot_amount
from memory.services.writing.rules import (
    CHANGE,
    HEDGE,
    NUMERIC_SLOTS,
    WHIM,
    Candidate,
    has_slot_word,
    injection_kind,
    is_question,
    is_request,
    read_message,
    render,
    third_person,
)
from memory.services.writing.topics import TOPIC_BY_SLOT, topics_in
from memory.services.writing.writing import candidate_apply, candidates_embed_ahead
from tenancy.models import MESSAGE_REPLACED_KEY, Message
from tenancy.scoping import tenant_scope

INFERRED_CONFIDENCE = 0.3
HEDGED_CONFIDENCE = 0.6
CHANGEABLE_NOTES = 100  # the most recent notes a stated change is compared with


def _compact(text: str) -> str:
    return re.sub(r"[\s，,。.!！?？、；;：:\"'“”‘’]+", "", (text or "").lower())


def candidates_check(*, candidates: list[Candidate], text: str, policy) -> tuple[list[Candidate], dict, dict]:
    """The write rules, whatever produced the candidates. Returns (kept, dropped counts, pii counts)."""
    dropped: dict[str, int] = {}
    pii: dict[str, int] = {}
    chinese = has_chinese(text)
    message = _compact(text)
    kept: list[Candidate] = []

    def drop(reason):
        dropped[reason] = dropped.get(reason, 0) + 1

    # 0. Text shaped like a system prompt or markup, and claims of role or authority, are no facts about the user:
    # markup gives nothing; a claim is held for review as inferred (inferred_policy=review) or dropped.
    injection = injection_kind(text)
    if injection == "markup":
        for _ in candidates:
            drop("injection")
        return kept, dropped, pii
    for c in candidates:
        reason = _candidate_check(c, injection=injection, message=message, chinese=chinese, policy=policy, pii=pii)
        if reason:
            drop(reason)
            continue
        kept.append(c)
    _mark_contradictions(kept)
    return kept, dropped, pii


# a change that lasts, whenever it happened ("Got promoted to senior developer today!", "今天刚搬到成都")
_LASTING_EVENT = re.compile(
    r"\b(?:promoted|moved|relocated|married|engaged|divorced|retired|graduated|hired|resigned|quit|"
    r"increased|decreased|reduced|turn(?:ed|s))\b|升职|升了|搬|结婚|订婚|离婚|退休|毕业|入职|离职|辞职|跳槽|[加减增涨降]到",
    re.IGNORECASE,
)


# a passing state said of the moment ("今天不想喝咖啡", "in the mood for tea tonight"), not a change of what is so
_PASSING = re.compile(
    r"今天|今晚|今早|这会儿|突然|好想|晚上想|\btonight\b|\bright now\b|\bin the mood\b|\bfeel(?:ing)? like\b|"
    r"\bkinda want\b|\bcould go for\b|\bat the moment\b|(?<!\bas of )\btoday\b",
    re.IGNORECASE,
)


def _lasting_change(c: Candidate) -> bool:
    """A candidate that replaces a note and says a lasting change: its time word ("today") dates the change, and a
    "lol" or "this week" beside it does not make it a whim; a passing state said of the moment does."""
    quote = c.quote or ""
    return bool(c.extra.get("replaces")) and (
        bool(c.extra.get("measured")) or bool(_LASTING_EVENT.search(quote)) or not _PASSING.search(quote)
    )


def _candidate_check(c: Candidate, *, injection: str | None, message: str, chinese: bool, policy, pii: dict) -> str:
    """Apply the write rules to one candidate, in place (source, redaction, confidence, hedge, change, slot,
    language). Returns the reason it is dropped, or "" when it is kept. Identifiers found are counted in `pii`
    whether or not the candidate is kept."""
    if injection == "claim":
        if policy.inferred_policy != "review":
            return "claim"
        c.source, c.extra = "agent_inferred", dict(c.extra, review_reason="claim")
    # 1. user_stated only when the quote is the user's own words
    if c.source == "user_stated" and (not c.quote or _compact(c.quote) not in message):
        c.source = "agent_inferred"
    # 3. personal identifiers, checked on everything that would be stored or embedded
    blob = " ".join([c.content, c.quote, json.dumps(c.value, ensure_ascii=False) if c.value else ""])
    found = pii_find(blob)
    if found:
        for m in found:
            pii[m.kind] = pii.get(m.kind, 0) + 1
        if policy.pii_policy != "redact":
            return "pii"
        c.content, _ = pii_redact(c.content)
        c.quote, _ = pii_redact(c.quote)
        c.value = None
    # 2. durable only
    # … a style instruction is a standing preference however lightly said ("以后叫我大刘就行 哈哈")
    if (c.whim or WHIM.search(c.quote or c.content)) and not _lasting_change(c) and not c.extra.get("style"):
        return "whim"
    if c.source == "agent_inferred":
        if policy.inferred_policy != "review":
            return "inferred"
        c.confidence = min(c.confidence, INFERRED_CONFIDENCE)
    # 4. hedges
    if HEDGE.search(c.quote or ""):
        c.hedged = True
    if c.hedged:
        c.confidence = min(c.confidence, HEDGED_CONFIDENCE)
        if isinstance(c.value, dict) and "amount" in c.value:
            c.value["approx"] = True
    if c.quote and CHANGE.search(c.quote):
        c.change = True
    if c.extra.get("from_model"):
        return _model_candidate_check(c, chinese=chinese)
    return ""


def _model_candidate_check(c: Candidate, *, chinese: bool) -> str:
    """The rules only a model's candidate needs (the offline extractor's already hold them): no requests, a number
    fills a numeric slot only with its unit or the slot's word, a slot from the lexicon when the model gave none,
    and the note in the user's language. Returns the reason it is dropped, or ""."""
    if c.quote and (is_request(c.quote) or is_question(c.quote)):
        return "request"  # "let's make a plan", "can you ...": asked of the assistant, not said of the user
    slot = c.key.split(":")[-1]
    if slot in NUMERIC_SLOTS and isinstance(c.value, dict) and "amount" in c.value:
        # a number fills a slot only when its unit or the slot's word says what it is, as offline
        found = (
            slot_amount(slot, c.quote, keyword=has_slot_word(TOPIC_BY_SLOT[slot], c.quote))
            if slot in TOPIC_BY_SLOT
            else None
        )
        if found is None:
            return "misread"
        if found.currency and not c.value.get("currency"):
            c.value["currency"] = found.currency
    if not c.key:  # a model that gives no slot: the lexicon's, so that supersede still works
        topics = topics_in(c.quote or c.content)
        c.key = topics[0].slot if topics else ""
    slot = c.key.split(":")[-1]
    # Chinese stays Chinese: a note in the wrong language is rewritten from the user's words.
    if c.source == "user_stated" and has_chinese(c.content) != chinese:
        c.content = render(slot if slot in TOPIC_BY_SLOT else "", c.kind, c.value, c.quote, chinese)
    return ""


def _mark_contradictions(kept: list[Candidate]) -> None:
    """One message stating two different values for one slot is a contradiction: ask rather than guess (every
    candidate of that slot is marked unclear, unless one of them says the value changed)."""
    by_key: dict[tuple, list[Candidate]] = {}
    for c in kept:
        if c.key:
            by_key.setdefault((c.kind, c.key), []).append(c)
    for group in by_key.values():
        if len({json.dumps(g.value, sort_keys=True) for g in group}) > 1 and not any(g.change for g in group):
            for g in group:
                g.unclear = True


def message_search_text(text: str) -> str:
    """Search terms of a message for episodic recall; identifiers never become terms."""
    return " ".join(search_terms(pii_redact(text)[0]))


def memory_extract_for_message(*, tenant_id: int, message_id: int, embed_message: bool = True) -> dict:
    """Write the durable, explicitly stated, PII-free facts of one message as notes, and (unless `embed_message`
    is False: the import job embeds its messages in batches) embed the message for episodic recall. Idempotent
    per message.
    Returns counts for the job ledger: {"written": n, "refreshed": n, "superseded": n, "pending_review": n,
    "dropped": {...}, "pii": {...}}. What changed is also recorded as the turn's memory events
    (memory.services.notes.events), and the message is marked done, so clients know the turn's memory is settled."""
    from memory.services.notes.events import memory_events_record
    from tenancy.models import Tenant

    tenant = Tenant.objects.get(pk=tenant_id)
    with tenant_scope(tenant):
        result = _extract(tenant=tenant, message_id=message_id, embed_message=embed_message)
        if result.get("skipped") not in ("not a user message", "user erasure in progress") and not result.get(
            "events_recorded"
        ):
            with transaction.atomic():
                message = Message.objects.for_tenant(tenant).filter(pk=message_id).first()
                if message is not None and not (message.metadata or {}).get("memory_done"):
                    memory_events_record(tenant=tenant, message=message, events=[], done=True)
        result.pop("events_recorded", None)
        return result


def _changeable_notes(*, tenant, message) -> list:
    """The user's active notes a message may change (its own, from a retried job, excluded), most recent first."""
    return list(
        MemoryNote.objects.for_tenant(tenant)
        .filter(end_user=message.end_user, status=MemoryNote.Status.ACTIVE)
        .exclude(source_messages=message)
        .defer("embedding")
        .order_by("-updated_at")[:CHANGEABLE_NOTES]
    )


def _candidates_read(*, tenant, message, reading, policy) -> tuple[list[Candidate], list]:
    """The message's candidate facts and the notes it asks to forget, read only from what the reader kept (no
    secret, off-the-record span, attack or hypothetical): by the rules offline, else by the model shown the
    user's nearest notes (memory.reading.model_engine); a style instruction as a preference, and a stated change
    as the replacement of the note it is about."""
    deletes: list = []
    previous = (
        Message.objects.for_tenant(tenant)
        .filter(session=message.session, id__lt=message.pk, role=Message.Role.ASSISTANT)
        .exclude(metadata__has_key=MESSAGE_REPLACED_KEY)
        .order_by("-id")
        .first()
    )
    previous_reply = previous.content if previous else ""
    said = with_apostrophes(reading.keep)  # "im pescatarian now" read as "I'm …"; quotes compare without apostrophes
    if not reading.keep:
        candidates = []
    elif policy.chat_model == "offline":
        candidates = read_message(said, previous_reply=previous_reply)
    else:
        shown = nearest_notes(reading.keep, _changeable_notes(tenant=tenant, message=message))
        candidates = extract_with_model(
            model=policy.chat_model, text=reading.keep, previous_reply=previous_reply, notes=shown
        )
        candidates, deletes = model_acts_checked(candidates, shown, forget_asked=reading.forget is not None)
    if reading.keep:
        candidates = with_style(reading, candidates, chinese=has_chinese(message.content))
    # a stated change replaces the note it is about, whatever the rules made of it; beside a forget request it is
    # the reason for the forget ("雅思我先不考了…关于雅思的那条也删了吧"), which removes the note instead
    changing = reading.forget is None and says_change(said)
    change = changing and change_read(said, _changeable_notes(tenant=tenant, message=message))
    if change:
        candidates = change_candidates(candidates, change, chinese=has_chinese(message.content))
    return candidates, deletes


def _model_deletes_applied(*, tenant, message, notes: list) -> list[dict]:
    """Forget the notes the model named for a forget request the reader also read; their memory events."""
    from memory.services.notes.events import forget_event
    from memory.services.notes.notes import memory_notes_forget

    if not notes:
        return []
    actor = f"user:{message.end_user.external_id}"
    forgotten = memory_notes_forget(tenant=tenant, end_user=message.end_user, notes=notes, query="", actor=actor)
    return [forget_event(forgotten=forgotten, places=["notes"])] if forgotten else []


def _extract(*, tenant, message_id: int, embed_message: bool) -> dict:
    message = (
        Message.objects.for_tenant(tenant)
        .select_related("session", "end_user", "session__assistant")
        .filter(pk=message_id)
        .first()
    )
    result: dict[str, Any] = {
        "written": 0,
        "refreshed": 0,
        "superseded": 0,
        "pending_review": 0,
        "dropped": {},
        "pii": {},
    }
    if message is None or message.role != Message.Role.USER:
        return dict(result, skipped="not a user message")
    if message.end_user.erasure_requested_at is not None:
        return dict(result, skipped="user erasure in progress")
    if MemoryNote.objects.for_tenant(tenant).filter(source_messages=message).exists():
        return dict(result, skipped="already extracted")
    reading = message_read(message.content)
    if reading.forget is not None and not reading.keep:
        return dict(result, skipped="memory command")  # not a fact, and not an episode to recall either
    if MESSAGE_REPLACED_KEY in (message.metadata or {}):  # edited and resent since: never read again
        return dict(result, skipped="earlier version")
    if reading.forget is not None or reading.of(OffRecord):
        embed_message = False  # what the user asked to forget or not to keep is not recalled from the message
    policy = memory_policy_for(tenant=tenant, assistant=message.session.assistant)
    if embed_message:
        result["message_vectors"] = message_vectors_write(
            tenant=tenant, messages=[message], model=policy.embedding_model
        )
    candidates, deletes = _candidates_read(tenant=tenant, message=message, reading=reading, policy=policy)
    kept, dropped, pii = candidates_check(candidates=candidates, text=message.content, policy=policy)
    _pii_of_message(message.content, pii)
    result["dropped"], result["pii"] = dropped, pii
    return _candidates_write(
        tenant=tenant, message=message, kept=kept, deletes=deletes, pii=pii, policy=policy, result=result
    )


def _pii_of_message(text: str, pii: dict[str, int]) -> None:
    """Count in `pii` (in place) every identifier of the message, each kind at least as often as the message holds
    it: all of them were kept out of memory, not only those the candidates carried."""
    for match in pii_find(text):
        pii[match.kind] = max(pii.get(match.kind, 0), sum(1 for m in pii_find(text) if m.kind == match.kind))


def _candidates_write(*, tenant, message, kept: list, deletes, pii: dict, policy, result: dict) -> dict:
    """Write the checked candidates of the message under its row lock, with its memory events and keyword terms,
    and return the job result. The vectors are embedded first, outside the lock."""
    from memory.services.notes.events import memory_events_record

    with embeddings_kept_for_turn():
        # Embedded now, before the message row is locked: the writes below find these vectors kept instead of
        # asking a remote embedding model while the lock holds up an erasure of this user.
        candidates_embed_ahead(kept, model=policy.embedding_model)
        with transaction.atomic():
            # The job (after commit) and a retry or a direct call can extract one message at once: the row lock
            # serialises them, and the second one finds the first one's notes.
            locked = Message.objects.for_tenant(tenant).select_for_update().filter(pk=message.pk).first()
            if locked is None:  # erased since it was read: nothing to write
                return dict(result, skipped="message erased")
            if MemoryNote.objects.for_tenant(tenant).filter(source_messages=message).exists():
                return dict(result, skipped="already extracted")
            if pii:
                pii_reject(tenant=tenant, end_user=message.end_user, counts=pii, stage="extraction")
            events = _model_deletes_applied(tenant=tenant, message=message, notes=deletes)
            for candidate in kept:
                outcome = candidate_apply(
                    tenant=tenant, message=message, candidate=candidate, policy=policy, events=events
                )
                result[outcome] = result.get(outcome, 0) + 1
            # the message's keyword terms for episodic recall go in with the events, in the same UPDATE
            terms = {} if locked.search_vector else {"search_vector": message_search_text(message.content)}
            memory_events_record(tenant=tenant, message=message, events=events, done=True, locked=locked, **terms)
    return dict(result, events_recorded=True)


__all__ = ["memory_extract_for_message", "candidates_check", "extract_with_model", "third_person"]
