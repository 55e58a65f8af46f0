"""Celery jobs of the assistants app. Thin: take ids, call one service, record in the ledger."""
from celery import shared_task

from tasks.services.ledger import job_run


@shared_task(bind=True, max_retries=5, acks_late=True)
def session_compact(self, tenant_id: int, session_id: int):
    """Merge the messages that left the window into the session's rolling summary (issue 3)."""
    from assistants.services.compaction import session_compact as compact

    return job_run(self, kind="session_compact", tenant_id=tenant_id,
                   body=lambda job: compact(tenant_id=tenant_id, session_id=session_id))


@shared_task(bind=True, max_retries=5, acks_late=True)
def user_erase(self, tenant_id: int, end_user_id: int, requested_by: str, job_id: int):
    """Erase everything about one end user and leave a receipt (issue 7)."""
    from assistants.services.privacy import user_erase as erase

    return job_run(self, kind="user_erase", job_id=job_id,
                   body=lambda job: erase(tenant_id=tenant_id, end_user_id=end_user_id,
                                          requested_by=requested_by, job_id=job.pk))


@shared_task(bind=True, max_retries=3, acks_late=True)
def session_import(self, tenant_id: int, session_id: int, job_id: int):
    """Extraction and compaction of an imported conversation, with progress in the ledger (API import)."""
    from assistants.services.importing import session_import_process

    return job_run(self, kind="session_import", job_id=job_id,
                   body=lambda job: session_import_process(tenant_id=tenant_id, session_id=session_id,
                                                           job_id=job.pk))
