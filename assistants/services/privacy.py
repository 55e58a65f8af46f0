"""Privacy: erase everything about one end user (with a receipt), and export it.

Erasure, step by step (docs/admin.md has the guarantees and the tests that prove them):
1. `user_erase_request` locks the EndUser row (the same lock `chat_turn_stream` takes) and sets
   `erasure_requested_at`; from that commit on no chat turn is accepted for the user. It creates the ledger row
   and queues the job after commit.
2. The job (`user_erase`) deletes the user's rows kind by kind, in batches of ERASURE_BATCH_SIZE, one transaction
   per batch; each batch adds its counts to the job's `progress` in the same transaction, so a job killed at any
   point resumes with exact counts when it is run again.
3. A last transaction locks the user again, sweeps every kind once more (a job or turn that was already past
   its own check may have written a row meanwhile), deletes the web-chat login and the EndUser row and writes
   the ErasureReceipt. A writer that comes later finds no user (its insert fails on the foreign key).
Experiences that came only from the user are deleted, not kept (the store may only hold generalised procedures,
but erasure does not rely on that); from experiences other users confirmed too, the user's confirmation is
removed (so one confirmed by 3 users drops below the sharing threshold again). The receipt counts both
(memory.Experience, memory.ExperienceContribution).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import CharField, Exists, OuterRef, Q, Value
from django.db.models.functions import Cast, Concat
from django.utils import timezone

# `... as`: the export lives in privacy_export; callers (the API, the web, the admin, tests) import it from here.
from assistants.services.privacy_export import EXPORT_BATCH as EXPORT_BATCH
from assistants.services.privacy_export import user_export as user_export
from assistants.services.privacy_export import user_export_file as user_export_file
from assistants.services.privacy_export import user_export_write as user_export_write
from core.dispatch import enqueue_on_commit
from core.exceptions import NotFound
from core.models import JobRecord
from core.pruning import tenant_delete
from memory.models import AuditLog, Experience, ExperienceContribution, MemoryNote, MessageVector, PiiRejection
from memory.services.notes.moderation import NOTE_OBJECT_TYPES, audit_log_write
from tasks.models import SessionScratch, TaskState
from tenancy.models import ChatSession, EndUser, ErasureReceipt, Feedback, Message
from tools.models import ToolCallLog
from usage.services import usage_user_deidentify
from webhooks.services import webhook_event_emit

ERASE_JOB_KIND = "user_erase"
# Ledger rows whose idempotency key is "<prefix>:<message id>" carry one message's outcome; they are erased with
# the message. Jobs that may hold a user's text should also set JobRecord.end_user (job_run(end_user_id=...)).
JOB_KEY_PREFIXES_BY_MESSAGE = ("extract",)
# Services acting for an end user write the audit actor as "user:<external_id>"; erasure replaces it with this.
ERASED_ACTOR = "erased user"


def user_id_hash(external_id: str) -> str:
    """What the receipt keeps instead of the id: sha256 of the external id, so a data-protection officer can
    check that a given id was erased without the receipt naming anyone."""
    return hashlib.sha256(external_id.encode()).hexdigest()


# --- What belongs to one user -------------------------------------------------------------------------------------


def _user_messages(tenant_id, user_id):
    # The user's sessions as a subquery, not a join: "end_user = X OR session.end_user = X" across a join made
    # PostgreSQL pick a nested loop that ran for minutes over a few thousand messages (tests/reliability/
    # test_scale.py); with the subquery it is one hashed lookup per message of the tenant.
    sessions = ChatSession.objects.unscoped().filter(tenant_id=tenant_id, end_user_id=user_id).values("pk")
    return Message.objects.unscoped().filter(Q(end_user_id=user_id) | Q(session_id__in=sessions), tenant_id=tenant_id)


def _messages_by(tenant_id, user_id):
    """The ids of the messages the user wrote, within the tenant: a subquery that names the tenant, so PostgreSQL
    reads one partition of the messages, where a join on `message__end_user` read all of them."""
    return Message.objects.unscoped().filter(tenant_id=tenant_id, end_user_id=user_id).values("pk")


def _user_note_ids(tenant_id, user_id):
    return (
        MemoryNote.objects.unscoped()
        .filter(tenant_id=tenant_id, end_user_id=user_id)
        .annotate(sid=Cast("id", CharField()))
        .values("sid")
    )


def _user_jobs(tenant_id, user_id, job_id):
    keyed = Q()
    for prefix in JOB_KEY_PREFIXES_BY_MESSAGE:
        keys = (
            _user_messages(tenant_id, user_id)
            .annotate(k=Concat(Value(f"{prefix}:"), Cast("id", CharField()), output_field=CharField()))
            .values("k")
        )
        keyed |= Q(tenant_id=tenant_id, idempotency_key__in=keys)
    return JobRecord.objects.filter(Q(end_user_id=user_id) | keyed).exclude(pk=job_id)


def _experiences_only_from(tenant_id, user_id):
    """Experiences the user contributed (or, in rows written before contributors were recorded, was the source of)
    that no other user confirmed."""
    theirs = (
        Q(contributed_by_id=user_id)
        | Q(source_message_id__in=_messages_by(tenant_id, user_id))
        | Exists(ExperienceContribution.objects.unscoped().filter(experience=OuterRef("pk"), end_user_id=user_id))
    )
    others = Exists(
        ExperienceContribution.objects.unscoped().filter(experience=OuterRef("pk")).exclude(end_user_id=user_id)
    )
    return Experience.objects.unscoped().filter(tenant_id=tenant_id).filter(theirs).exclude(others)


def _erasure_steps(tenant_id: int, user_id: int, job_id: int | None) -> list[tuple[str, Callable]]:
    """(name, queryset factory) in the order they are deleted: dependents before what they point to."""
    unscoped = lambda model: model.objects.unscoped().filter(tenant_id=tenant_id)  # noqa: E731 - shorthand for the lines below
    return [
        ("job_records", lambda: _user_jobs(tenant_id, user_id, job_id)),
        ("experiences", lambda: _experiences_only_from(tenant_id, user_id)),
        (
            "experience_contributions",
            lambda: unscoped(ExperienceContribution).filter(
                Q(end_user_id=user_id) | Q(source_message_id__in=_messages_by(tenant_id, user_id))
            ),
        ),
        (
            "feedback",
            lambda: unscoped(Feedback).filter(
                Q(end_user_id=user_id) | Q(message_id__in=_messages_by(tenant_id, user_id))
            ),
        ),
        ("memory_notes", lambda: unscoped(MemoryNote).filter(end_user_id=user_id)),
        ("tool_calls", lambda: unscoped(ToolCallLog).filter(end_user_id=user_id)),
        ("pii_rejections", lambda: unscoped(PiiRejection).filter(end_user_id=user_id)),
        (
            "session_scratch",
            lambda: unscoped(SessionScratch).filter(Q(end_user_id=user_id) | Q(session__end_user_id=user_id)),
        ),
        ("task_states", lambda: unscoped(TaskState).filter(end_user_id=user_id)),
        (
            "message_vectors",
            lambda: unscoped(MessageVector).filter(Q(end_user_id=user_id) | Q(session__end_user_id=user_id)),
        ),
        ("messages", lambda: _user_messages(tenant_id, user_id)),
        ("sessions", lambda: unscoped(ChatSession).filter(end_user_id=user_id)),
    ]


def _scrub_audit_log(tenant_id: int, user: EndUser) -> int:
    """The audit log keeps who did what and when to which note id; the note's content (before/after) goes."""
    notes = AuditLog.objects.unscoped().filter(
        tenant_id=tenant_id, object_type__in=NOTE_OBJECT_TYPES, object_id__in=_user_note_ids(tenant_id, user.pk)
    )
    ext = user.external_id
    by_user = (
        AuditLog.objects.unscoped()
        .filter(tenant_id=tenant_id)
        .filter(Q(actor=ext) | Q(actor=f"user:{ext}") | Q(actor=f"end_user:{ext}"))
    )
    by_user.update(actor=ERASED_ACTOR)
    return notes.exclude(before=None, after=None).update(before=None, after=None)


