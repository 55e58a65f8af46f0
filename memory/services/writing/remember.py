"""Remembering a fact handed in by an agent (the MCP `remember` tool), under the write rules of extraction.

The fact goes through exactly what a chat message's facts go through: the tenant's reader (offline rules or its
model) turns the sentence into candidates, `candidates_check` applies the write rules (durable only, hedges,
inferred facts to review) and the PII guard, and `candidate_apply` refreshes, supersedes or writes the note.
Only when the reader finds no fact in a sentence the agent explicitly asked to keep is it stored as one note of
its generic kind (the agent, not a passing remark, says it is a fact).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from core.erasure import end_user_lock_for_write
from core.exceptions import Conflict, InvalidInput
from core.policy import memory_policy_for
from core.text import has_chinese
from memory.models import MemoryNote
from memory.services.notes.notes import pii_reject
from memory.services.vectors.embeddings import embeddings_kept_for_turn
from memory.services.writing.extraction import candidates_check, extract_with_model
from memory.services.writing.rules import Candidate, generic_kind, read_message, third_person
from memory.services.writing.topics import topics_in
from memory.services.writing.writing import candidate_apply, candidates_embed_ahead

MAX_FACT_CHARS = 2000


@dataclass
class RememberResult:
    """What `remember` did: outcome counts (written, refreshed, superseded, pending_review, unchanged), the notes
    it wrote or refreshed, and what the write rules dropped (reason -> count)."""

    outcomes: dict[str, int] = field(default_factory=dict)
    notes: list[MemoryNote] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)


def _candidates(*, text: str, policy, kind: str | None, key: str) -> list[Candidate]:
    if policy.chat_model == "offline":
        found = read_message(text)
    else:
        found = extract_with_model(model=policy.chat_model, text=text)
    if not found:
        topics = topics_in(text)
        found = [
            Candidate(
                kind=kind or generic_kind(text),
                key=key or (topics[0].slot if topics else ""),
                content=third_person(text, has_chinese(text)),
                value=None,
                confidence=0.9,
                quote=text,
            )
        ]
    for candidate in found:
        if kind:
            candidate.kind = kind
        if key:
            candidate.key = key
    return found


def memory_fact_remember(
    *, tenant, end_user, text: str, kind: str | None = None, key: str = "", assistant=None
) -> RememberResult:
    """Remember `text` (a fact about the user, in their language) for `end_user` of `tenant`.

    Raises InvalidInput for an empty or too long text, an unknown kind, or a fact that is nothing but a personal
    identifier the policy refuses; Conflict while the user is being erased. Writes nothing in those cases."""
    text = " ".join((text or "").split())
    if not text:
        raise InvalidInput("Say the fact to remember as one sentence.")
    if len(text) > MAX_FACT_CHARS:
        raise InvalidInput(f"A fact is at most {MAX_FACT_CHARS} characters; this one has {len(text)}.")
    if kind and kind not in MemoryNote.Kind.values:
        raise InvalidInput(f"'{kind}' is not a note kind: use one of {', '.join(MemoryNote.Kind.values)}.")
    if end_user.tenant_id != tenant.pk:
        raise InvalidInput("That user does not belong to this tenant.")
    policy = memory_policy_for(tenant=tenant, assistant=assistant)
    kept, dropped, pii = candidates_check(
        candidates=_candidates(text=text, policy=policy, kind=kind, key=key), text=text, policy=policy
    )
    result = RememberResult(dropped=dropped)
    with embeddings_kept_for_turn():
        # Embedded before the user's row is locked: under the lock the writes find these vectors kept, and a
        # remote embedding model never holds up the user's turns or erasure.
        candidates_embed_ahead(kept, model=policy.embedding_model)
        with transaction.atomic():
            # The same lock erasure takes: a fact lands before an erasure (and is erased with it) or not at all.
            if end_user_lock_for_write(tenant_id=tenant.pk, end_user_id=end_user.pk) is None:
                raise Conflict("That user is being erased; nothing new is accepted for them.", code="user_being_erased")
            if pii:
                pii_reject(tenant=tenant, end_user=end_user, counts=pii, stage="extraction")
            started = timezone.now()
            for candidate in kept:
                outcome = candidate_apply(
                    tenant=tenant, message=None, candidate=candidate, policy=policy, end_user=end_user
                )
                result.outcomes[outcome] = result.outcomes.get(outcome, 0) + 1
            # The user's row is locked, so what changed since `started` is what this call wrote or refreshed.
            result.notes = list(
                MemoryNote.objects.for_tenant(tenant)
                .filter(end_user=end_user, updated_at__gte=started)
                .exclude(status=MemoryNote.Status.SUPERSEDED)
                .order_by("id")
            )
    if not kept and dropped.get("pii"):
        raise InvalidInput(
            "A note cannot hold a personal identifier (phone, ID, card, e-mail or passport number).", code="pii_refused"
        )
    return result
