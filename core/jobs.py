"""Celery jobs of the platform core. Thin: call one service, record in the ledger."""

from celery import shared_task

from core import heartbeat  # noqa: F401 - connects the worker heartbeat signals (every worker imports the jobs)
from core.ledger import job_run


@shared_task(bind=True, max_retries=0, acks_late=True)
def dispatch_redeliver(self):
    """Re-send the jobs whose outbox lease ran out without completion: refused by the broker, lost with a killed
    worker, or not started in time (core.dispatch). Run by beat every DISPATCH_REDELIVER_SECONDS; writes a ledger
    row only when there was something to re-send."""
    from core.dispatch import dispatch_due_exists
    from core.dispatch import dispatch_redeliver as redeliver

    if not dispatch_due_exists():
        return {"sent": 0}
    return job_run(self, kind="dispatch_redeliver", body=lambda job: redeliver())
