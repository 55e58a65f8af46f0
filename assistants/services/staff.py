"""Tenant staff: Django accounts that moderate one tenant's data in the admin."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.db.models import Q

from tenancy.models import Tenant, TenantStaff

STAFF_GROUP = "Tenant staff"
# Everything of the platform's apps, except what is platform-wide (tenants are created and deleted by
# superusers; staff links and worker heartbeats are superuser-only).
STAFF_APPS = ("tenancy", "core", "memory", "tasks", "webhooks", "usage")  # core: the job ledger
STAFF_EXCLUDED = (
    "add_tenant",
    "delete_tenant",
    "add_tenantstaff",
    "change_tenantstaff",
    "delete_tenantstaff",
    "view_tenantstaff",
    "add_workerheartbeat",
    "change_workerheartbeat",
    "delete_workerheartbeat",
    "view_workerheartbeat",
    "add_modelprice",  # model prices are the platform's (usage.ModelPrice)
    "change_modelprice",
    "delete_modelprice",
    "view_modelprice",
)


def staff_group_get() -> Group:
    """The group holding the permissions tenant staff need (refreshed each call, so new models are included)."""
    group, _ = Group.objects.get_or_create(name=STAFF_GROUP)
    perms = Permission.objects.filter(content_type__app_label__in=STAFF_APPS).exclude(Q(codename__in=STAFF_EXCLUDED))
    group.permissions.set(perms)
    return group


@transaction.atomic
def tenant_staff_add(*, tenant: Tenant, username: str, password: str | None = None):
    """Make `username` (created if needed) a staff member of `tenant`: admin login, the staff group, the link."""
    user, created = get_user_model().objects.get_or_create(username=username)
    if password:
        user.set_password(password)
    elif created:
        user.set_unusable_password()
    user.is_staff = True
    user.save()
    user.groups.add(staff_group_get())
    TenantStaff.objects.get_or_create(user=user, tenant=tenant)
    return user
