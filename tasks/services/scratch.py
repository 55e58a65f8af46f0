"""Session scratch (seed 003's session memory): intermediate results within one chat session, keyed by the call
that produced them, reused instead of recomputed, and dropped with the session's TTL.

A key is "<call>:<sha256 of the canonical JSON of its arguments>", so the same call with the same arguments in
the same session is computed once; another session (or another user, or another tenant) never sees it.
Expired entries are ignored on read and deleted by the periodic expiry job (tasks.jobs.task_states_expire).
The TTL is the tenant's (or assistant's) task_ttl_days unless the caller gives one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from core.policy import MemoryPolicy
from memory.services.identifiers.pii import pii_redact_value
from tasks.models import SessionScratch


def scratch_key(*, call: str, args: Any = None) -> str:
    digest = hashlib.sha256(json.dumps(args, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()
    return f"{call[:130]}:{digest[:64]}"


def scratch_get(*, tenant, session, key: str, default: Any = None) -> Any:
    row = (
        SessionScratch.objects.for_tenant(tenant)
        .filter(session=session, key=key)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
        .first()
    )
    return default if row is None else row.value


def scratch_put(
    *, tenant, session, key: str, value: Any, policy: MemoryPolicy, ttl: timedelta | None = None
) -> SessionScratch:
    """Keep `value` under `key` for this session, for `ttl` (default: task_ttl_days of `policy`, the turn's)."""
    if session.tenant_id != tenant.pk:
        raise ValueError("The session belongs to another tenant.")
    expires_at = timezone.now() + (ttl if ttl is not None else timedelta(days=policy.task_ttl_days))
    value = pii_redact_value(value)[0]  # scratch is derived from the user's words too
    for _attempt in range(2):  # a concurrent first write of the same key: the second attempt updates it
        try:
            with transaction.atomic():
                row, _ = SessionScratch.objects.for_tenant(tenant).update_or_create(
                    tenant=tenant,
                    session=session,
                    key=key,
                    defaults={"end_user_id": session.end_user_id, "value": value, "expires_at": expires_at},
                )
                return row
        except IntegrityError:
            continue
    raise IntegrityError(f"Could not write scratch key {key!r}.")


def scratch_get_many(*, tenant, session, keys: list[str]) -> dict[str, Any]:
    """The live values of `keys` in this session, in one statement (the keys not there are left out)."""
    if not keys:
        return {}
    rows = (
        SessionScratch.objects.for_tenant(tenant)
        .filter(session=session, key__in=keys)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))
        .values_list("key", "value")
    )
    return dict(rows)


def scratch_put_many(*, tenant, session, values: dict[str, Any], ttl: timedelta) -> None:
    """Keep each key's value for this session for `ttl`, written or replaced in one statement (identifiers
    redacted as scratch_put does)."""
    if not values:
        return
    if session.tenant_id != tenant.pk:
        raise ValueError("The session belongs to another tenant.")
    expires_at = timezone.now() + ttl
    rows = [
        SessionScratch(
            tenant=tenant,
            session=session,
            end_user_id=session.end_user_id,
            key=key,
            value=pii_redact_value(value)[0],
            expires_at=expires_at,
        )
        for key, value in values.items()
    ]
    SessionScratch.objects.for_tenant(tenant).bulk_create(
        rows, update_conflicts=True, unique_fields=["session", "key"], update_fields=["value", "expires_at"]
    )


_MISSING = object()


def scratch_get_or_compute(
    *,
    tenant,
    session,
    call: str,
    args: Any,
    compute: Callable[[], Any],
    policy: MemoryPolicy,
    ttl: timedelta | None = None,
) -> Any:
    """The cached result of `call(args)` in this session, or `compute()` stored under that key (JSON values)."""
    key = scratch_key(call=call, args=args)
    cached = scratch_get(tenant=tenant, session=session, key=key, default=_MISSING)
    if cached is not _MISSING:
        return cached
    value = compute()
    scratch_put(tenant=tenant, session=session, key=key, value=value, ttl=ttl, policy=policy)
    return value


def scratch_expire(*, now=None) -> int:
    """Delete every expired scratch entry (all tenants; called by the periodic expiry job)."""
    now = now or timezone.now()
    deleted, _ = SessionScratch.objects.unscoped().filter(expires_at__lte=now).delete()
    return deleted


def scratch_forget(*, tenant, end_user, found_in: Callable[[str], bool]) -> int:
    """Delete the user's scratch entries whose value holds what the user asked to forget (`found_in` says so of
    the value's JSON text). Returns how many were deleted."""
    doomed = [
        row.pk
        for row in SessionScratch.objects.for_tenant(tenant).filter(end_user=end_user)
        if found_in(json.dumps(row.value, ensure_ascii=False, default=str))
    ]
    if doomed:
        SessionScratch.objects.for_tenant(tenant).filter(pk__in=doomed).delete()
    return len(doomed)
