"""Writing usage: the flush of this process's metering buffer (core.metering) into hourly aggregates,
the soft-limit notices it raises, an erased user's de-identification, and the hold on an over-limit tenant's jobs.

None of it runs inside a chat turn: the flush runs after the response has gone (request_finished), after a job
(task_postrun), or when called (tests, commands).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from datetime import UTC, datetime

from django.db import connection, transaction
from django.utils import timezone

from core.metering import UsageEvent, usage_buffer_return, usage_buffer_take
from tenancy.models import ChatSession, EndUser, Message, Tenant
from usage.model_jobs import MODEL_JOBS
from usage.models import UsageHour, UsageNotice
from usage.quotas import (
    SOFT_SHARE,
    period_bounds,
    quota_limits,
    tenant_over_hard_limit,
    usage_totals_add,
    usage_used,
)

logger = logging.getLogger(__name__)

COUNTERS = (
    "calls",
    "errors",
    "prompt_tokens",
    "completion_tokens",
    "counted_tokens",
    "duration_ms",
    "turns",
    "tool_calls",
)
KEY = ("tenant_id", "hour", "assistant_id", "end_user_id", "model", "kind", "purpose")
UPSERT_ROWS = 1000  # hourly rows per statement (17 parameters each)


def _subjects_resolved(events: list[UsageEvent]) -> dict[tuple[str, int], tuple[int, int]]:
    """("message"|"session", id) -> (assistant id, end user id), for events whose job named only its object."""
    wanted: dict[str, set[int]] = defaultdict(set)
    for event in events:
        subject = event.attribution.subject
        if subject is not None and event.attribution.end_user_id is None:
            wanted[subject[0]].add(subject[1])
    found: dict[tuple[str, int], tuple[int, int]] = {}
    if wanted.get("message"):
        rows = Message.objects.unscoped().filter(pk__in=wanted["message"])
        for pk, assistant_id, end_user_id in rows.values_list("pk", "session__assistant_id", "end_user_id"):
            found[("message", pk)] = (assistant_id or 0, end_user_id or 0)
    if wanted.get("session"):
        rows = ChatSession.objects.unscoped().filter(pk__in=wanted["session"])
        for pk, assistant_id, end_user_id in rows.values_list("pk", "assistant_id", "end_user_id"):
            found[("session", pk)] = (assistant_id or 0, end_user_id or 0)
    return found


def _rows(events: list[UsageEvent]) -> dict[tuple, dict[str, int]]:
    """The events summed per hourly key. An end user who is gone or being erased is written as 0 (no user), so
    a flush that races an erasure leaves nothing that points at the person; a deleted tenant's events are dropped
    (its usage went with it)."""
    subjects = _subjects_resolved(events)
    rows: dict[tuple, dict[str, int]] = defaultdict(lambda: dict.fromkeys(COUNTERS, 0))
    keyed = []
    for event in events:
        who = event.attribution
        assistant_id, end_user_id = who.assistant_id or 0, who.end_user_id or 0
        if who.subject is not None and who.end_user_id is None:
            assistant_id, end_user_id = subjects.get(who.subject, (assistant_id, 0))
        keyed.append((event, assistant_id, end_user_id))
    tenants = set(Tenant.objects.filter(pk__in={e.attribution.tenant_id for e in events}).values_list("pk", flat=True))
    keyed = [item for item in keyed if item[0].attribution.tenant_id in tenants]  # a tenant deleted meanwhile
    users = {end_user_id for _e, _a, end_user_id in keyed if end_user_id}
    alive = set(
        EndUser.objects.unscoped().filter(pk__in=users, erasure_requested_at__isnull=True).values_list("pk", flat=True)
    )
    for event, assistant_id, end_user_id in keyed:
        hour = event.at.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
        key = (
            event.attribution.tenant_id,
            hour,
            assistant_id,
            end_user_id if end_user_id in alive else 0,
            event.model[:200],
            event.kind,
            event.attribution.purpose[:60],
        )
        row = rows[key]
        row["calls"] += 0 if event.kind == "tool" else 1
        row["errors"] += 0 if event.ok else 1
        row["prompt_tokens"] += event.prompt_tokens
        row["completion_tokens"] += event.completion_tokens
        row["counted_tokens"] += (event.prompt_tokens + event.completion_tokens) if event.counted else 0
        row["duration_ms"] += round(event.duration_ms)
        row["turns"] += event.turns
        row["tool_calls"] += event.tool_calls
    return rows


def _upsert(rows: dict[tuple, dict[str, int]]) -> None:
    """One INSERT ... ON CONFLICT that adds the counters to each hour's row (keys sorted: two flushes at once
    take their row locks in the same order)."""
    table = UsageHour._meta.db_table
    now = timezone.now()
    columns = ["created_at", "updated_at", *KEY, *COUNTERS]
    updates = ", ".join(f"{name} = {table}.{name} + EXCLUDED.{name}" for name in COUNTERS)
    keys = sorted(rows, key=lambda k: (k[0], k[1], k[2], k[3], k[4], k[5], k[6]))
    for start in range(0, len(keys), UPSERT_ROWS):  # PostgreSQL takes at most 65,535 parameters a statement
        values, params = [], []
        for key in keys[start : start + UPSERT_ROWS]:
            values.append("(" + ", ".join(["%s"] * len(columns)) + ")")
            params += [now, now, *key, *(rows[key][name] for name in COUNTERS)]
        sql = (
            f"INSERT INTO {table} ({', '.join(columns)}) VALUES {', '.join(values)} "
            f"ON CONFLICT ({', '.join(KEY)}) DO UPDATE SET {updates}, updated_at = EXCLUDED.updated_at"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, params)


def usage_flush() -> int:
    """Write this process's metered events; returns how many. A database failure puts them back for the next
    flush (nothing is lost while the process lives) and is logged without any id of a person."""
    events = usage_buffer_take()
    if not events:
        return 0
    try:
        with transaction.atomic():
            rows = _rows(events)
            _upsert(rows)
    except Exception as exc:  # noqa: BLE001 - metering must never fail the request or job it follows
        dropped = usage_buffer_return(events)
        logger.warning("usage: %d events not written yet, %d dropped (%s)", len(events), dropped, type(exc).__name__)
        return 0
    usage_totals_add(rows.items())  # committed: the quota checks' cached totals follow
    try:
        usage_thresholds_check(subjects={(k[0], k[2], k[3]) for k in rows})
    except Exception:  # a notice is worth less than the usage it is about
        logger.exception("usage: soft-limit check failed")
    return len(events)


def usage_thresholds_check(*, subjects: set[tuple[int, int, int]], now: datetime | None = None) -> int:
    """For each (tenant, assistant, end user) just written: a notice (and the `usage.threshold` webhook) for each
    limit at 80% or more, once per limit and period. Returns the notices made."""
    from webhooks.services import webhook_event_emit

    now = now or datetime.now(UTC)
    tenants = {
        t: q for t, q in Tenant.objects.filter(pk__in={s[0] for s in subjects}).values_list("pk", "usage_quotas")
    }
    made = 0
    for tenant_id, assistant_id, end_user_id in sorted(subjects):
        limits = quota_limits(tenants.get(tenant_id))
        if not limits:
            continue
        monthly = any(limit.period == "month" for limit in limits)
        used = usage_used(
            tenant_id=tenant_id, assistant_id=assistant_id, end_user_id=end_user_id, now=now, monthly=monthly
        )
        for limit in limits:
            subject_id = {"tenant": 0, "assistant": assistant_id, "user": end_user_id}[limit.scope]
            value = used[(limit.scope, limit.metric, limit.period)]
            if (limit.scope != "tenant" and not subject_id) or value < SOFT_SHARE * limit.quota:
                continue
            start, resets = period_bounds(limit.period, now)
            _notice, created = UsageNotice.objects.for_tenant(tenant_id).get_or_create(
                tenant_id=tenant_id,
                limit=limit.name,
                subject_id=subject_id,
                period_start=start,
                defaults={"used": value, "quota": limit.quota},
            )
            if created:
                made += 1
                data = {"limit": limit.name, "quota": limit.quota, "used": value, "resets_at": resets.isoformat()}
                data |= {"assistant": subject_id} if limit.scope == "assistant" else {}
                data |= {"user_id": subject_id} if limit.scope == "user" else {}
                webhook_event_emit(tenant=tenant_id, event="usage.threshold", data=data)
    return made


@transaction.atomic
def usage_user_deidentify(*, tenant, end_user_id: int) -> int:
    """Merge an erased user's hourly rows into the tenant's "no user" rows (end_user_id 0), keeping every count,
    and delete the user's own: afterwards nothing in usage points at the person. Returns the rows merged."""
    table = UsageHour._meta.db_table
    tenant_id = getattr(tenant, "pk", tenant)
    others = [name for name in KEY if name not in ("tenant_id", "end_user_id")]
    sums = ", ".join(f"SUM({name})" for name in COUNTERS)
    updates = ", ".join(f"{name} = {table}.{name} + EXCLUDED.{name}" for name in COUNTERS)
    sql = (
        f"INSERT INTO {table} (created_at, updated_at, tenant_id, end_user_id, {', '.join(others)}, "
        f"{', '.join(COUNTERS)}) SELECT now(), now(), tenant_id, 0, {', '.join(others)}, {sums} FROM {table} "
        f"WHERE tenant_id = %s AND end_user_id = %s GROUP BY tenant_id, {', '.join(others)} "
        f"ON CONFLICT ({', '.join(KEY)}) DO UPDATE SET {updates}, updated_at = EXCLUDED.updated_at"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [tenant_id, end_user_id])
    deleted, _ = UsageHour.objects.for_tenant(tenant_id).filter(end_user_id=end_user_id).delete()
    UsageNotice.objects.for_tenant(tenant_id).filter(limit__startswith="user.", subject_id=end_user_id).delete()
    return deleted


