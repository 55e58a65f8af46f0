"""Fixtures for working and experience memory: a tenant made the way integrators make one (tenant_create, so its
assistant has the example task types), its users and sessions, and `say` = one real chat turn."""

import pytest

from assistants.services.chat import chat_session_start, chat_turn
from assistants.services.tenants import end_user_get_or_create, tenant_create
from tenancy.models import Assistant


@pytest.fixture
def make_tenant(db):
    counter = {"n": 0}

    def make(slug=None, **policy):
        counter["n"] += 1
        tenant, _raw = tenant_create(slug=slug or f"wm-{counter['n']}")
        for name, value in policy.items():
            setattr(tenant, name, value)
        if policy:
            tenant.save()
        return tenant

    return make


@pytest.fixture
def tenant(make_tenant):
    return make_tenant("acme")


@pytest.fixture
def assistant(tenant):
    return Assistant.objects.for_tenant(tenant).get()


@pytest.fixture
def user(tenant):
    return end_user_get_or_create(tenant=tenant, external_id="alice")


@pytest.fixture
def new_session():
    def make(tenant, end_user, assistant=None):
        return chat_session_start(tenant=tenant, end_user=end_user, assistant=assistant)

    return make


@pytest.fixture
def session(tenant, user, new_session):
    return new_session(tenant, user)


def say(tenant, session, text):
    """One real chat turn (the entry point the web chat and the API use)."""
    return chat_turn(tenant=tenant, session=session, text=text)
