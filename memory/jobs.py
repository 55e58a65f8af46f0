"""Celery jobs of long-term memory. Thin: take ids, call one service, record in the ledger."""
from celery import shared_task

from tasks.services.ledger import job_run


@shared_task(bind=True, max_retries=5, acks_late=True)
def memory_extract(self, tenant_id: int, message_id: int):
    """Extract candidate notes from one user message (and the reply before it). Idempotent per message."""
    from memory.services.extraction import memory_extract_for_message

    return job_run(self, kind="memory_extract", tenant_id=tenant_id, idempotency_key=f"extract:{message_id}",
                   body=lambda job: memory_extract_for_message(tenant_id=tenant_id, message_id=message_id))
