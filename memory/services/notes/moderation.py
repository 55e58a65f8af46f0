"""Moderation of long-term notes by a tenant's staff: approve, reject, edit, expire now, pin.

Every action locks the note, checks that the transition makes sense, and writes one `AuditLog` row with who did
it, what, and the note before and after (the audit log is read-only in the admin). Actions raise `InvalidInput`
with a sentence when they do not apply (e.g. approving a forgotten note), so the admin can say why.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.exceptions import InvalidInput, NotFound
from memory.models import AuditLog, Experience, MemoryNote
from memory.services.identifiers.pii import pii_redact_value
from memory.services.vectors.embeddings import embed_texts, text_features

NOTE_OBJECT_TYPE = "memory_note"  # the same as memory.services.notes.notes writes
# Older or other writers may name notes like this; erasure scrubs both.
NOTE_OBJECT_TYPES = (NOTE_OBJECT_TYPE, "memory.MemoryNote")
AUDITED_FIELDS = (
    "status",
    "kind",
    "key",
    "content",
    "confidence",
    "pinned",
    "expires_at",
    "supersedes_id",
    "embedding_model",
)
EDITABLE_FIELDS = ("content", "kind", "key", "confidence", "expires_at")
Status = MemoryNote.Status


def note_snapshot(note: MemoryNote) -> dict:
    """The audited fields of a note, JSON-ready."""
    snap = {}
    for name in AUDITED_FIELDS:
        value = getattr(note, name)
        snap[name] = value.isoformat() if hasattr(value, "isoformat") else value
    return snap


def audit_log_write(
    *, tenant, actor: str, action: str, object_type: str, object_id, before=None, after=None
) -> AuditLog:
    # Audit text is derived from users' words as well: it keeps what changed, never an identifier.
    before, after = pii_redact_value(before)[0], pii_redact_value(after)[0]
    return AuditLog.objects.for_tenant(tenant).create(
        tenant=tenant,
        actor=actor or "system",
        action=action,
        object_type=object_type,
        object_id=str(object_id),
        before=before,
        after=after,
    )


def _locked(tenant, note: MemoryNote) -> MemoryNote:
    locked = MemoryNote.objects.for_tenant(tenant).select_for_update().filter(pk=note.pk).first()
    if locked is None:
        raise NotFound("That note does not exist.")
    return locked


def _audited(tenant, note, actor, action, change) -> MemoryNote:
    """Lock `note`, apply `change(locked_note)`, save, audit. Returns the saved note."""
    locked = _locked(tenant, note)
    before = note_snapshot(locked)
    change(locked)
    locked.save()
    audit_log_write(
        tenant=tenant,
        actor=actor,
        action=action,
        object_type=NOTE_OBJECT_TYPE,
        object_id=locked.pk,
        before=before,
        after=note_snapshot(locked),
    )
    return locked


@transaction.atomic
def memory_note_approve(*, tenant, note: MemoryNote, actor: str) -> MemoryNote:
    """A pending note becomes active (recallable). If it was waiting to supersede an active note, that note is
    superseded now."""

    def change(n):
        if n.status != Status.PENDING_REVIEW:
            raise InvalidInput(f"Only notes awaiting review can be approved; note {n.pk} is {n.status}.")
        n.status = Status.ACTIVE
        if n.supersedes_id:
            older = (
                MemoryNote.objects.for_tenant(tenant)
                .select_for_update()
                .filter(pk=n.supersedes_id, status=Status.ACTIVE)
                .first()
            )
            if older is not None:
                older_before = note_snapshot(older)
                older.status = Status.SUPERSEDED
                older.save(update_fields=["status", "updated_at"])
                audit_log_write(
                    tenant=tenant,
                    actor=actor,
                    action="supersede",
                    object_type=NOTE_OBJECT_TYPE,
                    object_id=older.pk,
                    before=older_before,
                    after=note_snapshot(older),
                )

    return _audited(tenant, note, actor, "approve", change)


@transaction.atomic
def memory_note_reject(*, tenant, note: MemoryNote, actor: str) -> MemoryNote:
    """A pending (or active) note is rejected: never recalled; a note it would have superseded stays active."""

    def change(n):
        if n.status not in (Status.PENDING_REVIEW, Status.ACTIVE):
            raise InvalidInput(f"Only pending or active notes can be rejected; note {n.pk} is {n.status}.")
        n.status = Status.REJECTED

    return _audited(tenant, note, actor, "reject", change)


@transaction.atomic
def memory_note_expire_now(*, tenant, note: MemoryNote, actor: str) -> MemoryNote:
    """The note stops being recalled now (status expired, expires_at = now)."""

    def change(n):
        if n.status not in (Status.PENDING_REVIEW, Status.ACTIVE):
            raise InvalidInput(f"Only pending or active notes can be expired; note {n.pk} is {n.status}.")
        n.status = Status.EXPIRED
        n.expires_at = timezone.now()

    return _audited(tenant, note, actor, "expire", change)


@transaction.atomic
def memory_note_pin(*, tenant, note: MemoryNote, actor: str, pinned: bool = True) -> MemoryNote:
    """Pinned notes never decay and never expire by TTL (expires_at is cleared)."""

    def change(n):
        if n.status in (Status.FORGOTTEN, Status.REJECTED):
            raise InvalidInput(f"A {n.status} note cannot be pinned.")
        n.pinned = pinned
        if pinned:
            n.expires_at = None

    return _audited(tenant, note, actor, "pin" if pinned else "unpin", change)


def _embedding_model(tenant) -> str:
    return tenant.embedding_model or settings.LLM_EMBEDDING_MODEL


@transaction.atomic
def memory_note_edit(*, tenant, note: MemoryNote, actor: str, **changes) -> MemoryNote:
    """Correct a note (content, kind, key, confidence, expires_at). A changed content is re-embedded with the
    tenant's embedding model and its keyword terms are rebuilt, so recall finds the corrected text."""
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise InvalidInput(f"These fields cannot be edited: {', '.join(sorted(unknown))}.")
    if "content" in changes:
        changes["content"] = (changes["content"] or "").strip()
        if not changes["content"]:
            raise InvalidInput("A note needs some content: write the fact, or use forget instead.")
    if "confidence" in changes and not 0 <= float(changes["confidence"]) <= 1:
        raise InvalidInput("Confidence must be between 0 and 1.")
    if "kind" in changes and changes["kind"] not in MemoryNote.Kind.values:
        raise InvalidInput(f"'{changes['kind']}' is not a note kind.")
    # Compare with the stored row: `note` may already carry the new values (an admin form sets them).
    stored = MemoryNote.objects.for_tenant(tenant).filter(pk=note.pk).first()
    if stored is None:
        raise NotFound("That note does not exist.")
    vector = None
    content = changes.get("content", stored.content)
    if content != stored.content or stored.embedding is None:
        # the model the note's own assistant searches with (an assistant may override the tenant's)
        from memory.services.notes.notes import note_policy

        model, vectors = embed_texts(texts=[content], model=note_policy(stored).embedding_model)
        vector = (model, vectors[0])

    def change(n):
        if n.status in (Status.FORGOTTEN,):
            raise InvalidInput("A forgotten note cannot be edited; write a new note instead.")
        for name, value in changes.items():
            setattr(n, name, value)
        if "content" in changes and "value" not in changes and n.value is not None:
            from memory.services.notes.notes import value_from_content

            n.value = value_from_content(content=n.content, key=n.key)
        if {"content", "value", "kind", "key"} & set(changes):
            n.corrected_at, n.corrected_by = timezone.now(), actor[:200]  # final until the user restates it
        if vector is not None:
            n.embedding_model, n.embedding = vector
            n.search_text = " ".join(text_features(n.content))

    return _audited(tenant, note, actor, "edit", change)


