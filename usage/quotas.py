"""Quotas: hard limits on tokens and turns per day or month, for the tenant, each assistant and each end
user, kept in the tenant's policy (`Tenant.usage_quotas`, MemoryPolicy.usage_quotas):

    {"tenant": {"tokens_per_month": 2000000}, "assistant": {"turns_per_day": 500}, "user": {"tokens_per_day": 20000}}

A turn is refused (429 `quota_exceeded`, with Retry-After) once a limit is reached; a turn already running finishes
(its tokens are counted after it), so a limit reached mid-stream refuses the next turn. At 80% of a limit the
tenant gets the `usage.threshold` webhook and an admin notice, once per limit and period. Periods are UTC: a day
starts at 00:00, a month on the 1st. Usage is what was written by the last flush (usage.services), which runs as
each request ends: a turn sent in the same instant as the one that reached a limit may still pass.

The usage a check compares with its limits is kept in Django's cache between checks (the check's statement was
most of what metering added to a turn, docs/benchmarks.md section 12). Each limit's running total (scope,
subject, metric, period, the period's start) is a cache key. A check reads the keys of its limits in one cache
call; it reads the database (usage_used, one statement) when a key is missing or expired
(USAGE_QUOTA_CACHE_SECONDS), or when any total is at SOFT_SHARE (80%) of its limit or more, and then stores what
it read. Every flush (usage.services.usage_flush) adds what it wrote to the keys that exist, after its
transaction committed; a key that does not exist is left to the next check's statement.

So near a limit every check reads the database, exactly as before. Far from it the cached total may lag behind
the table: with the default cache (local memory, one per process) by other processes' flushes of the last
USAGE_QUOTA_CACHE_SECONDS, with a shared cache (CACHE_URL, e.g. Redis) only by a flush that commits between a
check's statement and its storing of the result. A lag matters only if it carries usage from under 80% of a limit
past 100% within those seconds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.utils import translation
from django.utils.translation import gettext, ngettext, pgettext_lazy

from core.exceptions import ApplicationError, InvalidInput

SCOPES = ("tenant", "assistant", "user")
METRICS = ("tokens", "turns")
PERIODS = ("day", "month")
SOFT_SHARE = 0.8  # the soft limit: this share of a hard one

# The refusal's words, in the catalogue (locale/zh_Hans); quota_refusal says them in the language of the message.
_SCOPE_WORDS = {
    "tenant": pgettext_lazy("quota scope", "this account"),
    "assistant": pgettext_lazy("quota scope", "this assistant"),
    "user": pgettext_lazy("quota scope", "this user"),
}
_PERIOD_WORDS = {"day": pgettext_lazy("quota period", "daily"), "month": pgettext_lazy("quota period", "monthly")}


class QuotaExceeded(ApplicationError):
    code = "quota_exceeded"
    status = 429


@dataclass(frozen=True)
class Limit:
    scope: str
    metric: str
    period: str
    quota: int

    @property
    def name(self) -> str:
        return f"{self.scope}.{self.metric}_per_{self.period}"


def quota_limits(quotas: dict | None) -> list[Limit]:
    """The limits set in a policy's `usage_quotas` (malformed entries are refused when saved: usage_quotas_clean)."""
    found = []
    for scope, values in (quotas or {}).items():
        for key, quota in (values or {}).items():
            metric, _, period = key.partition("_per_")
            if scope in SCOPES and metric in METRICS and period in PERIODS and quota is not None:
                found.append(Limit(scope, metric, period, int(quota)))
    return found


def usage_quotas_clean(value) -> dict:
    """The quotas as stored, or InvalidInput naming what is wrong (admin form and API)."""
    if value in (None, ""):
        return {}
    if not isinstance(value, dict):
        raise InvalidInput('Quotas are an object such as {"user": {"tokens_per_day": 20000}}.')
    cleaned: dict = {}
    for scope, values in value.items():
        if scope not in SCOPES or not isinstance(values, dict):
            raise InvalidInput(f"Unknown quota scope {scope!r}: use tenant, assistant or user, each an object.")
        for key, quota in values.items():
            metric, _, period = key.partition("_per_")
            if metric not in METRICS or period not in PERIODS:
                raise InvalidInput(
                    f"Unknown quota {scope}.{key}: use tokens_per_day, tokens_per_month, turns_per_day or "
                    f"turns_per_month."
                )
            if quota is None:
                continue
            if isinstance(quota, bool) or not isinstance(quota, int) or quota < 1:
                raise InvalidInput(f"The quota {scope}.{key} must be a whole number of at least 1 (or null: none).")
            cleaned.setdefault(scope, {})[key] = quota
    return cleaned


