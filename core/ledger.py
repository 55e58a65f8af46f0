"""The job ledger: every background job records its status, progress, result or error in `JobRecord`.

`job_run` wraps the body of a Celery job. With an idempotency key, a job that already succeeded is not run again
(a redelivered or duplicated message is a no-op); failures are recorded and retried with exponential backoff,
and the last failure stays in the ledger as `failed` with its error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.utils import timezone

from core.models import JobRecord


def job_record_create(
    *,
    kind: str,
    tenant_id: int | None = None,
    end_user_id: int | None = None,
    idempotency_key: str = "",
    progress: dict | None = None,
) -> JobRecord:
    """A queued ledger row (so a caller can return its id before the worker picks the job up)."""
    if idempotency_key:
        try:
            with transaction.atomic():
                return JobRecord.objects.create(
                    kind=kind,
                    tenant_id=tenant_id,
                    end_user_id=end_user_id,
                    idempotency_key=idempotency_key,
                    progress=progress or {},
                )
        except IntegrityError:
            return JobRecord.objects.get(kind=kind, idempotency_key=idempotency_key)
    return JobRecord.objects.create(kind=kind, tenant_id=tenant_id, end_user_id=end_user_id, progress=progress or {})


def job_progress_update(*, job_id: int, progress: dict) -> None:
    JobRecord.objects.filter(pk=job_id).update(progress=progress, updated_at=timezone.now())


def _job_insert_running(**fields) -> JobRecord | None:
    """Insert the keyed ledger row already marked running; None when its idempotency key is taken. In autocommit
    this is one statement; inside a caller's transaction it gets a savepoint so that a duplicate key does not abort it."""
    try:
        if connection.in_atomic_block:
            with transaction.atomic():
                return JobRecord.objects.create(**fields)
        return JobRecord.objects.create(**fields)
    except IntegrityError:
        return None


def _job_start(*, kind: str, tenant_id, end_user_id, idempotency_key: str, job_id) -> JobRecord | None:
    """The ledger row of this run, marked running. The usual first run costs one INSERT; a row that exists already
    (queued by a request, or a redelivery) is read and updated."""
    now = timezone.now()
    running = {
        "kind": kind,
        "tenant_id": tenant_id,
        "end_user_id": end_user_id,
        "status": JobRecord.Status.RUNNING,
        "started_at": now,
        "attempts": 1,
    }
    if job_id is None and not idempotency_key:
        return JobRecord.objects.create(**running)
    if job_id is None:
        job = _job_insert_running(idempotency_key=idempotency_key, **running)
        if job is not None:
            return job
        job = JobRecord.objects.get(kind=kind, idempotency_key=idempotency_key)
    else:
        job = JobRecord.objects.filter(pk=job_id).first()
        if job is None:
            return None
    if job.status == JobRecord.Status.SUCCEEDED:
        return job
    JobRecord.objects.filter(pk=job.pk).update(
        status=JobRecord.Status.RUNNING, started_at=now, attempts=F("attempts") + 1, updated_at=now
    )
    job.status, job.started_at, job.updated_at = JobRecord.Status.RUNNING, now, now
    job.attempts += 1
    return job


def job_run(
    task,
    *,
    kind: str,
    body: Callable[[JobRecord], dict | None],
    tenant_id: int | None = None,
    end_user_id: int | None = None,
    idempotency_key: str = "",
    job_id: int | None = None,
    retry_countdown: Callable[[int], float] | None = None,
) -> Any:
    """Run `body(job)` under the ledger. `task` is the bound Celery task (for retries); None runs inline.

    Bookkeeping on the usual path is two statements, each its own short commit: the row is inserted as running,
    and updated once the body returns."""
    if not idempotency_key and job_id is None and task is not None and getattr(task.request, "id", None):
        # A retry or a redelivery (worker killed, acks_late) keeps the Celery task id: reuse its ledger row
        # instead of leaving the first one "running" or "queued" for ever.
        idempotency_key = f"celery:{task.request.id}"
    job = _job_start(
        kind=kind, tenant_id=tenant_id, end_user_id=end_user_id, idempotency_key=idempotency_key, job_id=job_id
    )
    if job is None:
        return None  # the ledger row was erased with its user: nothing left to do
    if job.status == JobRecord.Status.SUCCEEDED:
        return job.result
    try:
        result = body(job) or {}
    except Exception as exc:
        retries = task.request.retries if task is not None else 0
        final = task is None or retries >= task.max_retries
        JobRecord.objects.filter(pk=job.pk).update(
            status=JobRecord.Status.FAILED if final else JobRecord.Status.QUEUED,
            error=f"{type(exc).__name__}: {exc}"[:2000],
            finished_at=timezone.now() if final else None,
            updated_at=timezone.now(),
        )
        if final:
            raise
        countdown = retry_countdown(retries) if retry_countdown else min(2**retries, 60)
        raise task.retry(exc=exc, countdown=countdown) from exc
    if result.get("continued"):
        return result  # a bounded step that queued the next one (with its position): the job is not done yet
    JobRecord.objects.filter(pk=job.pk).update(
        status=JobRecord.Status.SUCCEEDED,
        result=result,
        error="",
        finished_at=timezone.now(),
        updated_at=timezone.now(),
    )
    return result
