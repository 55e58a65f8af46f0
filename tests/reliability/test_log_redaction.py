"""Logs carry no user content (issue 39, item 3): a user is used through the REST API, the web chat, the admin
and MCP, then erased; every log the platform wrote meanwhile (the web server's access and application log, the
Celery worker's log) is searched for their marker, a unique string used as their external id and in their
queries and messages. It must not be there; what is there instead is the pseudonym (a keyed hash)."""

from __future__ import annotations

import json
import uuid
from urllib.parse import quote

import pytest
from django.test import Client

from assistants.services.tenants import end_user_create_with_login, tenant_create
from core.models import JobRecord
from tenancy.models import EndUser
from tests.conftest import wait_for, worker_env
from tests.reliability.conftest import WebProcess, free_port

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}"


def test_erasing_a_user_leaves_nothing_of_theirs_in_any_log(celery_worker, openai_server, django_user_model, tmp_path):
    from core.log_redaction import pseudonym

    marker = f"zq{uuid.uuid4().hex[:10]}"  # never appears by chance
    other = f"zq{uuid.uuid4().hex[:10]}"  # a second user of the same tenant, who is not erased
    tenant, key = tenant_create(slug=f"logs-{marker}")
    person = end_user_create_with_login(
        tenant=tenant, external_id=marker, username=f"web-{uuid.uuid4().hex[:8]}", password="pw-123456"
    )
    staff = django_user_model.objects.create_superuser(f"root-{uuid.uuid4().hex[:6]}", "root@example.com", "pw-123456")
    worker_log = celery_worker.log_path
    worker_start = worker_log.stat().st_size

    env = worker_env(openai_server)
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings.local", "DJANGO_DEBUG": "false"})
    web = WebProcess(free_port(), env, tmp_path / "web.log")
    web.extra_args = ["--log-level", "info"]  # as `make run`: uvicorn's access log on
    web.start()
    try:
        api = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
        user_path = f"/api/v1/users/{quote(marker, safe='')}"
        said = json.dumps({"user": marker, "message": f"My code word is {marker}, remember it."}).encode()
        assert web.request("POST", "/api/v1/chat/", said, api)[0] == 200
        other_said = json.dumps({"user": other, "message": "I like tea."}).encode()
        assert web.request("POST", "/api/v1/chat/", other_said, api)[0] == 200
        assert web.get(f"{user_path}/recall/?q={marker}", api)[0] == 200
        assert web.get(f"{user_path}/memories/?q={marker}&page=1", api)[0] == 200
        assert web.get(f"{user_path}/sessions/", api)[0] == 200
        assert web.get(f"/api/v1/users/{marker}-nobody/sessions/", api)[0] == 404  # django.request logs a 404
        # The web chat's search and the admin's user search, as the person and as staff.
        assert web.get(f"/chat/search/?q={marker}", {"Cookie": _session_cookie(person.user)})[0] == 200
        admin = {"Cookie": _session_cookie(staff)}
        assert web.get(f"/admin/tenancy/enduser/?q={marker}", admin)[0] == 200
        # MCP: a tool call naming the user and querying for the marker.
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "recall", "arguments": {"user": marker, "query": marker}},
        }
        mcp = {**api, "Accept": "application/json, text/event-stream"}
        assert web.request("POST", "/mcp/", json.dumps(call).encode(), mcp)[0] == 200

        status, _, body = web.request("DELETE", f"{user_path}/", None, api)
        assert status == 202, body
        job = json.loads(body)["job"]
        wait_for(
            lambda: JobRecord.objects.get(pk=job).status == JobRecord.Status.SUCCEEDED, timeout=120, message="erasure"
        )
        wait_for(
            lambda: not JobRecord.objects.filter(tenant=tenant, status__in=["queued", "running"]).exists(),
            timeout=120,
            message="the tenant's jobs to finish",
        )
        assert not EndUser.objects.for_tenant(tenant).filter(external_id=marker).exists()
    finally:
        web.stop()

    logs = {
        "web (uvicorn access + application)": (tmp_path / "web.log").read_text(errors="replace"),
        "celery worker": worker_log.read_bytes()[worker_start:].decode(errors="replace"),
    }
    for name, text in logs.items():
        assert marker not in text, f"the erased user's marker is in the {name} log:\n" + "\n".join(
            line for line in text.splitlines() if marker in line
        )
    access = logs["web (uvicorn access + application)"]
    assert f"/api/v1/users/{pseudonym(marker)}/recall/?q={pseudonym(marker)}" in access  # the line is there, redacted
    assert f"/chat/search/?q={pseudonym(marker)}" in access and "&page=1" in access
    assert other not in access


def test_a_logged_path_keeps_its_shape_but_not_the_id_or_the_query():
    from core.log_redaction import pseudonym, redact_path

    eve = pseudonym("team/eve")
    assert redact_path("/api/v1/users/team/eve/memories/?q=rent%208000&page=2") == (
        f"/api/v1/users/{eve}/memories/?q={pseudonym('rent 8000')}&page=2"
    )
    assert redact_path("/api/v1/users/team%2Feve/") == f"/api/v1/users/{eve}/"  # encoded or not, one pseudonym
    assert redact_path("/api/v1/sessions/3/?user=bob") == f"/api/v1/sessions/3/?user={pseudonym('bob')}"
    assert redact_path("/healthz") == "/healthz"
