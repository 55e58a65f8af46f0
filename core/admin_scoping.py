"""Tenant scoping for the Django admin: a tenant's staff see and change only their tenant's rows.

Superusers see every tenant. A staff account sees the tenants it is linked to by `TenantStaff` and nothing else
(no link: nothing at all). Every tenant-owned admin derives from `TenantScopedAdmin`, which
- builds its queryset from `.objects.unscoped()` filtered by the staff's tenants (so another tenant's object
  opened by URL is "not found", and actions on forged ids touch nothing),
- limits every foreign-key and many-to-many choice (and so every raw id or autocomplete value) the same way,
- refuses a form that links objects of two different tenants (also for superusers).
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db import models
from django.db.models import QuerySet

from tenancy.models import Tenant, TenantStaff

_CACHE_ATTR = "_staff_tenant_ids"


def staff_tenant_ids(request) -> list[int] | None:
    """The tenant ids `request.user` may see in the admin; None means every tenant (superuser)."""
    user = request.user
    if user.is_superuser:
        return None
    if not hasattr(request, _CACHE_ATTR):
        ids = list(TenantStaff.objects.filter(user_id=user.pk).values_list("tenant_id", flat=True))
        setattr(request, _CACHE_ATTR, ids)
    return getattr(request, _CACHE_ATTR)


def _base_queryset(model):
    manager = model.objects if hasattr(model.objects, "unscoped") else model._default_manager
    return manager.unscoped() if hasattr(manager, "unscoped") else manager.all()


def scoped_choices(model, tenant_ids):
    """The rows of `model` a form may offer to someone limited to `tenant_ids` (None: all)."""
    qs = _base_queryset(model)
    if tenant_ids is None:
        return qs
    if model is Tenant:
        return qs.filter(pk__in=tenant_ids)
    if any(f.name == "tenant" for f in model._meta.concrete_fields):
        return qs.filter(tenant_id__in=tenant_ids)
    return qs.none()  # fail closed: a model without a tenant is not offered to tenant staff


class TenantConsistentForm(forms.ModelForm):
    """Every tenant-owned object a form links must belong to the object's own tenant."""

    def clean(self):
        data = super().clean()
        if data is None:  # a clean() that returns nothing leaves cleaned_data as it is (Django's _clean_form)
            data = self.cleaned_data
        tenant = data.get("tenant")
        if tenant is None and getattr(self.instance, "tenant_id", None):
            tenant = self.instance.tenant
        if not isinstance(tenant, Tenant):
            return data
        for name, value in list(data.items()):
            items = list(value) if isinstance(value, (list, tuple, QuerySet)) else [value]
            if any(
                isinstance(item, models.Model) and getattr(item, "tenant_id", None) not in (None, tenant.pk)
                for item in items
            ):
                self.add_error(name, "This belongs to another tenant: choose one of this tenant's objects.")
        return data


class TenantScopedAdmin(admin.ModelAdmin):
    """ModelAdmin for a model with a `tenant` foreign key (or Tenant itself, with tenant_lookup = "pk")."""

    tenant_lookup = "tenant_id"
    form = TenantConsistentForm
    list_per_page = 50
    ordering = ("-pk",)  # newest first, and a stable order for pagination

    def get_queryset(self, request):
        qs = _base_queryset(self.model)
        ordering = self.get_ordering(request)
        if ordering:
            qs = qs.order_by(*ordering)
        tenant_ids = staff_tenant_ids(request)
        if tenant_ids is not None:
            qs = qs.filter(**{f"{self.tenant_lookup}__in": tenant_ids})
        return qs

    def _in_scope(self, request, obj) -> bool:
        tenant_ids = staff_tenant_ids(request)
        if obj is None or tenant_ids is None:
            return True
        tenant_id = obj.pk if self.tenant_lookup == "pk" else obj.tenant_id
        return tenant_id in tenant_ids

    def has_module_permission(self, request):
        return super().has_module_permission(request) and (staff_tenant_ids(request) != [])

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) and self._in_scope(request, obj)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and self._in_scope(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and self._in_scope(request, obj)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        kwargs["queryset"] = scoped_choices(db_field.related_model, staff_tenant_ids(request))
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        tenant_ids = staff_tenant_ids(request)
        if db_field.related_model is Tenant and tenant_ids and len(tenant_ids) == 1 and field is not None:
            field.initial = tenant_ids[0]
        return field

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        kwargs["queryset"] = scoped_choices(db_field.related_model, staff_tenant_ids(request))
        return super().formfield_for_manytomany(db_field, request, **kwargs)


class ReadOnlyAdminMixin:
    """Viewable, never added, changed or deleted through the admin (ledgers, receipts, audit log)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class SuperuserOnlyAdminMixin:
    """Platform-wide data: superusers only."""

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_superuser

    def has_view_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def has_add_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def has_change_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_active and request.user.is_superuser


def actor_label(actor: str) -> tuple[str, str]:
    """(kind, who) for an audit actor or a receipt's requested_by, however the layer wrote it: staff ("admin:x"),
    end user ("user:<external_id>", the older "end_user:<id>[:web]"), API key ("api-key:<name> (<prefix>)"),
    system job ("job:<name>", "system"), or "erased user"."""
    actor = (actor or "").strip()
    prefix, _sep, rest = actor.partition(":")
    if prefix == "admin":
        return "staff", rest
    if prefix in ("user", "end_user"):
        return "end user", rest.removesuffix(":web")
    if prefix == "api-key":
        return "API key", rest
    if prefix == "job":
        return "system job", rest
    if actor in ("", "system"):
        return "system job", "system"
    if actor == "erased user":
        return "erased user", ""
    return "other", actor


ACTOR_PREFIXES = {
    "staff": ("admin:",),
    "end user": ("user:", "end_user:"),
    "API key": ("api-key:",),
    "system job": ("job:", "system"),
    "erased user": ("erased user",),
}
