"""Celery jobs of the tasks app. Thin: take ids, call one service, record in the ledger."""
from celery import shared_task

from tasks import heartbeat  # noqa: F401  (connects the worker heartbeat signals)
from tasks.services.ledger import job_run


@shared_task(bind=True, max_retries=3, acks_late=True)
def platform_ping(self, job_id: int):
    """A no-op job that proves a message crossed the broker to a worker (used by tests and `make run`)."""
    import os

    return job_run(self, kind="ping", job_id=job_id, body=lambda job: {"worker_pid": os.getpid()})
