"""Celery jobs of the tasks app. Thin: take ids, call one service, record in the ledger."""

from celery import shared_task

from core.ledger import job_run


@shared_task(bind=True, max_retries=3, acks_late=True)
def platform_ping(self, job_id: int):
    """A no-op job that proves a message crossed the broker to a worker (used by tests and `make run`)."""
    import os

    return job_run(self, kind="ping", job_id=job_id, body=lambda job: {"worker_pid": os.getpid()})


@shared_task(bind=True, max_retries=3, acks_late=True)
def task_states_expire(self):
    """Periodic (django-celery-beat, every 15 minutes by default): expire task states past their TTL and drop
    expired session scratch, across tenants."""
    from tasks.services.working_memory import task_states_expire as expire

    return job_run(self, kind="task_states_expire", body=lambda job: expire())


@shared_task(bind=True, max_retries=5, acks_late=True)
def experience_learn(self, tenant_id: int, message_id: int, idempotency_key: str = ""):
    """Generalise, scrub and store what a user liked. Enqueued by feedback_record on a thumbs-up."""
    from tasks.services.experience import experience_learn as learn

    return job_run(
        self,
        kind="experience_learn",
        tenant_id=tenant_id,
        idempotency_key=idempotency_key or f"experience:{message_id}",
        body=lambda job: learn(tenant_id=tenant_id, message_id=message_id),
    )