def _session_extras(sessions) -> dict:
    """Summaries and pinned facts live on the session row; counted separately for the receipt."""
    rows = list(sessions.values_list("summary", "pinned_facts"))
    return {
        "summaries": sum(1 for summary, _ in rows if summary),
        "pinned_facts": sum(len(pinned or {}) for _, pinned in rows),
    }


def _add(counts: dict, more: dict) -> dict:
    for key, value in more.items():
        if value:
            counts[receipt_count_name(key)] = counts.get(receipt_count_name(key), 0) + value
    return counts


def receipt_count_name(label: str) -> str:
    """A receipt names a table it erased from by its model's label, as receipts always have: the tenancy models
    keep the label they had in the assistants app ("assistants.Message") since they moved (issue 40), so that
    receipts old and new, and those who read them, see the same names."""
    app, _, model = label.partition(".")
    return f"assistants.{model}" if app == "tenancy" else label


def user_erase_preview(*, tenant, end_user) -> dict:
    """What erasure would delete, as counts per kind (for the admin's confirmation page)."""
    if end_user.tenant_id != tenant.pk:
        raise NotFound("That user does not exist.")
    counts = {name: factory().count() for name, factory in _erasure_steps(tenant.pk, end_user.pk, None)}
    counts.update(_session_extras(ChatSession.objects.for_tenant(tenant).filter(end_user=end_user)))
    counts["audit_log_entries_scrubbed"] = (
        AuditLog.objects.for_tenant(tenant)
        .filter(object_type__in=NOTE_OBJECT_TYPES, object_id__in=_user_note_ids(tenant.pk, end_user.pk))
        .count()
    )
    counts["web_login"] = 1 if end_user.user_id else 0
    counts["end_user"] = 1
    return counts


