"""The database restarted under traffic: every request during the outage is a 503 with one clear sentence (JSON
for machines, a page for people, never a 500 or a stack trace), and the same web process serves again as soon
as PostgreSQL is back (persistent connections with CONN_HEALTH_CHECKS)."""

import threading
import time

import pytest
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore

from core.middleware import MESSAGE
from tests.conftest import wait_for
from tests.reliability.conftest import layer_missing


def admin_cookie() -> dict:
    user = get_user_model().objects.create_superuser("ops", "ops@example.com", "pw-123456")
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return {"Cookie": f"sessionid={session.session_key}"}


@pytest.mark.django_db(transaction=True)
def test_database_restart_gives_503_then_recovers_without_restarting_web(web_process, restartable_database):
    cookie = admin_cookie()
    api_headers = None
    if not layer_missing("api"):
        from assistants.services.tenants import api_key_create, end_user_get_or_create
        from tests.factories import AssistantFactory, TenantFactory

        tenant = TenantFactory()
        AssistantFactory(tenant=tenant)
        end_user_get_or_create(tenant=tenant, external_id="someone")
        api_headers = {"Authorization": f"Bearer {api_key_create(tenant=tenant)[1]}"}
        assert web_process.get("/api/v1/users/someone/sessions/", headers=api_headers)[0] == 200
    status, _, body = web_process.get("/admin/", headers=cookie)
    assert status == 200 and "Memory platform: support and privacy" in body
    if api_headers:
        assert web_process.get("/api/v1/users/someone/sessions/", headers=api_headers)[0] == 200
    pid = web_process.proc.pid

    # Traffic while the database goes down and comes back.
    seen: list[tuple[int, str]] = []
    stop = threading.Event()

    def traffic():
        while not stop.is_set():
            try:
                status, _, body = web_process.get("/admin/", headers=cookie, timeout=20)
                seen.append((status, body))
            except OSError as exc:  # a refused or reset connection would be a failure of the web process
                seen.append((-1, str(exc)))
            time.sleep(0.05)

    thread = threading.Thread(target=traffic, daemon=True)
    thread.start()
    time.sleep(0.5)
    restartable_database.stop()
    try:
        wait_for(lambda: any(s == 503 for s, _ in seen), timeout=20, message="a 503 during the outage")
        # A person gets a page, a program gets JSON; both say what happened in one sentence.
        status, headers, body = web_process.get("/admin/", headers=cookie)
        assert status == 503 and MESSAGE.split(";")[0] in body and "Traceback" not in body
        assert headers.get("Retry-After") and "text/html" in headers["Content-Type"]
        status, headers, body = web_process.get("/admin/", headers={**cookie, "Accept": "application/json"})
        assert status == 503 and "application/json" in headers["Content-Type"]
        assert "database_unavailable" in body and "Traceback" not in body
        if api_headers:  # the REST API answers in its own error format, with the same sentence
            status, headers, body = web_process.get("/api/v1/users/someone/sessions/", headers=api_headers)
            assert status == 503 and headers.get("Retry-After"), body
            assert '"database_unavailable"' in body and MESSAGE.split(";")[0] in body
        time.sleep(2)  # the outage lasts a while, under traffic
    finally:
        restartable_database.start()
    wait_for(lambda: seen and seen[-1][0] == 200, timeout=30, message="recovery after the database restart")
    stop.set()
    thread.join(5)

    assert web_process.proc.poll() is None and web_process.proc.pid == pid  # the same process, never restarted
    statuses = {s for s, _ in seen}
    assert statuses <= {200, 503}, f"unexpected answers during the outage: {statuses}"
    assert not any("Traceback" in b or "OperationalError" in b for s, b in seen if s == 503)
    status, _, body = web_process.get("/admin/", headers=cookie)
    assert status == 200 and "Memory platform: support and privacy" in body
