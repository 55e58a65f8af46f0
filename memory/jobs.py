"""Celery jobs of long-term memory. Thin: take ids, call one service, record in the ledger."""

from celery import shared_task
from celery.signals import worker_init

from core.ledger import job_run


@worker_init.connect
def _load_the_encoder(**_):
    """Load the offline sentence encoder and the English word-form lexicon once when a worker starts (prefork
    children inherit them), not inside the first job a user waits for."""
    from django.conf import settings

    from memory.services.vectors.embeddings import SENTENCE_MODEL, embed_texts, search_terms

    if settings.LLM_EMBEDDING_MODEL == SENTENCE_MODEL:
        embed_texts(texts=["warm up"], model=SENTENCE_MODEL)
    search_terms("warming up")  # lemminflect's lexicon (English terms and notes' verbs): 0.6 s at first use


def _backoff(retries: int) -> float:
    return min(2**retries, 60)


@shared_task(bind=True, max_retries=5, acks_late=True)
def memory_extract(self, tenant_id: int, message_id: int):
    """Extract candidate notes from one user message (and the reply before it). Idempotent per message."""
    from memory.services.writing.extraction import memory_extract_for_message

    return job_run(
        self,
        kind="memory_extract",
        tenant_id=tenant_id,
        idempotency_key=f"extract:{message_id}",
        retry_countdown=_backoff,
        body=lambda job: memory_extract_for_message(tenant_id=tenant_id, message_id=message_id),
    )


def _per_tenant(service) -> dict:
    from tenancy.models import Tenant
    from tenancy.scoping import tenant_scope

    totals: dict = {"tenants": 0}
    for tenant in Tenant.objects.order_by("id"):
        with tenant_scope(tenant):
            for name, value in service(tenant=tenant).items():
                if isinstance(value, int):
                    totals[name] = totals.get(name, 0) + value
        totals["tenants"] += 1
    return totals


@shared_task(bind=True, max_retries=3, acks_late=True)
def memory_expire(self):
    """Beat: expire notes past expires_at, in every tenant. The ledger row says how many."""
    from memory.services.forgetting.forgetting import memory_expire_notes

    return job_run(
        self, kind="memory_expire", retry_countdown=_backoff, body=lambda job: _per_tenant(memory_expire_notes)
    )


@shared_task(bind=True, max_retries=3, acks_late=True)
def memory_decay(self):
    """Beat: lower the importance of long-unrecalled notes and archive them below the floor."""
    from memory.services.forgetting.forgetting import memory_decay_notes

    return job_run(
        self, kind="memory_decay", retry_countdown=_backoff, body=lambda job: _per_tenant(memory_decay_notes)
    )


@shared_task(bind=True, max_retries=3, acks_late=True)
def memory_reembed(self, tenant_id: int):
    """Re-embed a tenant's notes (and embed its past messages) after its embedding model changed; progress in the
    ledger after each batch."""
    from core.ledger import job_progress_update
    from memory.services.forgetting.forgetting import memory_reembed_notes
    from tenancy.models import Tenant

    return job_run(
        self,
        kind="memory_reembed",
        tenant_id=tenant_id,
        retry_countdown=_backoff,
        body=lambda job: memory_reembed_notes(
            tenant=Tenant.objects.get(pk=tenant_id), progress=lambda p: job_progress_update(job_id=job.pk, progress=p)
        ),
    )
