"""Sending Celery jobs so that no job is lost, on any broker, and a broker outage never fails the user's request.

The outbox. `enqueue_on_commit(job, *args, **kwargs)` is how every service schedules background work
(`job` is the job's registered name, e.g. "memory.jobs.memory_reembed", so that a service never imports the job
module that imports it back; `job_named` looks it up; `enqueue_now` outside a transaction, `enqueue_later` for a
backoff; nothing else calls `.delay`/`.apply_async`, tests/foundation/test_dispatch_path.py checks it):
it writes the job to the job ledger, in the caller's transaction, as an outbox row (JobRecord kind "dispatch",
progress = {"job": name, "args": [...], "kwargs": {...}}), and publishes it once that transaction commits, with
the Celery task id "outbox-<row id>". A rolled-back request therefore schedules nothing, and a committed one
cannot lose its job between the commit and the broker.

The lease. Every job runs through `OutboxTask.__call__` (the Celery app's task class): it marks its row running
with `lease_expires_at = now + JOB_LEASE_SECONDS`, a thread of the worker process renews the lease while the job
runs, and the row is marked succeeded or failed when it ends (queued again while a retry waits out its backoff).
A row whose lease ran out without completion (its worker was SIGKILLed, the filesystem broker dropped the
message, a retry's ETA message died with its worker) is sent again by the beat job `core.jobs.dispatch_redeliver`;
so is a sent job that has not started within DISPATCH_START_SECONDS, and one the broker refused (its lease is
expired at once). A copy that arrives after its job completed does nothing, and the services are idempotent
(idempotency keys, compare-and-set), so completion stays exactly once in effect.

If the broker cannot be reached, publishing gives up quickly (CELERY_TASK_PUBLISH_RETRY_POLICY, a second or two,
so a chat turn is not held up); the row stays queued with the broker's error. A job held by core.job_hold waits.
Jobs take ids, never user text (docs/STYLE: "Thin Celery tasks: take ids"), so the ledger holds no personal
content; `_payload_is_plain` refuses anything but ids, numbers, booleans and short strings. Periodic jobs sent by
beat carry no outbox row: beat sends them again on its own schedule.
"""

from __future__ import annotations

import importlib
import logging
import threading
from datetime import timedelta

from celery import Task
from celery.exceptions import Retry
from django.conf import settings
from django.db import close_old_connections, connections, transaction
from django.db.models import F, Q
from django.utils import timezone

from config.queues import BULK_JOBS, TENANT_BULK_JOBS
from core import priority
from core.job_hold import job_hold_seconds

logger = logging.getLogger(__name__)

DISPATCH_KIND = "dispatch"
TASK_ID_PREFIX = "outbox-"
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


def _outbox_record(job, args: list, kwargs: dict, start_within: float | None = None):
    """The outbox row of one job, in the caller's transaction; sent again unless started within `start_within` s
    (default DISPATCH_START_SECONDS)."""
    from core.models import JobRecord

    start_within = settings.DISPATCH_START_SECONDS if start_within is None else start_within
    if not _payload_is_plain(args) or not _payload_is_plain(kwargs):
        raise ValueError(f"{job.name} must be given ids and short values only, not text or objects.")
    return JobRecord.objects.create(
        kind=DISPATCH_KIND,
        status=JobRecord.Status.QUEUED,
        progress={"job": job.name, "args": args, "kwargs": kwargs},
        lease_expires_at=timezone.now() + timedelta(seconds=start_within),
    )


def job_named(job: Task | str) -> Task:
    """The registered Celery job called `job` (a job object is returned as is). A job's name is its import path
    (shared_task's default), so a job module the process has not imported yet is imported here: a web process
    does not run Celery's autodiscovery. An unknown name raises LookupError before anything is recorded."""
    if not isinstance(job, str):
        return job
    from celery import current_app

    found = current_app.tasks.get(job)
    if found is None:
        module, _dot, _attr = job.rpartition(".")
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if not module.startswith(exc.name or "\0"):
                raise  # the job module exists but one of its imports does not: say that, not "no such job"
        found = current_app.tasks.get(job)
    if found is None:
        raise LookupError(f"No job named {job!r} is registered.")
    return found


