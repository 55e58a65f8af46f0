"""Celery jobs of the platform core. Thin: call one service, record in the ledger."""
from celery import shared_task

from tasks.services.ledger import job_run


@shared_task(bind=True, max_retries=0, acks_late=True)
def dispatch_redeliver(self):
    """Re-send jobs that could not reach the broker when they were scheduled (core.dispatch). Run by beat every
    DISPATCH_REDELIVER_SECONDS; writes a ledger row only when there was something to re-send."""
    from core.dispatch import DISPATCH_KIND, dispatch_redeliver as redeliver
    from tasks.models import JobRecord

    if not JobRecord.objects.filter(kind=DISPATCH_KIND, status=JobRecord.Status.QUEUED).exists():
        return {"sent": 0}
    return job_run(self, kind="dispatch_redeliver", body=lambda job: redeliver())
