"""Applying one checked candidate to a user's notes: write, refresh, supersede, or hold for review.

- Same user + same kind/key (or, without a key, a near-identical note of the same kind by embedding similarity):
  the same value refreshes the note (updated_at, confidence); a different value supersedes it.
- Review (pending_review, not recalled): agent_inferred candidates, candidates below the review threshold, and
  unclear changes of a known fact (a hedge or low confidence without an explicit change marker, a hedged old
  value, a contradiction within one message). The chat hook asks the user about the unclear ones and the answer
  settles them (memory.services.writing.commands).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

from django.db import connection

from memory.models import MemoryNote
from memory.services.notes.notes import memory_note_create, memory_note_refresh, note_index_text
from memory.services.vectors.embeddings import SENTENCE_MODEL, embed_texts, embedding_model_is_remote
from memory.services.writing import restating
from memory.services.writing.restating import adds_to, both_wordings, fact_terms, one_of_many, restatement_of
from memory.services.writing.rules import Candidate

# Cosine similarity above which two keyless notes of one kind are the same fact, per embedding model: a sentence
# encoder puts different facts of one shape close ("has two kids" / "has three kids": 0.84 with USE v3), which a
# supersede would turn into a wrong update, while the lexical embedder needs most characters shared to get there.
SIMILAR_NOTE = 0.85
SIMILAR_NOTE_BY_MODEL = {SENTENCE_MODEL: 0.93}
SAME_TERMS = 0.6  # share of the shorter statement's content words two statements of one fact have in common
CORRECTION_TERMS = 0.5  # the same for a correction, whose sentence also names the old value
LOOSE_CHANGE_TERMS = 0.25  # the same for a subjectless change, which may only change a known fact


def _comparable(value, other=None) -> str:
    """A value as compared with another: the hedge never counts, and a currency or unit only when both name one
    ("20,000" restates "20,000 euros")."""
    if not isinstance(value, dict):
        return ""
    other = other if isinstance(other, dict) else {}
    skip = {"approx"} | {k for k in ("currency", "unit") if k not in other}
    return json.dumps({k: v for k, v in value.items() if k not in skip}, sort_keys=True, ensure_ascii=False)


def _terms_overlap(a: str, b: str) -> float:
    ta, tb = fact_terms(a), fact_terms(b)
    return len(ta & tb) / max(1, min(len(ta), len(tb)))


def _statement(note_or_candidate) -> str:
    return note_or_candidate.quote or note_or_candidate.content


def same_fact(note: MemoryNote, candidate: Candidate) -> bool:
    if candidate.extra.get("restates") == note.pk:
        return True  # said again in other words (memory.services.writing.restating)
    if note.key and not candidate.key and not candidate.value and not candidate.change:
        return True  # a free-form restatement of a slot's fact ("我吃不了辣" after "我不吃辣") adds nothing
    if note.value or candidate.value:
        return _comparable(note.value, candidate.value) == _comparable(candidate.value, note.value)
    if candidate.change:  # "actually my favourite colour is green now": same subject, a new value
        return False
    return (
        max(_terms_overlap(note.content, candidate.content), _terms_overlap(_statement(note), _statement(candidate)))
        >= SAME_TERMS
    )


def overlapping_note(*, tenant, end_user, candidate: Candidate, message=None) -> MemoryNote | None:
    """The user's active note that shares most of its content words with a keyless candidate (at least two and
    SAME_TERMS of the shorter one), whatever kind or slot each was read as: "I prefer window seats" and "you know I always
    pick the window seat" are one fact. The lexical embedder alone misses such rewordings."""
    notes = MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user, status=MemoryNote.Status.ACTIVE)
    if candidate.change and message is not None:  # a correction corrects what was said before, not its own sentence
        notes = notes.exclude(source_messages=message)
    notes = notes.defer("embedding").order_by("-updated_at")[:200]  # 200 vectors parsed for nothing cost seconds
    mine = fact_terms(_statement(candidate)) | fact_terms(candidate.content)
    # A correction names what it corrects, often in another clause ("现在更喜欢绿色，不是蓝色了"): its whole
    # sentence is compared, and half of the old note's words are enough.
    said_with = fact_terms(candidate.extra.get("said_with", "")) if candidate.change else set()
    best, best_score = None, 0.0
    for note in notes:
        theirs = fact_terms(_statement(note)) | fact_terms(note.content)
        tries = [(mine, SAME_TERMS)] + ([(mine | said_with, CORRECTION_TERMS)] if said_with else [])
        if candidate.extra.get("needs_match"):
            # a subjectless change ("和银行的会面改到周四了") can only be about a fact already known: two shared
            # words are enough to say which (it is dropped when nothing matches)
            tries.append((mine | said_with, LOOSE_CHANGE_TERMS))
        for words, needed in tries:
            shared = len(words & theirs)
            score = shared / max(1, min(len(words), len(theirs)))
            if words and shared >= 2 and score >= needed and score > best_score:
                best, best_score = note, score
    return best


