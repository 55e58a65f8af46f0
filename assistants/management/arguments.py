"""The tenant and the end user a management command names on its command line, looked up the same way by every
command: a name that matches nothing stops the command with a sentence saying which (CommandError)."""

from __future__ import annotations

from django.core.management.base import CommandError

from tenancy.models import EndUser, Tenant


def command_tenant(slug: str) -> Tenant:
    """The tenant whose slug is `slug`."""
    tenant = Tenant.objects.filter(slug=slug).first()
    if tenant is None:
        raise CommandError(f"There is no tenant '{slug}'.")
    return tenant


def command_end_user(tenant: Tenant, external_id: str, *, missing: str = "") -> EndUser:
    """The tenant's end user `external_id`; `missing` adds what their absence may mean."""
    end_user = EndUser.objects.for_tenant(tenant).filter(external_id=external_id).first()
    if end_user is None:
        raise CommandError(f"Tenant '{tenant.slug}' has no user '{external_id}'{missing}.")
    return end_user