# --- Erasure ------------------------------------------------------------------------------------------------------


def _mark(user: EndUser) -> None:
    if user.erasure_requested_at is None:
        user.erasure_requested_at = user.updated_at = timezone.now()
        EndUser.objects.unscoped().filter(
            pk=user.pk, tenant_id=user.tenant_id
        ).update(  # with the tenant: docs/scaling.md
            erasure_requested_at=user.erasure_requested_at, updated_at=user.updated_at
        )


def user_erase_request(*, tenant, end_user, requested_by: str, enqueue: bool = True, reason: str = ""):
    """Stop all writes for the user now and queue the erasure job; returns its JobRecord (the API answers
    202 {"job": id}). Asking again returns the same job (queued again unless it already succeeded).
    `enqueue=False` leaves running it to the caller (the erase_user command runs it in its own process).
    `reason` (why, e.g. "GDPR art. 17 request, ticket 4411") is kept on the job and then on the receipt; it must
    not name the person."""
    from core.ledger import job_record_create

    if end_user.tenant_id != tenant.pk:
        raise NotFound("That user does not exist.")
    with transaction.atomic():
        user = EndUser.objects.for_tenant(tenant).select_for_update().filter(pk=end_user.pk).first()
        if user is None:
            raise NotFound("That user does not exist (already erased?).")
        _mark(user)
        reason = " ".join((reason or "").split())[:500]
        audit_log_write(
            tenant=tenant,
            actor=requested_by,
            action="erase_request",
            object_type="assistants.EndUser",
            object_id=user.pk,
            after={"reason": reason} if reason else None,
        )
        job = job_record_create(
            kind=ERASE_JOB_KIND,
            tenant_id=tenant.pk,
            end_user_id=user.pk,
            idempotency_key=f"erase:{tenant.pk}:{user.pk}",
            progress={"step": "queued", "requested_by": requested_by, "counts": {}, "reason": reason},
        )
        if enqueue and job.status != JobRecord.Status.SUCCEEDED:
            args = (tenant.pk, user.pk, requested_by, job.pk)
            enqueue_on_commit("assistants.jobs.user_erase", *args)
    end_user.erasure_requested_at = user.erasure_requested_at
    return job


def _lock_user(tenant_id, user_id) -> EndUser | None:
    return EndUser.objects.unscoped().select_for_update().filter(pk=user_id, tenant_id=tenant_id).first()


def _lock_progress(job_id) -> dict:
    if job_id is None:
        return {}
    job = JobRecord.objects.select_for_update().filter(pk=job_id).first()
    return dict(job.progress or {}) if job else {}


def _save_progress(job_id, progress) -> None:
    if job_id is not None:
        JobRecord.objects.filter(pk=job_id).update(progress=progress, updated_at=timezone.now())


def _finished(tenant_id, job_id) -> dict:
    receipt = (
        ErasureReceipt.objects.unscoped().filter(tenant_id=tenant_id, job_id=job_id).first()
        if job_id is not None
        else None
    )
    return dict(receipt.counts) if receipt else {}


def user_erase(*, tenant_id: int, end_user_id: int, requested_by: str, job_id: int | None = None) -> dict:
    """Delete every row about the user; return counts per table; write the ErasureReceipt. Idempotent: run it
    again after a crash and it finishes, with counts that add up to what was there. The three phases are the
    module docstring's steps 2 and 3; a phase that finds the user gone (erased by a run before this one) returns
    that run's receipt counts."""
    batch = max(1, int(getattr(settings, "ERASURE_BATCH_SIZE", 500)))
    local: dict[str, Any] = {"counts": {}}  # progress when there is no ledger row
    if not _erase_start(tenant_id, end_user_id, requested_by=requested_by, job_id=job_id, local=local):
        return _finished(tenant_id, job_id)
    for name, factory in _erasure_steps(tenant_id, end_user_id, job_id):
        if not _erase_in_batches(tenant_id, end_user_id, name, factory, batch=batch, job_id=job_id, local=local):
            return _finished(tenant_id, job_id)
    counts = _erase_finish(tenant_id, end_user_id, requested_by=requested_by, job_id=job_id, local=local)
    return counts if counts is not None else _finished(tenant_id, job_id)


