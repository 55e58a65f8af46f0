"""Idempotency-Key for POST /api/v1/chat/: a retried request gets the first result instead of a second turn.

The key is reserved (a row with no response) before the turn starts, so two concurrent retries cannot both run
a turn: the second gets 409 "still in progress". A finished row replays its stored status and body. The same key
with a different body is a client bug and gets 409. Rows older than API_IDEMPOTENCY_TTL_HOURS are reused."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from api.models import IdempotencyRecord
from core.exceptions import Conflict, InvalidInput


def request_fingerprint(*, path: str, data) -> str:
    return hashlib.sha256(
        json.dumps([path, data], sort_keys=True, ensure_ascii=False, default=str).encode()
    ).hexdigest()


def idempotency_begin(*, tenant, api_key, key: str, fingerprint: str) -> tuple[IdempotencyRecord, bool]:
    """Reserve `key`; returns (record, replay). replay=True: the record holds the response to send again."""
    if not key or len(key) > 255 or not key.isprintable():
        raise InvalidInput(
            "The Idempotency-Key header must be 1 to 255 printable characters.", code="invalid_idempotency_key"
        )
    records = IdempotencyRecord.objects.for_tenant(tenant)
    cutoff = timezone.now() - timedelta(hours=settings.API_IDEMPOTENCY_TTL_HOURS)
    records.filter(key=key, created_at__lt=cutoff).delete()
    try:
        with transaction.atomic():
            return records.create(tenant=tenant, api_key=api_key, key=key, request_hash=fingerprint), False
    except IntegrityError:
        existing = records.get(key=key)
    if existing.request_hash != fingerprint:
        raise Conflict(
            "This Idempotency-Key was already used with a different request; use a new key.",
            code="idempotency_key_reused",
        )
    if existing.response_status is None:
        raise Conflict(
            "A request with this Idempotency-Key is still being answered; retry in a few seconds.",
            code="idempotency_in_progress",
        )
    return existing, True


def idempotency_finish(*, record: IdempotencyRecord, status: int, body: dict, session_id: int | None) -> None:
    IdempotencyRecord.objects.for_tenant(record.tenant_id).filter(pk=record.pk).update(
        response_status=status, response_body=body, session_id=session_id, updated_at=timezone.now()
    )


def idempotency_abandon(*, record: IdempotencyRecord) -> None:
    """The request failed before a turn was stored: let a retry with the same key run it."""
    IdempotencyRecord.objects.for_tenant(record.tenant_id).filter(pk=record.pk, response_status=None).delete()
