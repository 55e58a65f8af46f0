"""Deletion whose every statement names its tenant, so that PostgreSQL reads one partition of a table partitioned
by HASH(tenant_id) (core/partitioning.py) and Citus can route each statement to one shard (docs/scaling.md).

Django's deletion collector looks related rows up by their foreign key alone (`message_id IN (...)`) and deletes
by primary key alone (`id IN (...)`): on a partitioned table each such statement probes every partition, and on
Citus it goes to every shard. `tenant_delete` keeps the collector (the same cascades, SET NULLs and counts as
`queryset.delete()`) and adds `tenant_id = t` to each statement on a tenant-owned table. pre/post_delete signals
are not sent for the tenant-owned rows it deletes itself: nothing in this project listens to them.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db import models, router, transaction
from django.db.models.deletion import Collector

BATCH = 500


def has_tenant(model: type[models.Model]) -> bool:
    """Whether every row of the model's table has a tenant_id (every TenantOwnedModel). The job ledger, whose
    tenant may be null, is deleted as Django would: a filter on its tenant could miss a row and never finish."""
    return any(field.attname == "tenant_id" and not field.null for field in model._meta.concrete_fields)


class TenantCollector(Collector):
    """Django's collector, looking related rows of tenant-owned tables up within one tenant."""

    def __init__(self, *args: Any, tenant_id: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tenant_id = tenant_id

    def related_objects(self, related_model, related_fields, objs):
        queryset = super().related_objects(related_model, related_fields, objs)
        return queryset.filter(tenant_id=self.tenant_id) if has_tenant(related_model) else queryset


def tenant_delete(queryset: models.QuerySet, *, tenant_id: int) -> tuple[int, dict[str, int]]:
    """Delete `queryset` as `queryset.delete()` would, within tenant `tenant_id`: rows of tenant-owned tables are
    looked up and deleted with `tenant_id = tenant_id` (a tenant-less root, such as a login, is deleted as is).
    Returns (total, {model label: count}), like delete()."""
    using = router.db_for_write(queryset.model)
    if has_tenant(queryset.model):
        queryset = queryset.filter(tenant_id=tenant_id)
    with transaction.atomic(using=using):
        collector = TenantCollector(using=using, origin=queryset, tenant_id=tenant_id)
        collector.collect(queryset)  # type: ignore[arg-type]  # a queryset is what delete() passes too
        owned = {model: instances for model, instances in collector.data.items() if has_tenant(model)}
        for model in owned:
            del collector.data[model]
        for dependencies in collector.dependencies.values():
            dependencies.difference_update(m._meta.concrete_model for m in owned)
        counts: Counter[str] = Counter()
        if collector.data or collector.fast_deletes or collector.field_updates:
            counts.update(collector.delete()[1])
        for model, instances in owned.items():
            pks = sorted(obj.pk for obj in instances)
            for start in range(0, len(pks), BATCH):
                deleted = model._base_manager.filter(
                    tenant_id=tenant_id, pk__in=pks[start : start + BATCH]
                )._raw_delete(using)
                if deleted:
                    counts[model._meta.label] += deleted
    return sum(counts.values()), dict(counts)