_NEGATION = re.compile(r"不|没|别|\bno longer\b|\bnot\b|n't\b|\banymore\b|\bquit\b|\bleft\b", re.IGNORECASE)


def negated_note(*, tenant, end_user, candidate: Candidate, message=None) -> MemoryNote | None:
    """The user's active note whose value the candidate says is no longer so: "我已经不在阿里了" ends the note
    {"place": "阿里"}, "I don't work at Acme anymore" the note about Acme."""
    if not candidate.change or not _NEGATION.search(candidate.quote or ""):
        return None
    said = (candidate.quote or "").lower()
    notes = (
        MemoryNote.objects.for_tenant(tenant)
        .filter(end_user=end_user, status=MemoryNote.Status.ACTIVE)
        .exclude(value=None)
    )
    if message is not None:
        notes = notes.exclude(source_messages=message)
    notes = notes.defer("embedding").order_by("-updated_at")[:200]
    for note in notes:
        names = [str(v).lower() for k, v in (note.value or {}).items() if k in ("place", "type", "option") and v]
        if any(len(name) >= 2 and name in said for name in names):
            return note
    return None


# Slots that hold many people or animals: "my wife is a nurse" and "my son is 9" are two notes of one slot
PEOPLE_SLOTS = {"family", "pet"}
# Slots of several things at once (two allergies, two languages): a second one is added, only a change replaces
MANY_SLOTS = {"allergy", "exercise", "health", "language", "drink", "trip"}
_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+\b")


def same_one(note_text: str, candidate_text: str) -> bool:
    """Whether two statements of a people slot are about the same person or animal: the same name when both
    name one ("my brother Tom" / "my brother Sam" are two brothers; "a golden retriever named Max" / "my dog Max"
    are one dog), else the same relation words when both have some ("my wife" / "my son" are two people)."""
    from memory.reading.kinship import kin, kin_shared
    from memory.reading.mentions import names_in
    from memory.services.writing.restating import relations_in

    if kin(note_text) and kin(candidate_text) and not kin_shared(note_text, candidate_text):
        return False  # "my son … Oakfield Primary" / "my niece … Oakfield Grammar": a school's name is no person's
    names = [(set(_NAME.findall(t)) | names_in(t)) - {"The", "User"} for t in (note_text, candidate_text)]
    if names[0] and names[1]:
        return bool(names[0] & names[1])
    relations = [relations_in(t) for t in (note_text, candidate_text)]
    return not (relations[0] and relations[1] and relations[0] != relations[1])


