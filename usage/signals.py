"""When this process's metering buffer is written (usage.services.usage_flush), and who a job's model calls are
for: a web process after each request has sent its response, a worker after each job, and both at exit."""

from __future__ import annotations

import atexit

from django.core.signals import request_finished
from django.db import connection

from core.metering import Attribution, metering_scope, usage_buffer_size
from usage.model_jobs import MODEL_JOBS

_job_scopes: dict[str, object] = {}


def _flush_after_request(**_kwargs) -> None:
    """After the response went out (for a stream: after its last byte), so the turn never waits for it."""
    if not usage_buffer_size():
        return
    from usage.services import usage_flush

    usage_flush()
    if not connection.in_atomic_block:  # Django closes its connection before this receiver runs: close ours too
        connection.close_if_unusable_or_obsolete()


def _job_started(task_id=None, task=None, args=None, **_kwargs) -> None:
    name = getattr(task, "name", "")
    if name not in MODEL_JOBS or not args or not isinstance(args[0], int):
        return
    kind = MODEL_JOBS[name]
    subject = (kind, args[1]) if kind and len(args) > 1 and isinstance(args[1], int) else None
    scope = metering_scope(Attribution(tenant_id=args[0], subject=subject, purpose=name.rsplit(".", 1)[-1]))
    scope.__enter__()
    _job_scopes[task_id or ""] = scope


def _job_finished(task_id=None, **_kwargs) -> None:
    scope = _job_scopes.pop(task_id or "", None)
    if scope is not None:
        scope.__exit__(None, None, None)  # type: ignore[attr-defined]  # a contextmanager object
    if usage_buffer_size():
        from usage.services import usage_flush

        usage_flush()


def _flush_at_exit() -> None:
    try:
        from usage.services import usage_flush

        usage_flush()
    except Exception:  # noqa: BLE001 - the database may be gone at exit; nothing else can be done
        pass


def usage_flush_connect() -> None:
    from celery.signals import task_postrun, task_prerun

    request_finished.connect(_flush_after_request, dispatch_uid="usage-flush-after-request")
    task_prerun.connect(_job_started, dispatch_uid="usage-job-started", weak=False)
    task_postrun.connect(_job_finished, dispatch_uid="usage-job-finished", weak=False)
    atexit.register(_flush_at_exit)