def period_bounds(period: str, now: datetime) -> tuple[datetime, datetime]:
    """(start, end) of the UTC day or month that holds `now`."""
    now = now.astimezone(UTC)
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "day":
        return day, day + timedelta(days=1)
    start = day.replace(day=1)
    return start, (start + timedelta(days=32)).replace(day=1)


def usage_used(*, tenant_id: int, assistant_id: int, end_user_id: int, now: datetime, monthly: bool) -> dict:
    """{(scope, metric, period): used} for the tenant, this assistant and this end user, in one statement."""
    day_start, _ = period_bounds("day", now)
    month_start, _ = period_bounds("month", now)
    columns: list[str] = []
    params: list[int | datetime] = []
    for scope, condition in (("tenant", "TRUE"), ("assistant", "assistant_id = %s"), ("user", "end_user_id = %s")):
        for expression in ("prompt_tokens + completion_tokens", "turns"):  # METRICS, in order
            for period in ("day", "month"):
                when = condition + (" AND hour >= %s" if period == "day" else "")
                columns.append(f"COALESCE(SUM({expression}) FILTER (WHERE {when}), 0)")
                params += [assistant_id] if scope == "assistant" else [end_user_id] if scope == "user" else []
                params += [day_start] if period == "day" else []
    keys = [(s, m, p) for s in SCOPES for m in METRICS for p in PERIODS]
    sql = f"SELECT {', '.join(columns)} FROM usage_usagehour WHERE tenant_id = %s AND hour >= %s"
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, tenant_id, month_start if monthly else day_start])
        row = cursor.fetchone()
    return dict(zip(keys, (int(v) for v in row), strict=True))


PREFIX = "usage-total"


def _key(tenant_id: int, scope: str, subject_id: int, metric: str, period: str, start: datetime) -> str:
    return f"{PREFIX}:{tenant_id}:{scope}:{subject_id}:{metric}:{period}:{start:%Y%m%d}"


def _subject(scope: str, tenant_id: int, assistant_id: int, end_user_id: int) -> int:
    return {"tenant": tenant_id, "assistant": assistant_id, "user": end_user_id}[scope]


def usage_used_for_limits(
    *, tenant_id: int, assistant_id: int, end_user_id: int, limits: list[Limit], now: datetime
) -> dict[tuple[str, str, str], int]:
    """{(scope, metric, period): used} for `limits`: from the cache while every total is under SOFT_SHARE of its
    limit, else (or on a miss) from the database, then cached."""
    keys = {
        (lim.scope, lim.metric, lim.period): _key(
            tenant_id,
            lim.scope,
            _subject(lim.scope, tenant_id, assistant_id, end_user_id),
            lim.metric,
            lim.period,
            period_bounds(lim.period, now)[0],
        )
        for lim in limits
    }
    try:
        found = cache.get_many(list(keys.values()))
    except Exception:  # noqa: BLE001 - a cache that is down costs the statement, never the turn
        found = {}
    cached = {name: value for name, key in keys.items() if isinstance(value := found.get(key), int)}
    if len(cached) == len(keys) and all(
        cached[(lim.scope, lim.metric, lim.period)] < SOFT_SHARE * lim.quota for lim in limits
    ):
        return cached
    used = usage_used(
        tenant_id=tenant_id,
        assistant_id=assistant_id,
        end_user_id=end_user_id,
        now=now,
        monthly=any(lim.period == "month" for lim in limits),
    )
    try:
        cache.set_many({key: used[name] for name, key in keys.items()}, timeout=settings.USAGE_QUOTA_CACHE_SECONDS)
    except Exception:  # noqa: BLE001 - as above
        pass
    return used


