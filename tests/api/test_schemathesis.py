"""Property-based run of schemathesis against the live OpenAPI schema, in-process on the WSGI app and the real
test database: every operation, positive and negative inputs, no 5xx, every status, content type, header and
body as documented. Short enough for CI (API_SCHEMATHESIS_EXAMPLES per operation and mode, default 15)."""

import os

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from assistants.services.tenants import tenant_create
from tests.factories import MemoryNoteFactory

EXAMPLES = int(os.environ.get("API_SCHEMATHESIS_EXAMPLES", "15"))


def no_server_error(ctx, response, case):
    """not_a_server_error, except the documented 501 of erasure/export while the privacy layer (issue 7) is not
    installed: that is a deliberate, documented answer, not a crash."""
    if response.status_code == 501 and response.json()["error"]["code"] == "not_implemented":
        return True
    return not_a_server_error(ctx, response, case)


def body_schema_conformance(ctx, response, case):
    """response_schema_conformance for JSON bodies. A streamed chat (text/event-stream) is documented as a string
    (OpenAPI 3.0 has no schema for SSE events): schemathesis 4 parses the events and compares each with that
    string schema, which fails whenever Hypothesis happens to ask for `stream: true`. The events themselves are
    checked in tests/api/test_chat.py."""
    if (response.headers.get("content-type") or [""])[0].startswith("text/event-stream"):
        return True
    return response_schema_conformance(ctx, response, case)


CHECKS = [
    no_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    body_schema_conformance,
]


def _load_schema():
    from config.wsgi import application

    return schemathesis.openapi.from_wsgi("/api/schema/", application)


schema = _load_schema()  # the live schema, as the WSGI app serves it at /api/schema/


@pytest.fixture(autouse=True)
def in_process_requests(db, settings):
    """As Django's test client does: requests must not close the test's database connection (it holds the
    test transaction). The throttle is lifted so that the run exercises the endpoints, not the 429."""
    settings.API_THROTTLE_RATE = settings.API_TENANT_THROTTLE_RATE = "100000/minute"
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def key(db):
    tenant, raw = tenant_create(slug="fuzz")
    from assistants.services.tenants import end_user_get_or_create

    for external_id in ("alice", "0", "a"):
        MemoryNoteFactory(end_user=end_user_get_or_create(tenant=tenant, external_id=external_id))
    return raw


@schema.parametrize()
@hypothesis_settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_schema(case, key):
    case.call_and_validate(headers={"Authorization": f"Bearer {key}"}, checks=CHECKS)