def similar_note(
    *, tenant, end_user, kind: str, content: str, key: str, embedding_model: str, statuses=(MemoryNote.Status.ACTIVE,)
) -> MemoryNote | None:
    """The closest note of the same kind by cosine similarity, if above SIMILAR_NOTE. Tenant and user are
    filtered in the SQL; only vectors of the same embedding model are compared."""
    model, vectors = embed_texts(texts=[note_index_text(content=content, kind=kind, key=key)], model=embedding_model)
    with connection.cursor() as cur:
        cur.execute(
            "SELECT id, 1 - (embedding <=> %s::vector) FROM memory_memorynote "
            "WHERE tenant_id = %s AND end_user_id = %s AND kind = %s AND status = ANY(%s) AND key = '' "
            "AND embedding_model = %s AND embedding IS NOT NULL ORDER BY embedding <=> %s::vector LIMIT 1",
            [str(vectors[0]), tenant.pk, end_user.pk, kind, list(statuses), model, str(vectors[0])],
        )
        row = cur.fetchone()
    if row and row[1] >= SIMILAR_NOTE_BY_MODEL.get(model, SIMILAR_NOTE):
        return MemoryNote.objects.for_tenant(tenant).get(pk=row[0])
    return None


def existing_note(*, tenant, end_user, candidate: Candidate, embedding_model: str, message=None) -> MemoryNote | None:
    """The note the candidate is about: the same slot, else a near-identical or overlapping statement, else one
    it says again in other words (memory.services.writing.restating; a keyless candidate found that way refreshes it, a
    slot's candidate replaces it)."""
    qs = MemoryNote.objects.for_tenant(tenant).filter(
        end_user=end_user, kind=candidate.kind, status=MemoryNote.Status.ACTIVE
    )
    if candidate.key:
        keyed = qs.filter(key=candidate.key).order_by("-updated_at")
        slot = candidate.key.split(":")[-1]
        if slot in PEOPLE_SLOTS:
            found = next((n for n in keyed.defer("embedding")[:50] if same_one(n.content, candidate.content)), None)
            found = found if found and restating.same_attribute(found.content, candidate.content) else None
        elif slot in MANY_SLOTS and not candidate.change:  # "I'm also allergic to shellfish": one more, not instead
            found = next((n for n in keyed.defer("embedding")[:50] if same_fact(n, candidate)), None)
            return found or one_of_many(
                tenant=tenant, end_user=end_user, candidate=candidate, model=embedding_model, message=message
            )
        else:
            found = keyed.first()
        if found is not None:
            return found
        found, sure = restatement_of(
            tenant=tenant, end_user=end_user, candidate=candidate, model=embedding_model, message=message, loosely=True
        )
        if found is not None and not sure:  # the slot's note takes the place of a free-form one, in both wordings
            if found.key:
                return None
            candidate.content = both_wordings(found, candidate)
        return found
    found = (
        negated_note(tenant=tenant, end_user=end_user, candidate=candidate, message=message)
        or similar_note(
            tenant=tenant,
            end_user=end_user,
            kind=candidate.kind,
            content=candidate.content,
            key="",
            embedding_model=embedding_model,
        )
        or overlapping_note(tenant=tenant, end_user=end_user, candidate=candidate, message=message)
    )
    if found is None and not candidate.change and not candidate.value:
        found, sure = restatement_of(
            tenant=tenant, end_user=end_user, candidate=candidate, model=embedding_model, message=message, loosely=True
        )
        if found is not None:  # not sure: perhaps a second fact about the thing, so the note keeps both wordings
            candidate.extra = {**candidate.extra, "restates": found.pk, **({} if sure else {"also_says": True})}
    return found


def is_unclear_change(old: MemoryNote, candidate: Candidate, policy) -> bool:
    """A change we should ask about rather than apply (seed 002 fact check, seed 001 conflict clarification)."""
    if candidate.change and not candidate.unclear:
        return False
    old_hedged = bool(isinstance(old.value, dict) and old.value.get("approx"))
    return (
        candidate.unclear or candidate.hedged or old_hedged or candidate.confidence < policy.review_confidence_threshold
    )


# "my budget is now 30,000", "我现在住在杭州", "预算改成": the user says the fact has a new value.
_NEW_VALUE = re.compile(
    r"\bnow\b|\bthese days\b|\bnew\b|\bupdated?\b|\bchanged?\b|\bactually\b|\binstead\b|"
    r"现在|目前|如今|已经|最新|重新|新的",
    re.IGNORECASE,
)


