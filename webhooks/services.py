"""Webhooks: registering endpoints, emitting events, delivering them signed, retrying, disabling, re-enabling.

- `webhook_event_emit` is what the memory, task and privacy services call when something happens. It writes
  one delivery row per subscribed endpoint in the caller's transaction and sends the delivery job after commit:
  an event of a rolled-back write is never sent, and a committed one is never lost (the row is the outbox; the
  beat sweep re-sends any whose job was lost).
- Payloads name ids and kinds only. The stored row never holds content; an endpoint with `include_content` gets
  the note's current content and the user's external_id added at delivery time (a note forgotten or a user
  erased meanwhile is not resurrected).
- Each delivery is a POST with `X-Signature: sha256=<hex>`, the HMAC-SHA256 of `<X-Timestamp>.<body>` under the
  endpoint's secret, retried with exponential backoff. A delivery that fails every retry counts against the
  endpoint; WEBHOOK_DISABLE_AFTER of them in a row disable it, and its later events are held until staff
  re-enable it (then they are sent).
- URLs: http(s) only; every address the host resolves to must be allowed (webhooks.targets: never link-local,
  metadata or multicast; loopback and private only with WEBHOOK_ALLOW_PRIVATE_ADDRESSES, the local and test
  settings), checked when registered and again before each delivery, and the delivery connects to the address
  it checked (redirects are not followed).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import time
from datetime import timedelta

import httpx
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core.changes import changes_checked
from core.exceptions import InvalidInput, NotFound
from webhooks.content import webhook_content
from webhooks.models import EVENTS, WebhookDelivery, WebhookEndpoint

# `... as`: callers (the API, the admin, tests) import these from services; they live in targets.
from webhooks.targets import webhook_request_target as webhook_request_target
from webhooks.targets import webhook_url_check as webhook_url_check
from webhooks.targets import webhook_url_resolve

logger = logging.getLogger(__name__)
USER_AGENT = "memory-platform-webhooks/1"
MAX_LOG = 20


# --- Endpoints (where they may point: webhooks.targets) -----------------------------------------------------
def webhook_events_check(events) -> list[str]:
    if not isinstance(events, list) or not events:
        raise InvalidInput(f"Name at least one event: {', '.join(EVENTS)}.", code="invalid")
    unknown = [e for e in events if e not in EVENTS]
    if unknown:
        raise InvalidInput(
            f"Unknown event(s) {', '.join(map(str, unknown))}: use {', '.join(EVENTS)}.", details={"events": unknown}
        )
    return sorted(set(events), key=EVENTS.index)


@transaction.atomic
def webhook_endpoint_create(
    *, tenant, url: str, events: list[str], include_content: bool = False, description: str = ""
) -> WebhookEndpoint:
    """Register an endpoint. Its `secret` is generated here; the API shows it once, at creation."""
    url = webhook_url_check(url)
    return WebhookEndpoint.objects.for_tenant(tenant).create(
        tenant=tenant,
        url=url,
        events=webhook_events_check(events),
        include_content=bool(include_content),
        description=description[:200],
        secret="whsec_" + secrets.token_urlsafe(32),
    )


@transaction.atomic
def webhook_endpoint_update(*, tenant, endpoint: WebhookEndpoint, **changes) -> WebhookEndpoint:
    if endpoint.tenant_id != tenant.pk:
        raise NotFound("That webhook does not exist.")
    changes = changes_checked(changes, {"url": webhook_url_check, "events": webhook_events_check})
    for name, value in changes.items():
        setattr(endpoint, name, value)
    endpoint.save()
    return endpoint


@transaction.atomic
def webhook_endpoint_enable(*, tenant, endpoint: WebhookEndpoint) -> int:
    """Staff re-enable an endpoint that was disabled after failures: the held events are sent now, oldest first.
    Returns how many were queued."""
    if endpoint.tenant_id != tenant.pk:
        raise NotFound("That webhook does not exist.")
    WebhookEndpoint.objects.for_tenant(tenant).filter(pk=endpoint.pk).update(
        disabled_at=None, consecutive_failures=0, is_active=True, updated_at=timezone.now()
    )
    held = list(
        WebhookDelivery.objects.for_tenant(tenant)
        .filter(endpoint=endpoint, status=WebhookDelivery.Status.HELD)
        .order_by("id")
        .values_list("pk", flat=True)
    )
    WebhookDelivery.objects.for_tenant(tenant).filter(pk__in=held).update(
        status=WebhookDelivery.Status.PENDING, next_attempt_at=timezone.now(), updated_at=timezone.now()
    )
    for pk in held:
        _enqueue(pk)
    return len(held)


def webhook_delivery_resend(*, tenant, delivery: WebhookDelivery) -> None:
    """Send a failed delivery again (admin action), with a fresh set of retries."""
    if delivery.tenant_id != tenant.pk:
        raise NotFound("That delivery does not exist.")
    WebhookDelivery.objects.for_tenant(tenant).filter(pk=delivery.pk).update(
        status=WebhookDelivery.Status.PENDING, attempts=0, next_attempt_at=timezone.now(), updated_at=timezone.now()
    )
    transaction.on_commit(lambda: _enqueue(delivery.pk))


# --- events --------------------------------------------------------------------------------------------------------
def _enqueue(delivery_id: int) -> None:
    from core.dispatch import enqueue_on_commit

    enqueue_on_commit("webhooks.jobs.webhook_deliver", delivery_id)


def webhook_event_emit(*, tenant, event: str, data: dict) -> int:
    """Record `event` for every active endpoint of the tenant subscribed to it; the deliveries are sent after the
    caller's transaction commits. `data` names ids and kinds only (it is stored). Returns the deliveries made.
    Never raises: a webhook problem must not fail the write that caused the event."""
    if event not in EVENTS:
        raise ValueError(f"unknown webhook event {event}")
    tenant_id = getattr(tenant, "pk", tenant)
    try:
        with transaction.atomic():  # a savepoint: a failure here leaves the caller's transaction usable
            endpoints = list(
                WebhookEndpoint.objects.for_tenant(tenant_id).filter(is_active=True, events__contains=[event])
            )
            if not endpoints:
                return 0
            now = timezone.now()
            rows = WebhookDelivery.objects.for_tenant(tenant_id).bulk_create(
                [
                    WebhookDelivery(
                        tenant_id=tenant_id,
                        endpoint=endpoint,
                        event=event,
                        payload=data,
                        status=WebhookDelivery.Status.HELD if endpoint.disabled_at else WebhookDelivery.Status.PENDING,
                        next_attempt_at=None if endpoint.disabled_at else now,
                    )
                    for endpoint in endpoints
                ]
            )
        for row in rows:
            if row.status == WebhookDelivery.Status.PENDING:
                _enqueue(row.pk)
        return len(rows)
    except Exception:  # the caller's write matters more than its notification
        logger.exception("webhook event %s could not be recorded", event)
        return 0


# --- delivery ------------------------------------------------------------------------------------------------------
def webhook_signature(*, secret: str, timestamp: str, body: bytes) -> str:
    """`sha256=<hex>`: HMAC-SHA256 of `<timestamp>.<body>` under the endpoint's secret (X-Signature)."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def webhook_signature_verify(
    *, secret: str, timestamp: str, body: bytes, signature: str, tolerance_seconds: int = 300
) -> bool:
    """What a receiver does (and what the tests' receiver does): the signature matches and is recent."""
    try:
        fresh = abs(time.time() - int(timestamp)) <= tolerance_seconds
    except ValueError:
        return False
    expected = webhook_signature(secret=secret, timestamp=timestamp, body=body)
    return fresh and hmac.compare_digest(expected, signature or "")


