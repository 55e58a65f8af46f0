"""Fixtures for the integration doors (MCP, the Python SDK, webhooks): one real web process (uvicorn serving
config.asgi, as `make run` does) on the test database for the whole session, and two tenants with their keys.

Tests that talk to the web process use `django_db(transaction=True)`: what they create must be committed to be
seen by another process."""

from __future__ import annotations

import sys

import pytest

from assistants.services.tenants import tenant_create
from tenancy.models import Assistant
from tests.conftest import ROOT, worker_env
from tests.reliability.conftest import WebProcess, free_port

# The SDK as a user gets it from the repository (`pip install ./sdk/python`): its source, not an installed copy.
sys.path.insert(0, str(ROOT / "sdk" / "python" / "src"))


@pytest.fixture(scope="session")
def live_web(django_db_setup, openai_server):
    env = worker_env(openai_server)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DJANGO_DEBUG": "true",
            "API_THROTTLE_RATE": "100000/minute",
            "API_TENANT_THROTTLE_RATE": "100000/minute",
        }
    )
    web = WebProcess(free_port(), env, ROOT / "test-artifacts" / "web-integrations.log").start()
    yield web
    web.stop()


class Kit:
    def __init__(self, slug: str):
        self.tenant, self.key = tenant_create(slug=slug)
        self.assistant = Assistant.objects.for_tenant(self.tenant).get()


@pytest.fixture
def tenant_a(transactional_db):
    return Kit("acme-int")


@pytest.fixture
def tenant_b(transactional_db):
    """The second tenant: its key must reach nothing of tenant_a's."""
    return Kit("globex-int")
