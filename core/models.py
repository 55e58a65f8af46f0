"""Base classes for every model: timestamps, and tenant scoping that fails closed.

Tenant-owned models use `TenantScopedManager` as `objects`:
- `Model.objects.for_tenant(tenant)` is the way in; every service and selector passes the tenant explicitly.
- Inside `tenant_scope(tenant)` (used by jobs), `Model.objects.filter(...)` is filtered to that tenant.
- Anywhere else `Model.objects.all()/filter()/get()` raises `TenantScopeError`.
- `Model.objects.unscoped()` is the one, greppable bypass (admin for superusers, erasure, migrations).
Django's internals (related managers, deletion, unique validation) use `_default_manager`, which is the plain
`all_tenants` manager: they always start from an object that is already inside one tenant.
"""

from __future__ import annotations

import contextlib
import contextvars

from django.db import models

from core.exceptions import TenantScopeError

_current_tenant_id: contextvars.ContextVar[int | None] = contextvars.ContextVar("current_tenant_id", default=None)


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

    tenant = models.ForeignKey("assistants.Tenant", on_delete=models.CASCADE, related_name="+")

    objects = TenantScopedManager()
    all_tenants = models.Manager()

    class Meta:
        abstract = True
        default_manager_name = "all_tenants"


class JobRecord(TimeStampedModel):
    """The ledger of background jobs, shown in the admin and the API. Tenant is null for platform-wide jobs."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    tenant = models.ForeignKey("assistants.Tenant", null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    end_user = models.ForeignKey(
        "assistants.EndUser", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    kind = models.CharField(max_length=60, db_index=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.QUEUED, db_index=True)
    idempotency_key = models.CharField(max_length=200, blank=True, db_index=True)
    progress = models.JSONField(default=dict, blank=True)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Outbox rows (kind 'dispatch'): when the job is sent again unless it completed by then. A running "
        "job's worker renews it every JOB_LEASE_SECONDS / 3; a sent job waits DISPATCH_START_SECONDS.",
    )

    class Meta:
        db_table = "tasks_jobrecord"  # created by the tasks app; moved here with its table unchanged
        ordering = ["-created_at"]
        verbose_name = "background job"
        verbose_name_plural = "background jobs"
        indexes = [
            models.Index(
                fields=["lease_expires_at"],
                condition=models.Q(kind="dispatch", status__in=["queued", "running"]),
                name="job_outbox_due",
            )
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "idempotency_key"], condition=~models.Q(idempotency_key=""), name="uniq_job_key"
            )
        ]

    def __str__(self):
        return f"{self.kind} #{self.pk} ({self.status})"


class WorkerHeartbeat(models.Model):
    """Written by every Celery worker every few seconds; /healthz reads it (works on any broker)."""

    hostname = models.CharField(max_length=200, unique=True)
    last_seen = models.DateTimeField()

    class Meta:
        db_table = "tasks_workerheartbeat"  # created by the tasks app; moved here with its table unchanged