def _body(delivery: WebhookDelivery, endpoint: WebhookEndpoint) -> bytes:
    data = {k: v for k, v in delivery.payload.items() if k != "user_id"}
    if endpoint.include_content:
        data.update(webhook_content(tenant_id=delivery.tenant_id, payload=delivery.payload))
    return json.dumps(
        {
            "id": str(delivery.event_id),
            "type": delivery.event,
            "created_at": delivery.created_at.isoformat().replace("+00:00", "Z"),
            "data": data,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()


def _retry_delay(attempts: int) -> float:
    return min(settings.WEBHOOK_BACKOFF_SECONDS * (2 ** (attempts - 1)), settings.WEBHOOK_BACKOFF_MAX_SECONDS)


def _claim(delivery_id: int) -> tuple[WebhookDelivery, WebhookEndpoint] | None:
    """Take the delivery for one attempt (a short lock, released before the network call): a duplicate job or a
    sweep that arrives during the attempt finds it leased and leaves it. Only the delivery's row is locked
    (`of=("self",)`): locking the joined endpoint too made a second delivery to the same endpoint, claimed at the
    same moment by another worker, skip its row and be left pending with no job."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.unscoped()
            .select_for_update(skip_locked=True, of=("self",))
            .select_related("endpoint")
            .filter(pk=delivery_id, status=WebhookDelivery.Status.PENDING)
            .first()
        )
        if delivery is None:
            return None
        now = timezone.now()
        if delivery.next_attempt_at and delivery.next_attempt_at > now + timedelta(seconds=0.5):
            return None  # not due yet (or leased by a running attempt)
        endpoint = delivery.endpoint
        if not endpoint.is_active or endpoint.disabled_at:
            delivery.status = WebhookDelivery.Status.HELD if endpoint.disabled_at else WebhookDelivery.Status.FAILED
            delivery.last_error = "endpoint disabled" if endpoint.disabled_at else "endpoint switched off"
            delivery.save(update_fields=["status", "last_error", "updated_at"])
            return None
        delivery.attempts += 1
        delivery.next_attempt_at = now + timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS + 30)  # the lease
        delivery.save(update_fields=["attempts", "next_attempt_at", "updated_at"])
        return delivery, endpoint


def webhook_delivery_attempt(*, delivery_id: int) -> float | None:
    """One attempt at one delivery. Returns the seconds until the next attempt, or None when there is none
    (delivered, failed for good, held, or not this job's to do)."""
    claimed = _claim(delivery_id)
    if claimed is None:
        return None
    delivery, endpoint = claimed
    started = time.monotonic()
    status_code, error = None, ""
    try:
        # Again at delivery time (DNS may point elsewhere now), and the request goes to the address checked.
        target, extra_headers, extensions = webhook_request_target(*webhook_url_resolve(endpoint.url))
        body = _body(delivery, endpoint)
        timestamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "X-Webhook-Id": str(delivery.event_id),
            "X-Webhook-Event": delivery.event,
            "X-Webhook-Attempt": str(delivery.attempts),
            "X-Timestamp": timestamp,
            "X-Signature": webhook_signature(secret=endpoint.secret, timestamp=timestamp, body=body),
            **extra_headers,
        }
        with httpx.Client(timeout=settings.WEBHOOK_TIMEOUT_SECONDS, follow_redirects=False) as http:
            response = http.post(target, content=body, headers=headers, extensions=extensions)
        status_code = response.status_code
        if not 200 <= status_code < 300:
            error = f"HTTP {status_code}"
    except InvalidInput as exc:
        error = exc.message
    except httpx.HTTPError as exc:
        error = f"{type(exc).__name__}: {exc}"[:300] or type(exc).__name__
    return _record(delivery, endpoint, status_code, error, int((time.monotonic() - started) * 1000))


@transaction.atomic
def _record(delivery, endpoint, status_code, error: str, ms: int) -> float | None:
    now = timezone.now()
    entry = {"at": now.isoformat(), "attempt": delivery.attempts, "status": status_code, "error": error, "ms": ms}
    delivery.log = [*(delivery.log or []), entry][-MAX_LOG:]
    delivery.last_status_code, delivery.last_error = status_code, error[:500]
    fields = ["log", "last_status_code", "last_error", "status", "next_attempt_at", "delivered_at", "updated_at"]
    endpoints = WebhookEndpoint.objects.for_tenant(delivery.tenant_id).filter(pk=endpoint.pk)
    if not error:
        delivery.status, delivery.delivered_at, delivery.next_attempt_at = WebhookDelivery.Status.SUCCEEDED, now, None
        delivery.save(update_fields=fields)
        if endpoint.consecutive_failures:
            endpoints.update(consecutive_failures=0)
        return None
    if delivery.attempts < settings.WEBHOOK_MAX_ATTEMPTS:
        delay = _retry_delay(delivery.attempts)
        delivery.next_attempt_at = now + timedelta(seconds=delay)
        delivery.save(update_fields=fields)
        return delay
    delivery.status, delivery.next_attempt_at = WebhookDelivery.Status.FAILED, None
    delivery.save(update_fields=fields)
    failures = endpoint.consecutive_failures + 1
    changes = {"consecutive_failures": failures}
    if failures >= settings.WEBHOOK_DISABLE_AFTER and endpoint.disabled_at is None:
        changes["disabled_at"] = now
        logger.warning("webhook endpoint %s disabled after %s failed deliveries", endpoint.pk, failures)
    endpoints.update(**changes)
    return None


def webhook_deliveries_sweep(*, limit: int = 500) -> int:
    """Beat job: re-send pending deliveries whose job was lost (broker restart, worker killed), i.e. overdue by
    more than a minute. Returns how many were sent."""
    overdue = timezone.now() - timedelta(seconds=60)
    ids = list(
        WebhookDelivery.objects.unscoped()
        .filter(status=WebhookDelivery.Status.PENDING, next_attempt_at__lt=overdue)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    for pk in ids:
        _enqueue(pk)
    return len(ids)