@transaction.atomic
def memory_note_admin_create(
    *,
    tenant,
    end_user,
    actor: str,
    kind: str,
    content: str,
    key: str = "",
    confidence: float = 0.9,
    expires_at=None,
    pinned: bool = False,
) -> MemoryNote:
    """A note written by staff (source admin), embedded and audited like an edit."""
    if end_user.tenant_id != tenant.pk:
        raise NotFound("That user does not exist.")
    content = (content or "").strip()
    if not content:
        raise InvalidInput("A note needs some content.")
    model, vectors = embed_texts(texts=[content], model=_embedding_model(tenant))
    note = MemoryNote.objects.for_tenant(tenant).create(
        tenant=tenant,
        end_user=end_user,
        kind=kind,
        key=key,
        content=content,
        confidence=confidence,
        source=MemoryNote.Source.ADMIN,
        expires_at=expires_at,
        pinned=pinned,
        embedding=vectors[0],
        embedding_model=model,
        search_text=" ".join(text_features(content)),
        observed_at=timezone.now(),
    )
    audit_log_write(
        tenant=tenant,
        actor=actor,
        action="create",
        object_type=NOTE_OBJECT_TYPE,
        object_id=note.pk,
        before=None,
        after=note_snapshot(note),
    )
    return note


@transaction.atomic
def experience_approve(*, tenant, experience: Experience, actor: str, approved: bool = True) -> Experience:
    """Staff approval (admin): an approved experience is offered to all users of its assistant while the tenant
    shares experiences, however many users confirmed it. Approving re-checks that it holds no identifier."""
    from memory.services.identifiers.pii import pii_find

    if experience.tenant_id != tenant.pk:
        raise NotFound("That experience does not exist.")
    if approved and (pii_find(experience.task_summary) or pii_find(experience.solution)):
        raise InvalidInput(
            "This experience holds a personal identifier; edit it out before approving.", code="personal_identifier"
        )
    before = {"approved_at": experience.approved_at.isoformat() if experience.approved_at else None}
    experience.approved_at = timezone.now() if approved else None
    experience.approved_by = actor if approved else ""
    experience.save(update_fields=["approved_at", "approved_by", "updated_at"])
    audit_log_write(
        tenant=tenant,
        actor=actor,
        action="approve" if approved else "unapprove",
        object_type="memory.Experience",
        object_id=experience.pk,
        before=before,
        after={"approved_at": experience.approved_at.isoformat() if experience.approved_at else None},
    )
    return experience