def enqueue_on_commit(job: Task | str, *args, **kwargs) -> None:
    """Record `job(*args, **kwargs)` in the outbox with the current transaction's data and send it to a worker
    once the transaction commits (at once outside one). Never raises because of the broker."""
    job = job_named(job)
    record = _outbox_record(job, list(args), kwargs)
    transaction.on_commit(lambda: _publish(record.pk, job, list(args), kwargs))


def enqueue_now(job: Task | str, *args, **kwargs) -> bool:
    """Record and publish now. True when the broker took the message, False when it stays in the outbox."""
    job = job_named(job)
    record = _outbox_record(job, list(args), kwargs)
    return _publish(record.pk, job, list(args), kwargs)


def enqueue_later(job: Task | str, *args, countdown: float, **kwargs) -> bool:
    """Record now and publish to run in `countdown` seconds (a retry's backoff, e.g. a webhook delivery's next
    attempt). The row's lease covers the wait, so redelivery does not send it early; if the broker is down the row
    stays in the outbox and is sent once it is due. Returns True when the broker took the message."""
    job, wait = job_named(job), max(0.0, float(countdown))
    record = _outbox_record(job, list(args), kwargs, start_within=wait + settings.DISPATCH_START_SECONDS)
    return _publish(record.pk, job, list(args), kwargs, countdown=wait or None)


def _send(job, record_id: int, args, kwargs, countdown: float | None = None) -> None:
    """Publish the job of outbox row `record_id` under the task id its run maps back to the row by, with the
    publish retry policy. The one place a job goes to the broker; a broker error is raised to the caller."""
    job.apply_async(
        args=args,
        kwargs=kwargs,
        task_id=f"{TASK_ID_PREFIX}{record_id}",
        countdown=countdown,
        retry=True,
        retry_policy=settings.CELERY_TASK_PUBLISH_RETRY_POLICY,
    )


def _publish(record_id: int, job, args: list, kwargs: dict, countdown: float | None = None) -> bool:
    from core.models import JobRecord

    try:
        _send(job, record_id, args, kwargs, countdown)
        return True
    except Exception as exc:  # noqa: BLE001 - kombu/redis/OS errors all mean "not delivered"
        logger.warning("broker unreachable, job %s kept in the outbox for redelivery: %s", job.name, exc)
        JobRecord.objects.filter(pk=record_id, status=JobRecord.Status.QUEUED).update(
            lease_expires_at=timezone.now(),
            error=f"broker unreachable: {type(exc).__name__}: {exc}"[:500],
            updated_at=timezone.now(),
        )
        return False


def _due():
    from core.models import JobRecord

    return Q(kind=DISPATCH_KIND, status__in=[JobRecord.Status.QUEUED, JobRecord.Status.RUNNING]) & (
        Q(lease_expires_at__lt=timezone.now()) | Q(lease_expires_at__isnull=True)
    )


def dispatch_due_exists() -> bool:
    from core.models import JobRecord

    return JobRecord.objects.filter(_due()).exists()


def dispatch_redeliver(*, limit: int = 500) -> dict:
    """Send again, oldest first, the outbox rows whose lease ran out without completion. Stops at the first
    failure (the broker is still down). Safe to run concurrently: rows are claimed with SKIP LOCKED, a copy of a
    job that completed meanwhile does nothing, and jobs are idempotent anyway. Also forgets completed rows older
    than DISPATCH_KEEP_HOURS."""
    from celery import current_app

    from core.models import JobRecord

    sent = 0
    while sent < limit:
        with transaction.atomic():
            record = JobRecord.objects.select_for_update(skip_locked=True).filter(_due()).order_by("id").first()
            if record is None:
                break
            now = timezone.now()
            name = record.progress.get("job", "")
            job = current_app.tasks.get(name)
            if job is None:
                record.status = JobRecord.Status.FAILED
                record.error = f"No job named {name!r} is registered any more."
                record.finished_at = now
                record.save(update_fields=["status", "error", "finished_at", "updated_at"])
                continue
            try:
                _send(job, record.pk, record.progress.get("args", []), record.progress.get("kwargs", {}))
            except Exception as exc:  # noqa: BLE001 - kombu/redis/OS errors all mean "not delivered"
                record.error = f"broker unreachable: {type(exc).__name__}: {exc}"[:500]
                record.save(update_fields=["error", "updated_at"])
                return {"sent": sent, "broker": "down"}
            record.status = JobRecord.Status.QUEUED
            record.lease_expires_at = now + timedelta(seconds=settings.DISPATCH_START_SECONDS)
            record.result = {"resent_at": now.isoformat(), "resent": record.result.get("resent", 0) + 1}
            record.save(update_fields=["status", "lease_expires_at", "result", "updated_at"])
            sent += 1
    kept_since = timezone.now() - timedelta(hours=settings.DISPATCH_KEEP_HOURS)
    JobRecord.objects.filter(
        kind=DISPATCH_KIND, status__in=[JobRecord.Status.SUCCEEDED, JobRecord.Status.FAILED], finished_at__lt=kept_since
    ).delete()
    return {"sent": sent}