def restates_with_new_value(old: MemoryNote, candidate: Candidate) -> bool:
    """Whether the user explicitly restates the fact of `old` with a new value: in their own words
    (user_stated, not hedged, not a subjectless change that needs an earlier fact), naming the same slot by its own
    word ("my budget is now 30,000", "预算改成 3 万"), or, for a fact with no slot, saying that it changed."""
    from memory.services.writing.rules import CHANGE, has_slot_word
    from memory.services.writing.topics import TOPIC_BY_SLOT

    if candidate.source != MemoryNote.Source.USER_STATED or candidate.hedged or candidate.unclear:
        return False
    said = candidate.quote or ""
    marked = bool(CHANGE.search(said) or _NEW_VALUE.search(said))
    if old.key:
        if candidate.key.split(":")[-1] != old.key.split(":")[-1]:
            return False
        topic = TOPIC_BY_SLOT.get(old.key.split(":")[-1])
        return marked or (topic is not None and has_slot_word(topic, said))
    return marked and not candidate.extra.get("needs_match")


def candidates_embed_ahead(candidates: list[Candidate], *, model: str) -> None:
    """Embed now the texts candidate_apply will embed (the duplicate check without a key, the note with its key).
    Called inside embeddings_kept_for_turn before a row lock is taken, so that candidate_apply, under the lock,
    finds the vectors kept instead of asking a remote embedding model while the lock holds others up."""
    texts = {note_index_text(content=c.content, kind=c.kind, key=key) for c in candidates for key in ("", c.key)}
    if texts and embedding_model_is_remote(model or ""):  # a local model is quick and keeps its own cache
        embed_texts(texts=sorted(texts), model=model)


def _note_of(*, tenant, end_user, candidate: Candidate, policy, message) -> MemoryNote | None:
    """The note the candidate is about: the one a stated change names (memory.reading.changes), else the same slot
    or a near-identical statement (existing_note)."""
    replaces = candidate.extra.get("replaces")
    named = (
        MemoryNote.objects.for_tenant(tenant)
        .filter(pk=replaces, end_user=end_user, status=MemoryNote.Status.ACTIVE)
        .first()
        if replaces
        else None
    )
    return named or existing_note(
        tenant=tenant, end_user=end_user, candidate=candidate, embedding_model=policy.embedding_model, message=message
    )


def _review_status(candidate: Candidate, policy) -> tuple[str, str]:
    """The status a new note of the candidate starts in, with the review reason: an inference or a low-confidence
    reading waits for review; a fact the user stated plainly is active."""
    if candidate.source == MemoryNote.Source.AGENT_INFERRED:
        return MemoryNote.Status.PENDING_REVIEW, "agent_inferred"
    if candidate.confidence < policy.review_confidence_threshold:
        return MemoryNote.Status.PENDING_REVIEW, "low_confidence"
    return MemoryNote.Status.ACTIVE, ""


def _repeat_apply(*, old: MemoryNote, candidate: Candidate, status: str, message, policy, events) -> str:
    """The outcome of a candidate that says the fact of `old` again: a checked repeat refreshes the note (and an
    approximate value said exactly replaces the hedge); an unchecked one adds nothing."""
    if status != MemoryNote.Status.ACTIVE:
        return "unchanged"  # an unchecked (inferred / low-confidence) repeat of a known fact adds nothing
    adds = candidate.extra.get("also_says") or (
        not old.key and not candidate.key and adds_to(old.content, candidate.content)
    )
    adds = adds and candidate.kind == old.kind and not (candidate.hedged or candidate.whim)  # a plan keeps its own
    if adds and candidate.content not in old.content:
        both = replace(candidate, kind=old.kind, key=old.key, value=old.value, content=both_wordings(old, candidate))
        return _note_write(
            tenant=old.tenant,
            end_user=old.end_user,
            message=message,
            candidate=both,
            status=status,
            reason="",
            old=old,
            policy=policy,
            events=events,
        )
    if isinstance(old.value, dict) and old.value.get("approx") and not candidate.hedged and candidate.value:
        old.value = candidate.value  # "大概 10 万" confirmed as "10 万": no longer approximate
        old.save(update_fields=["value", "updated_at"])
        if events is not None:
            from memory.services.notes.events import note_event

            events.append(note_event(action="updated", note=old))
    memory_note_refresh(note=old, confidence=candidate.confidence, message=message, policy=policy)
    return "refreshed"