def usage_totals_add(rows: Iterable[tuple[tuple, dict[str, int]]]) -> None:
    """After a flush committed: add its hourly rows ((tenant, hour, assistant, end user, ...), counters) to the
    running totals that are cached. Never raises: a total not added is read again after it expires."""
    deltas: dict[tuple, int] = defaultdict(int)
    for key, counters in rows:
        tenant_id, hour, assistant_id, end_user_id = key[:4]
        amounts = {"tokens": counters["prompt_tokens"] + counters["completion_tokens"], "turns": counters["turns"]}
        for scope in ("tenant", "assistant", "user"):
            subject_id = _subject(scope, tenant_id, assistant_id, end_user_id)
            if not subject_id:
                continue
            for period in ("day", "month"):
                start = period_bounds(period, hour)[0]
                for metric, amount in amounts.items():
                    if amount:
                        deltas[(tenant_id, scope, subject_id, metric, period, start)] += amount
    for parts, amount in deltas.items():
        try:
            cache.incr(_key(*parts), amount)
        except ValueError:  # not cached: the next check reads the table
            pass
        except Exception:  # noqa: BLE001 - a cache that is down: the totals expire and are read again
            return


def _wait_words(seconds: int) -> str:
    hours, minutes = divmod(max(60, seconds) // 60, 60)
    said = ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
    if hours:
        said = ngettext("%(count)d hour", "%(count)d hours", hours) % {"count": hours} + " " + said
    return said


def _amount_words(metric: str, quota: int) -> str:
    if metric == "tokens":
        return ngettext("%(count)s token", "%(count)s tokens", quota) % {"count": f"{quota:,}"}
    return ngettext("%(count)s turn", "%(count)s turns", quota) % {"count": f"{quota:,}"}


def quota_refusal(limit: Limit, *, used: int, now: datetime, chinese: bool) -> QuotaExceeded:
    """The 429 for `limit`: which limit, how much was used, when it resets (and Retry-After's seconds), in
    Chinese or English as the message that was refused."""
    _start, resets = period_bounds(limit.period, now)
    wait = max(1, int((resets - now).total_seconds()))
    with translation.override("zh-hans" if chinese else "en"):
        message = gettext(
            "The %(period)s limit of %(amount)s for %(scope)s is used up (%(used)s used); it resets at %(resets)s "
            "UTC, in %(wait)s. Try again then, or ask the operator to raise the limit."
        ) % {
            "period": _PERIOD_WORDS[limit.period],
            "amount": _amount_words(limit.metric, limit.quota),
            "scope": _SCOPE_WORDS[limit.scope],
            "used": f"{used:,}",
            "resets": resets.strftime("%Y-%m-%d %H:%M"),
            "wait": _wait_words(wait),
        }
    details = {
        "limit": limit.name,
        "quota": limit.quota,
        "used": used,
        "resets_at": resets.isoformat().replace("+00:00", "Z"),
        "retry_after_seconds": wait,
    }
    return QuotaExceeded(message, details=details)


def usage_quota_check(
    *, tenant_id: int, assistant_id: int, end_user_id: int, quotas: dict, chinese: bool, now: datetime | None = None
) -> None:
    """Raise QuotaExceeded when a hard limit of `quotas` is reached for this tenant, assistant or end user (the one
    that resets last, when several are). No limits set: returns at once, without a statement; usage under 80% of
    every limit and cached: without one either."""
    limits = quota_limits(quotas)
    if not limits:
        return
    now = now or datetime.now(UTC)
    used = usage_used_for_limits(
        tenant_id=tenant_id, assistant_id=assistant_id, end_user_id=end_user_id, limits=limits, now=now
    )
    reached = [limit for limit in limits if used[(limit.scope, limit.metric, limit.period)] >= limit.quota]
    if reached:
        limit = max(reached, key=lambda lim: (period_bounds(lim.period, now)[1], lim.metric == "tokens"))
        raise quota_refusal(limit, used=used[(limit.scope, limit.metric, limit.period)], now=now, chinese=chinese)


def tenant_over_hard_limit(*, tenant_id: int, quotas: dict, now: datetime | None = None) -> bool:
    """True while the tenant as a whole is at a hard limit (its background model work then waits)."""
    limits = [limit for limit in quota_limits(quotas) if limit.scope == "tenant"]
    if not limits:
        return False
    now = now or datetime.now(UTC)
    used = usage_used(tenant_id=tenant_id, assistant_id=0, end_user_id=0, now=now, monthly=True)
    return any(used[(limit.scope, limit.metric, limit.period)] >= limit.quota for limit in limits)
