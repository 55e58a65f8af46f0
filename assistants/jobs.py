"""Celery jobs of the assistants app. Thin: take ids, call one service, record in the ledger."""

from celery import shared_task

from core.ledger import job_run


@shared_task(bind=True, max_retries=5, acks_late=True)
def session_compact(self, tenant_id: int, session_id: int):
    """Merge the messages that left the window into the session's rolling summary, one bounded pass;
    the pass queues the next one while more have left the window."""
    from assistants.services.compaction import session_compact as compact

    # Keyed by the Celery task id, which a retry keeps: one ledger row per enqueued job, attempts counted on it.
    key = f"session_compact:{self.request.id}" if self.request.id else ""
    return job_run(
        self,
        kind="session_compact",
        tenant_id=tenant_id,
        idempotency_key=key,
        body=lambda job: compact(tenant_id=tenant_id, session_id=session_id, continue_in_job=True),
    )


@shared_task(bind=True, max_retries=5, acks_late=True)
def user_erase(self, tenant_id: int, end_user_id: int, requested_by: str, job_id: int):
    """Erase everything about one end user and leave a receipt."""
    from assistants.services.privacy import user_erase as erase

    return job_run(
        self,
        kind="user_erase",
        job_id=job_id,
        body=lambda job: erase(tenant_id=tenant_id, end_user_id=end_user_id, requested_by=requested_by, job_id=job.pk),
    )


@shared_task(bind=True, max_retries=3, acks_late=True)
def session_import(self, tenant_id: int, session_id: int, job_id: int):
    """Extraction and compaction of an imported conversation, with progress in the ledger (API import)."""
    from assistants.services.importing import session_import_process

    return job_run(
        self,
        kind="session_import",
        job_id=job_id,
        body=lambda job: session_import_process(tenant_id=tenant_id, session_id=session_id, job_id=job.pk),
    )


@shared_task(bind=True, max_retries=3, acks_late=True)
def sessions_temporary_purge(self):
    """Periodic (beat): delete every tenant's temporary chats whose time is up (Tenant.temporary_chat_ttl_hours)."""
    from assistants.services.sessions import sessions_temporary_purge as purge
    from tenancy.models import Tenant

    key = f"sessions_temporary_purge:{self.request.id}" if self.request.id else ""

    def body(job):
        return {"deleted": sum(purge(tenant=tenant) for tenant in Tenant.objects.order_by("pk"))}

    return job_run(self, kind="sessions_temporary_purge", idempotency_key=key, body=body)