class _LeaseRenewer:
    """One thread per worker process that extends the leases of the outbox rows this process is running."""

    def __init__(self):
        self._ids: set[int] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, record_id: int) -> None:
        with self._lock:
            self._ids.add(record_id)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="outbox-lease", daemon=True)
                self._thread.start()

    def discard(self, record_id: int) -> None:
        with self._lock:
            self._ids.discard(record_id)

    def _run(self) -> None:
        from core.models import JobRecord

        interval = max(0.5, settings.JOB_LEASE_SECONDS / 3)
        stop = threading.Event()
        while not stop.wait(interval):
            with self._lock:
                ids = list(self._ids)
            if not ids:
                continue
            try:
                close_old_connections()
                JobRecord.objects.filter(pk__in=ids, status=JobRecord.Status.RUNNING).update(
                    lease_expires_at=timezone.now() + timedelta(seconds=settings.JOB_LEASE_SECONDS)
                )
            except Exception as exc:  # noqa: BLE001 - a database blip: try again next tick, the lease has slack
                logger.warning("could not renew job leases: %s", exc)
                connections.close_all()


_renewer = _LeaseRenewer()


def _outbox_claim(record_id: int) -> bool:
    """Mark the outbox row running under a fresh lease. False when the job already completed (a late copy)."""
    from core.models import JobRecord

    now = timezone.now()
    record = JobRecord.objects.filter(pk=record_id, kind=DISPATCH_KIND).values("status").first()
    if record is not None and record["status"] in (JobRecord.Status.SUCCEEDED, JobRecord.Status.FAILED):
        return False
    JobRecord.objects.filter(pk=record_id, kind=DISPATCH_KIND).update(
        status=JobRecord.Status.RUNNING,
        started_at=now,
        attempts=F("attempts") + 1,
        updated_at=now,
        lease_expires_at=now + timedelta(seconds=settings.JOB_LEASE_SECONDS),
    )
    return True  # a message without its row (sent before the outbox existed) runs: jobs are idempotent


def _outbox_finish(record_id: int, *, status: str, error: str = "", wait_seconds: float = 0) -> None:
    from core.models import JobRecord

    now = timezone.now()
    fields = {"status": status, "error": error[:2000], "updated_at": now}
    if status == JobRecord.Status.QUEUED:  # a retry waits out its backoff in the worker's memory (an ETA message)
        fields["lease_expires_at"] = now + timedelta(seconds=wait_seconds + settings.DISPATCH_START_SECONDS)
    else:
        fields.update(lease_expires_at=None, finished_at=now)
    JobRecord.objects.filter(pk=record_id, kind=DISPATCH_KIND).update(**fields)


_BULK_LOCK_CLASS = 18  # pg_advisory_xact_lock(18, tenant id): one tenant's bulk claims, one at a time


