"""Statements Django builds on its own that still say which tenant they are about, so that PostgreSQL reads one
partition of a table partitioned by HASH(tenant_id) (core/partitioning.py) and Citus routes them to one shard.

Django's deletion collector looks related rows up by their foreign key alone (`message_id IN (...)`) and deletes by
primary key alone (`id IN (...)`); on a partitioned table each such statement probes every partition. Two pieces
close that gap:
- `TenantPrunedManager`, the base manager of the partitioned models: inside `tenant_scope(t)` every query Django
  builds through it (the collector's lookups, a `save()`'s UPDATE, a related object's fetch) also filters
  tenant_id = t; outside a scope it is the plain manager, as before.
- `tenant_delete(queryset, tenant_id=...)`: a queryset's `delete()` with the same cascades and counts, in which
  the rows of partitioned models are deleted with their tenant (pre/post_delete signals are not sent for those
  rows: nothing in this project listens to them).
"""
from __future__ import annotations

from collections import Counter

from django.db import models, router, transaction
from django.db.models.deletion import Collector

from core.models import _current_tenant_id, tenant_scope

BATCH = 500


class TenantPrunedManager(models.Manager):
    """Base manager of a table partitioned by tenant: inside tenant_scope(), it adds tenant_id to every query."""

    def get_queryset(self) -> models.QuerySet:
        queryset = super().get_queryset()
        tenant_id = _current_tenant_id.get()
        return queryset if tenant_id is None else queryset.filter(tenant_id=tenant_id)


def is_partitioned(model: type[models.Model]) -> bool:
    """Whether `model` is one of the tables partitioned by tenant (it declares TenantPrunedManager as its base)."""
    return isinstance(model._base_manager, TenantPrunedManager)


def tenant_delete(queryset: models.QuerySet, *, tenant_id: int) -> tuple[int, dict[str, int]]:
    """Delete `queryset` (rows of one tenant) as `queryset.delete()` would, every statement on a partitioned table
    filtered by `tenant_id`. Returns (total, {model label: count}), like delete()."""
    using = router.db_for_write(queryset.model)
    with tenant_scope(tenant_id), transaction.atomic(using=using):
        collector = Collector(using=using, origin=queryset)
        collector.collect(queryset.filter(tenant_id=tenant_id))
        kept = {model: instances for model, instances in collector.data.items() if is_partitioned(model)}
        for model in kept:
            del collector.data[model]
        for dependencies in collector.dependencies.values():
            dependencies.difference_update(m._meta.concrete_model for m in kept)
        counts: Counter[str] = Counter()
        if collector.data or collector.fast_deletes or collector.field_updates:
            counts.update(collector.delete()[1])
        for model, instances in kept.items():
            pks = sorted(obj.pk for obj in instances)
            for start in range(0, len(pks), BATCH):
                deleted = model._base_manager.filter(tenant_id=tenant_id, pk__in=pks[start:start + BATCH])._raw_delete(
                    using)
                if deleted:
                    counts[model._meta.label] += deleted
    return sum(counts.values()), dict(counts)