def usage_jobs_held(tenant_id: int) -> bool:
    """JOB_USAGE_HOLD (core.dispatch): True while the tenant is over a tenant-wide hard limit, so its model jobs
    wait and are sent again later instead of spending past the limit or failing."""
    quotas = Tenant.objects.filter(pk=tenant_id).values_list("usage_quotas", flat=True).first()
    return bool(quotas) and tenant_over_hard_limit(tenant_id=tenant_id, quotas=quotas or {})


def usage_job_held(name: str, args: list) -> float | None:
    """JOB_HOLD_CHECK (core.job_hold): the wait for a model job (usage.model_jobs) of a tenant over a
    tenant-wide hard limit, so it runs after the limit resets (or is raised) instead of failing; None otherwise.
    Other jobs (erasure, deliveries, sweeps) never wait for usage."""
    from django.conf import settings

    if name not in MODEL_JOBS or not args or not isinstance(args[0], int):
        return None
    return float(settings.USAGE_JOB_WAIT_SECONDS) if usage_jobs_held(args[0]) else None


def usage_quotas_set(*, tenant, quotas) -> Tenant:
    """Replace the tenant's limits (checked: usage.quotas.usage_quotas_clean); returns the tenant as saved."""
    from usage.quotas import usage_quotas_clean

    tenant.usage_quotas = usage_quotas_clean(quotas)
    Tenant.objects.filter(pk=tenant.pk).update(usage_quotas=tenant.usage_quotas, updated_at=timezone.now())
    return tenant


def usage_tool_call_record(*, tenant_id: int, tool: str) -> None:
    """An agent's tool call (the MCP endpoint), metered for the tenant like a model call: into the buffer, written
    by the periodic flush (usage.flusher: the MCP endpoint is not a Django request, so no request_finished follows)."""
    from core.metering import Attribution, UsageEvent, usage_event_record

    usage_event_record(
        UsageEvent(attribution=Attribution(tenant_id=tenant_id, purpose=tool), kind="tool", model="mcp", tool_calls=1)
    )
