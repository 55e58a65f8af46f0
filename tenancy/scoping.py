"""Base classes for every model: timestamps, and tenant scoping that fails closed.

Tenant-owned models use `TenantScopedManager` as `objects`:
- `Model.objects.for_tenant(tenant)` is the way in; every service and selector passes the tenant explicitly.
- Inside `tenant_scope(tenant)` (used by jobs), `Model.objects.filter(...)` is filtered to that tenant.
- Anywhere else `Model.objects.all()/filter()/get()` raises `TenantScopeError`.
- `Model.objects.unscoped()` is the one, greppable bypass (admin for superusers, erasure, migrations).
Django's internals (related managers, deletion, unique validation) use `_default_manager`, a plain manager
(`all_tenants`) that they reach without naming it: they always start from an object already inside one tenant.
Code never names it either: `.objects.unscoped()` is the bypass to write, and to grep for.
"""

from __future__ import annotations

import contextlib
import contextvars

from django.db import models


class TenantScopeError(RuntimeError):
    """A tenant-owned model was queried without a tenant. A programming error: fail closed, loudly."""


_current_tenant_id: contextvars.ContextVar[int | None] = contextvars.ContextVar("current_tenant_id", default=None)


def current_tenant_id() -> int | None:
    """The tenant of the enclosing tenant_scope, or None outside one."""
    return _current_tenant_id.get()


@contextlib.contextmanager
def tenant_scope(tenant):
    """Make `Model.objects` filter to `tenant` (an instance or an id) for the duration of the block."""
    tenant_id = getattr(tenant, "pk", tenant)
    if tenant_id is None:
        raise TenantScopeError("tenant_scope() needs a tenant.")
    token = _current_tenant_id.set(tenant_id)
    try:
        yield
    finally:
        _current_tenant_id.reset(token)


class TimeStampedModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class TenantScopedManager(models.Manager):
    def get_queryset(self):
        tenant_id = _current_tenant_id.get()
        if tenant_id is None:
            raise TenantScopeError(
                f"{self.model.__name__}.objects was used without a tenant: use "
                f".objects.for_tenant(tenant), tenant_scope(tenant), or an explicit .objects.unscoped()."
            )
        return super().get_queryset().filter(tenant_id=tenant_id)

    def for_tenant(self, tenant):
        tenant_id = getattr(tenant, "pk", tenant)
        if tenant_id is None:
            raise TenantScopeError(f"{self.model.__name__}.objects.for_tenant() needs a tenant.")
        return super().get_queryset().filter(tenant_id=tenant_id)

    def unscoped(self):
        """Every tenant's rows. Only for superuser views, erasure, health checks and maintenance."""
        return super().get_queryset()


class TenantOwnedModel(TimeStampedModel):
    """A row that belongs to exactly one tenant."""

    tenant = models.ForeignKey("tenancy.Tenant", on_delete=models.CASCADE, related_name="+")

    objects = TenantScopedManager()
    all_tenants = models.Manager()

    class Meta:
        abstract = True
        default_manager_name = "all_tenants"
