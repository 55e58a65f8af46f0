"""Celery jobs of webhooks. Thin: take a delivery id, call one service.

A delivery keeps its own log (attempts, status codes, errors) on its row, shown in the admin, so these jobs do not
also write a JobRecord per attempt; a lost job is re-sent by the sweep, and a duplicate finds the delivery
leased or done (services._claim), so acks_late is safe."""

import logging

from celery import shared_task

logger = logging.getLogger(__name__)


@shared_task(acks_late=True, max_retries=0)
def webhook_deliver(delivery_id: int):
    from core.dispatch import enqueue_later
    from webhooks.services import webhook_delivery_attempt

    delay = webhook_delivery_attempt(delivery_id=delivery_id)
    if delay is not None and not enqueue_later(webhook_deliver, delivery_id, countdown=delay):
        # the next attempt stays in the outbox (core.dispatch), and the sweep sends it too once it is overdue
        logger.warning("webhook delivery %s: broker down, retry kept for redelivery", delivery_id)
    return {"delivery": delivery_id, "retry_in": delay}


@shared_task(acks_late=True)
def webhook_deliveries_sweep():
    from webhooks.services import webhook_deliveries_sweep as sweep

    return {"sent": sweep()}
