"""Sending Celery jobs so that a broker outage never loses a job and never fails the user's request.

`enqueue_on_commit(job, *args, **kwargs)` is how every service schedules background work: the job is sent after
the surrounding transaction commits (a worker never sees ids that are not committed yet). If the broker cannot
be reached, publishing gives up quickly (CELERY_TASK_PUBLISH_RETRY_POLICY, a second or two, so a chat turn is
not held up) and the job is written to the job ledger instead, as an *undelivered* JobRecord (kind "dispatch",
status queued, progress = {"job": name, "args": [...], "kwargs": {...}}). The beat job
`core.jobs.dispatch_redeliver` sends those again once the broker is back.

Jobs take ids, never user text (docs/STYLE: "Thin Celery tasks: take ids"), so the ledger holds no personal
content; `_payload_is_plain` refuses anything but ids, numbers, booleans and short strings.
"""
from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.utils import timezone

logger = logging.getLogger(__name__)

DISPATCH_KIND = "dispatch"
_MAX_ARG_CHARS = 200  # an id, a slug or an actor name; anything longer is not what a job should carry


def _payload_is_plain(value) -> bool:
    if value is None or isinstance(value, (bool, int, float)):
        return True
    if isinstance(value, str):
        return len(value) <= _MAX_ARG_CHARS
    if isinstance(value, (list, tuple)):
        return all(_payload_is_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _payload_is_plain(v) for k, v in value.items())
    return False


def enqueue_on_commit(job, *args, **kwargs) -> None:
    """Send `job(*args, **kwargs)` to a worker once the current transaction commits (at once outside one).
    Never raises because of the broker: an undeliverable job is kept in the ledger and re-sent later."""
    if not _payload_is_plain(list(args)) or not _payload_is_plain(kwargs):
        raise ValueError(f"{job.name} must be given ids and short values only, not text or objects.")
    transaction.on_commit(lambda: enqueue_now(job, *args, **kwargs))


def enqueue_now(job, *args, **kwargs) -> bool:
    """Publish now. Returns True when the broker took the message, False when it went to the ledger."""
    try:
        job.apply_async(args=args, kwargs=kwargs, retry=True, retry_policy=settings.CELERY_TASK_PUBLISH_RETRY_POLICY)
        return True
    except Exception as exc:  # noqa: BLE001 - kombu/redis/OS errors all mean "not delivered"
        logger.warning("broker unreachable, job %s kept in the ledger for redelivery: %s", job.name, exc)
        _record_undelivered(job.name, list(args), kwargs, exc)
        return False


def _record_undelivered(name: str, args: list, kwargs: dict, exc: Exception) -> None:
    from tasks.models import JobRecord

    JobRecord.objects.create(kind=DISPATCH_KIND, status=JobRecord.Status.QUEUED,
                             progress={"job": name, "args": args, "kwargs": kwargs},
                             error=f"broker unreachable: {type(exc).__name__}: {exc}"[:500])


def dispatch_redeliver(*, limit: int = 500) -> dict:
    """Send the undelivered jobs again, oldest first. Stops at the first failure (the broker is still down).
    Safe to run concurrently: rows are claimed with SKIP LOCKED, and jobs are idempotent anyway."""
    from celery import current_app

    from tasks.models import JobRecord

    sent = 0
    while sent < limit:
        with transaction.atomic():
            record = (JobRecord.objects.select_for_update(skip_locked=True)
                      .filter(kind=DISPATCH_KIND, status=JobRecord.Status.QUEUED).order_by("id").first())
            if record is None:
                break
            name = record.progress.get("job", "")
            job = current_app.tasks.get(name)
            if job is None:
                record.status = JobRecord.Status.FAILED
                record.error = f"No job named {name!r} is registered any more."
                record.finished_at = timezone.now()
                record.save(update_fields=["status", "error", "finished_at", "updated_at"])
                continue
            try:
                job.apply_async(args=record.progress.get("args", []), kwargs=record.progress.get("kwargs", {}),
                                retry=True, retry_policy=settings.CELERY_TASK_PUBLISH_RETRY_POLICY)
            except Exception as exc:  # noqa: BLE001
                record.attempts += 1
                record.error = f"broker unreachable: {type(exc).__name__}: {exc}"[:500]
                record.save(update_fields=["attempts", "error", "updated_at"])
                return {"sent": sent, "broker": "down"}
            record.status = JobRecord.Status.SUCCEEDED
            record.attempts += 1
            record.finished_at = timezone.now()
            record.result = {"delivered_at": record.finished_at.isoformat()}
            record.save(update_fields=["status", "attempts", "finished_at", "result", "updated_at"])
            sent += 1
    return {"sent": sent}
