"""Reading usage: a tenant's usage between two dates, grouped by assistant, end user, model or day, with
its cost where the price table (ModelPrice) names the model. Rows carry no text and, for erased users, no id."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from django.db.models import Count, Sum
from django.db.models.functions import TruncDate

from memory.models import MemoryNote
from tenancy.models import Assistant, EndUser, Message
from usage.models import ModelPrice, UsageHour, UsageNotice

GROUPS = ("assistant", "user", "model", "day")
COLUMNS = (
    "prompt_tokens",
    "completion_tokens",
    "counted_tokens",
    "calls",
    "errors",
    "turns",
    "tool_calls",
    "duration_ms",
)
_FIELD = {"assistant": "assistant_id", "user": "end_user_id", "model": "model", "day": "day"}


def _labels(*, tenant, group_by: str, keys: set) -> dict:
    """What a person reads for each group: an assistant's name, an end user's external id (their own id for the
    person, shown to the tenant that gave it; 0 is no user or an erased one)."""
    if group_by == "assistant":
        names = dict(Assistant.objects.for_tenant(tenant).filter(pk__in=keys).values_list("pk", "name"))
        return {k: names.get(k) for k in keys}
    if group_by == "user":
        ids = dict(EndUser.objects.for_tenant(tenant).filter(pk__in=keys).values_list("pk", "external_id"))
        return {k: ids.get(k) for k in keys}
    return {k: str(k) for k in keys}


def _empty_row() -> dict:
    return {**dict.fromkeys(COLUMNS, 0), "cost": Decimal(0), "currency": ""}


def _stored(*, tenant, group_by: str, start: datetime, end: datetime) -> dict:
    """{group: {"stored_messages", "stored_notes"}}: messages and active notes created in the range and still
    stored (an erased user's are gone with them). Notes belong to end users, not assistants: no note counts there."""
    if group_by == "model":
        return {}
    found: dict = defaultdict(lambda: {"stored_messages": 0, "stored_notes": None if group_by == "assistant" else 0})
    field = {"user": "end_user_id", "assistant": "session__assistant_id", "day": "day"}[group_by]
    messages = Message.objects.for_tenant(tenant).filter(created_at__gte=start, created_at__lt=end)
    notes = MemoryNote.objects.for_tenant(tenant).filter(
        created_at__gte=start, created_at__lt=end, status=MemoryNote.Status.ACTIVE
    )
    if group_by == "day":
        messages = messages.annotate(day=TruncDate("created_at", tzinfo=UTC))
        notes = notes.annotate(day=TruncDate("created_at", tzinfo=UTC))
    for row in messages.values(field).annotate(n=Count("id")).order_by():
        found[row[field]]["stored_messages"] = row["n"]
    if group_by != "assistant":
        for row in notes.values(field).annotate(n=Count("id")).order_by():
            found[row[field]]["stored_notes"] = row["n"]
    return found


def _prices(models: set[str]) -> dict[str, ModelPrice]:
    return {price.model: price for price in ModelPrice.objects.filter(model__in=models)}


def _cost(price: ModelPrice | None, prompt: int, completion: int) -> Decimal | None:
    if price is None:
        return None
    return (Decimal(prompt) * price.prompt_per_million + Decimal(completion) * price.completion_per_million) / 10**6


def usage_report(*, tenant, date_from: date, date_to: date, group_by: str) -> list[dict]:
    """One row per group over the UTC days `date_from`..`date_to` (both included), in the group's order, with the
    messages and notes stored in the range (not for `model`). `cost`
    and `currency` appear only when a price is set for a model in the report; a row with a model that has no
    price gets cost null (unknown, not zero)."""
    start = datetime.combine(date_from, time.min, tzinfo=UTC)
    end = datetime.combine(date_to + timedelta(days=1), time.min, tzinfo=UTC)
    rows = UsageHour.objects.for_tenant(tenant).filter(hour__gte=start, hour__lt=end)
    if group_by == "day":
        rows = rows.annotate(day=TruncDate("hour", tzinfo=UTC))
    field = _FIELD[group_by]
    parts = rows.values(field, "model").annotate(**{name: Sum(name) for name in COLUMNS}).order_by(field, "model")
    prices = _prices({part["model"] for part in parts})
    grouped: dict = defaultdict(_empty_row)
    for part in parts:
        row = grouped[part[field]]
        for name in COLUMNS:
            row[name] += part[name] or 0
        price = prices.get(part["model"])
        cost = _cost(price, part["prompt_tokens"] or 0, part["completion_tokens"] or 0)
        row["cost"] = None if cost is None or row["cost"] is None else row["cost"] + cost
        row["currency"] = price.currency if price is not None else row["currency"]
    stored = _stored(tenant=tenant, group_by=group_by, start=start, end=end)
    for key in stored.keys() - grouped.keys():  # stored, with no use in the range (an import, say)
        grouped[key] = _empty_row()
    labels = _labels(tenant=tenant, group_by=group_by, keys=set(grouped))
    report = []
    for key, row in sorted(grouped.items(), key=lambda item: item[0]):
        entry = {"group": key.isoformat() if isinstance(key, date) else key, "label": labels.get(key)}
        entry |= {name: row[name] for name in COLUMNS}
        if group_by != "model":
            entry |= stored.get(key) or {"stored_messages": 0, "stored_notes": None if group_by == "assistant" else 0}
        entry["total_tokens"] = row["prompt_tokens"] + row["completion_tokens"]
        if group_by == "user":  # the person's id is the tenant's own external id; 0 (no user, erased) has none
            entry["group"] = labels.get(key)
        if prices:
            entry["cost"] = None if row["cost"] is None else str(row["cost"].quantize(Decimal("0.000001")))
            entry["currency"] = row["currency"] or None
        report.append(entry)
    return report


def usage_top(*, tenant, group_by: str, days: int = 30, limit: int = 10, today: date | None = None) -> list[dict]:
    """The `limit` biggest groups (by tokens) of the last `days` days: the admin page's top users and assistants."""
    today = today or datetime.now(UTC).date()
    rows = usage_report(tenant=tenant, date_from=today - timedelta(days=days - 1), date_to=today, group_by=group_by)
    return sorted(rows, key=lambda r: (-r["total_tokens"], -r["turns"]))[:limit]


def usage_notices(*, tenant, limit: int = 20) -> list[UsageNotice]:
    return list(UsageNotice.objects.for_tenant(tenant).order_by("-created_at")[:limit])