def _pending_already(*, tenant, end_user, candidate: Candidate) -> bool:
    """Whether a slot's candidate is already waiting for review as the same fact: a second copy would ask twice."""
    # Every pending note of the slot is compared (a user who keeps changing a value piles them up), so their
    # vectors, which same_fact does not read, are left in the database: parsing them grew with the notes.
    duplicate = (
        MemoryNote.objects.for_tenant(tenant)
        .filter(end_user=end_user, kind=candidate.kind, key=candidate.key, status=MemoryNote.Status.PENDING_REVIEW)
        .defer("embedding")
    )
    return bool(candidate.key) and any(same_fact(n, candidate) for n in duplicate)


def _note_write(
    *, tenant, end_user, message, candidate: Candidate, status: str, reason: str, old, policy, events
) -> str:
    """Write the candidate as a new note (superseding `old` when there is one and it is active) and report the
    outcome; a note held for review is no memory event yet."""
    note = memory_note_create(
        tenant=tenant,
        end_user=end_user,
        kind=candidate.kind,
        key=candidate.key,
        content=candidate.content,
        source=candidate.source,
        confidence=candidate.confidence,
        value=candidate.value,
        quote=candidate.quote,
        status=status,
        session=message.session if message is not None else None,
        message=message,
        supersedes=old,
        review_reason=reason,
        policy=policy,
    )
    outcome = "pending_review" if status != MemoryNote.Status.ACTIVE else "superseded" if old is not None else "written"
    if events is not None and outcome != "pending_review":
        from memory.services.notes.events import note_event

        events.append(note_event(action=outcome, note=note, before=old if outcome == "superseded" else None))
    return outcome


def candidate_apply(*, tenant, message, candidate: Candidate, policy, end_user=None, events: list | None = None) -> str:
    """Write one checked candidate for the message's user (or, for a fact handed in without a message, such as
    the MCP `remember` tool, for `end_user`). Returns the outcome counted in the job result: written, refreshed,
    superseded, pending_review, unchanged or kept_correction (a person corrected the note and the user did not
    restate that fact). `events` (when given) receives what changed, for the turn's memory events
    (memory.services.notes.events)."""
    end_user = message.end_user if message is not None else end_user
    if message is not None and (message.metadata or {}).get("memory_answer"):
        candidate.change, candidate.unclear = True, False  # the user is answering our question: it is settled
    status, reason = _review_status(candidate, policy)
    old = _note_of(tenant=tenant, end_user=end_user, candidate=candidate, policy=policy, message=message)
    if old is None and candidate.extra.get("needs_match"):
        return "unchanged"  # a subjectless change ("it moved to Thursday") of nothing we know: not a fact alone
    if (
        old is not None
        and old.corrected_at is not None
        and not same_fact(old, candidate)
        and not restates_with_new_value(old, candidate)
    ):
        return "kept_correction"  # a person's correction is final until the user restates that fact
    if old is not None and same_fact(old, candidate):
        return _repeat_apply(old=old, candidate=candidate, status=status, message=message, policy=policy, events=events)
    if old is not None and status == MemoryNote.Status.ACTIVE and is_unclear_change(old, candidate, policy):
        status, reason = MemoryNote.Status.PENDING_REVIEW, "conflict"
    if status != MemoryNote.Status.ACTIVE and _pending_already(tenant=tenant, end_user=end_user, candidate=candidate):
        return "pending_review"
    reason = candidate.extra.get("review_reason", reason) if status != MemoryNote.Status.ACTIVE else reason
    return _note_write(
        tenant=tenant,
        end_user=end_user,
        message=message,
        candidate=candidate,
        status=status,
        reason=reason,
        old=old,
        policy=policy,
        events=events,
    )