def _progress(job_id: int | None, local: dict) -> dict:
    """The erasure's progress, read under a lock: the ledger row's, or `local` when there is no ledger row."""
    return _lock_progress(job_id) if job_id is not None else local


def _erase_start(tenant_id: int, end_user_id: int, *, requested_by: str, job_id: int | None, local: dict) -> bool:
    """Mark the user (no new turn is accepted) and scrub their words from the audit log first, since the log
    is kept and must not hold them even while the deletion runs. False when the user is gone already."""
    with transaction.atomic():
        user = _lock_user(tenant_id, end_user_id)
        if user is None:
            return False
        _mark(user)
        progress = _progress(job_id, local)
        progress.setdefault("counts", {})
        scrubbed = _scrub_audit_log(tenant_id, user)
        _add(progress["counts"], {"memory.AuditLog (content scrubbed)": scrubbed})
        progress.update(step="started", requested_by=requested_by)
        _save_progress(job_id, progress)
    return True


def _erase_in_batches(
    tenant_id: int, end_user_id: int, name: str, factory: Callable, *, batch: int, job_id: int | None, local: dict
) -> bool:
    """Delete one kind of row, `batch` rows a transaction, each adding its counts to the progress in the same
    transaction, so a job killed between batches resumes with exact counts. False when the user is gone."""
    while True:
        with transaction.atomic():
            if _lock_user(tenant_id, end_user_id) is None:
                return False
            progress = _progress(job_id, local)
            qs = factory()
            pks = list(qs.order_by().values_list("pk", flat=True)[:batch])
            if not pks:
                return True
            chunk = qs.model._base_manager.filter(pk__in=pks)
            if name == "sessions":
                _add(progress["counts"], _session_extras(chunk.filter(tenant_id=tenant_id)))
            _total, deleted = tenant_delete(chunk, tenant_id=tenant_id)
            _add(progress["counts"], deleted)
            progress["step"] = name
            _save_progress(job_id, progress)


def _erase_finish(
    tenant_id: int, end_user_id: int, *, requested_by: str, job_id: int | None, local: dict
) -> dict | None:
    """The last transaction, with the user locked again: sweep every kind once more (a job or turn already past
    its own check may have written a row meanwhile), de-identify usage, delete the login and the EndUser row and
    write the receipt. Returns the counts; None when the user is gone."""
    with transaction.atomic():
        user = _lock_user(tenant_id, end_user_id)
        if user is None:
            return None
        progress = _progress(job_id, local)
        counts = progress["counts"]
        _add(counts, {"memory.AuditLog (content scrubbed)": _scrub_audit_log(tenant_id, user)})
        # usage keeps its counts, merged into the tenant's "no user" rows (aggregated, de-identified)
        _add(counts, {"usage.UsageHour (de-identified)": usage_user_deidentify(tenant=tenant_id, end_user_id=user.pk)})
        for name, factory in _erasure_steps(tenant_id, end_user_id, job_id):  # the final sweep
            qs = factory()
            if name == "sessions":
                _add(counts, _session_extras(qs))
            _add(counts, tenant_delete(qs.model._base_manager.filter(pk__in=qs.values("pk")), tenant_id=tenant_id)[1])
        _erase_login(tenant_id, user, counts)
        hashed = user_id_hash(user.external_id)
        _add(counts, tenant_delete(EndUser.objects.unscoped().filter(pk=user.pk), tenant_id=tenant_id)[1])
        receipt = ErasureReceipt.objects.unscoped().create(
            tenant_id=tenant_id,
            user_id_hash=hashed,
            requested_by=requested_by[:200],
            counts=counts,
            job_id=job_id,
            reason=str(progress.get("reason") or "")[:500],
            completed_at=timezone.now(),
        )
        # Sent after this commit; ids only (the user is gone, and no identifier of theirs goes out).
        webhook_event_emit(tenant=tenant_id, event="user.erased", data={"job": job_id, "receipt": receipt.pk})
        progress["step"] = "done"
        _save_progress(job_id, progress)
    return counts


def _erase_login(tenant_id: int, user: EndUser, counts: dict) -> None:
    """Delete the user's web-chat login and its failed-login records (they keep the username and address). A
    staff or superuser login is an operator's account, not the end user's data: it is kept."""
    login = user.user
    if login is not None and not (login.is_staff or login.is_superuser):
        user.user = None
        EndUser.objects.unscoped().filter(pk=user.pk, tenant_id=tenant_id).update(user=None)
        from axes.models import AccessAttempt

        _add(counts, AccessAttempt.objects.filter(username=login.get_username()).delete()[1])
        _add(counts, tenant_delete(type(login).objects.filter(pk=login.pk), tenant_id=tenant_id)[1])