def _outbox_claim_bulk(record_id: int, *, tenant_id: int, args: list) -> bool | None:
    """Claim a tenant's bulk job only while fewer than the tenant's limit of its bulk jobs run (fairness between
    tenants: the rest of the workers stay for other tenants). The step of a job that queued it (an import's next
    batch, same arguments) does not count against it. True: claimed; False: over the limit, try later; None: the
    job already completed."""
    from django.db import connection

    from core.models import JobRecord
    from tenancy.models import Tenant

    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_BULK_LOCK_CLASS, int(tenant_id)])
        limit = (
            Tenant.objects.filter(pk=tenant_id).values_list("bulk_jobs_max", flat=True).first()
        ) or settings.BULK_JOBS_PER_TENANT
        running = (
            JobRecord.objects.filter(
                kind=DISPATCH_KIND,
                status=JobRecord.Status.RUNNING,
                lease_expires_at__gt=timezone.now(),
                progress__job__in=TENANT_BULK_JOBS,
                progress__args__0=int(tenant_id),
            )
            .exclude(pk=record_id)
            .exclude(progress__args=args)
            .count()
        )  # a step's next step is no rival
        record = JobRecord.objects.filter(pk=record_id, kind=DISPATCH_KIND).values("status").first()
        if record is not None and record["status"] in (JobRecord.Status.SUCCEEDED, JobRecord.Status.FAILED):
            return None
        if running >= limit:
            return False
        return _outbox_claim(record_id)


def _outbox_defer(task, record_id: int, args, kwargs, wait: float | None = None) -> None:
    """Send the job again in `wait` (BULK_JOB_WAIT_SECONDS) s, keeping its outbox row (and lease): nothing is lost."""
    from core.models import JobRecord

    wait = wait or settings.BULK_JOB_WAIT_SECONDS
    JobRecord.objects.filter(pk=record_id, kind=DISPATCH_KIND).update(
        status=JobRecord.Status.QUEUED,
        updated_at=timezone.now(),
        lease_expires_at=timezone.now() + timedelta(seconds=wait + settings.DISPATCH_START_SECONDS),
    )
    _send(task, record_id, args, kwargs, wait)


def _priority_prepare(*, bulk: bool) -> None:
    """A bulk job gives way to interactive work (core.priority); never a reason for the job to fail."""
    try:
        if bulk:
            priority.bulk_job_prepare()
        else:
            priority.interactive_job_prepare()
    except Exception as exc:  # noqa: BLE001 - priority is an optimisation; the job runs either way
        logger.warning("could not set the job's priority: %s", exc)


class OutboxTask(Task):
    """The Celery app's task class: a job sent through the outbox holds a lease on its row while it runs."""

    def __call__(self, *args, **kwargs):
        task_id = getattr(self.request, "id", None) or ""
        if self.request.is_eager:
            return super().__call__(*args, **kwargs)
        _priority_prepare(bulk=self.name in BULK_JOBS)
        if not task_id.startswith(TASK_ID_PREFIX):
            return super().__call__(*args, **kwargs)  # sent by beat: periodic housekeeping, nobody waits for it
        if self.name not in BULK_JOBS:
            priority.interactive_work_seen()  # bulk jobs on this machine pause meanwhile (a turn's jobs, webhooks)
        from core.models import JobRecord

        record_id = int(task_id[len(TASK_ID_PREFIX) :])
        held = job_hold_seconds(self.name, args)  # e.g. its tenant is over a usage limit (core.job_hold)
        if held:
            _outbox_defer(self, record_id, list(args), kwargs, wait=held)
            return None
        if self.name in TENANT_BULK_JOBS and args:
            claimed = _outbox_claim_bulk(record_id, tenant_id=args[0], args=list(args))
            if claimed is False:
                logger.info("job %s %s waits: its tenant's bulk jobs are at their limit", self.name, task_id)
                _outbox_defer(self, record_id, list(args), kwargs)
                return None
        else:
            claimed = _outbox_claim(record_id)
        if not claimed:
            logger.info("job %s %s already completed; this copy does nothing", self.name, task_id)
            return None
        _renewer.add(record_id)
        try:
            result = super().__call__(*args, **kwargs)
        except Retry as exc:
            wait = exc.when if isinstance(exc.when, (int, float)) else 0
            _outbox_finish(record_id, status=JobRecord.Status.QUEUED, error=str(exc.exc or "")[:500], wait_seconds=wait)
            raise
        except Exception as exc:
            _outbox_finish(record_id, status=JobRecord.Status.FAILED, error=f"{type(exc).__name__}: {exc}")
            raise
        finally:
            _renewer.discard(record_id)
        _outbox_finish(record_id, status=JobRecord.Status.SUCCEEDED)
        return result
