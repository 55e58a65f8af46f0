"""Web chat fixtures: a tenant with an assistant, end users with logins, and logged-in test clients."""

from __future__ import annotations

import pytest
from django.test import Client

from assistants.services.tenants import end_user_create_with_login, tenant_create

PASSWORD = "pw-123456-web"


@pytest.fixture
def make_person(db):
    """make_person(tenant=None, username=...) -> (end_user, logged-in Client)."""
    counter = {"n": 0}

    def make(tenant=None, username=None, language="en"):
        counter["n"] += 1
        if tenant is None:
            tenant, _key = tenant_create(slug=f"web-{counter['n']}-{username or 'x'}", name="Web Co")
        username = username or f"webuser{counter['n']}"
        end_user = end_user_create_with_login(
            tenant=tenant,
            external_id=f"ext-{username}",
            username=username,
            password=PASSWORD,
            display_name=username.title(),
        )
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        assert client.login(username=username, password=PASSWORD)
        return end_user, client

    return make


@pytest.fixture
def alice(make_person):
    return make_person(username="alice")


@pytest.fixture
def bob_same_tenant(alice, make_person):
    return make_person(tenant=alice[0].tenant, username="bob")


@pytest.fixture
def carol_other_tenant(make_person):
    return make_person(username="carol")
