"""Security headers on every kind of page (web chat, admin, API, health), no inline script in what the web chat
and the admin render, and production settings that pass `check --deploy` except for the documented opt-ins."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys

import pytest
from django.test import Client

from assistants.services.tenants import end_user_create_with_login, tenant_create
from tests.conftest import ROOT

pytestmark = pytest.mark.django_db
PASSWORD = "pw-headers-123"


def csp_of(response) -> dict[str, list[str]]:
    header = response["Content-Security-Policy"]
    return {name: values for name, *values in (part.split() for part in header.split(";") if part.strip())}


@pytest.fixture
def logged_in():
    tenant, _ = tenant_create(slug="headers")
    end_user_create_with_login(tenant=tenant, external_id="ext-hd", username="hd", password=PASSWORD)
    client = Client()
    client.login(username="hd", password=PASSWORD)
    return client


@pytest.mark.parametrize(
    "path", ["/login/", "/admin/login/", "/api/v1/assistants/", "/healthz", "/api/docs/", "/no-such-page/"]
)
def test_every_answer_carries_the_security_headers(client, path):
    response = client.get(path)
    policy = csp_of(response)
    assert policy["script-src"] == ["'self'"] and policy["default-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    assert "'unsafe-inline'" not in policy["style-src"] and "'unsafe-eval'" not in " ".join(sum(policy.values(), []))
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
    assert "camera=()" in response["Permissions-Policy"] and "microphone=()" in response["Permissions-Policy"]


INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I)
EVENT_ATTRIBUTE = re.compile(r"<[^>]+\son[a-z]+\s*=", re.I)


def test_the_web_chat_and_admin_render_no_inline_script(logged_in, admin_client):
    pages = [logged_in.get(path) for path in ("/", "/memory/", "/account/delete/")]
    pages.append(logged_in.post("/chat/new/", follow=True))  # a conversation page, with its message box
    pages += [
        admin_client.get(path)
        for path in (
            "/admin/",
            "/admin/tenancy/enduser/",
            "/admin/axes/accessattempt/",
            "/admin/memory/memorynote/add/",
        )
    ]
    pages.append(Client().get("/login/"))
    for page in pages:
        assert page.status_code == 200, page.request["PATH_INFO"]
        html = page.content.decode()
        assert not INLINE_SCRIPT.findall(html), (page.request["PATH_INFO"], INLINE_SCRIPT.findall(html))
        assert not EVENT_ATTRIBUTE.findall(html), page.request["PATH_INFO"]


def test_swagger_ui_loads_its_start_up_script_as_a_file(client):
    html = client.get("/api/docs/").content.decode()
    assert not INLINE_SCRIPT.findall(html)
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert "SwaggerUIBundle" in script.content.decode()


def test_production_settings_are_secure():
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "DJANGO_ALLOWED_HOSTS": "chat.example.com",
    }
    env.pop("DATABASE_NAME", None)
    code = (
        "from django.conf import settings as s; import django; django.setup(); "
        "print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS, s.DEBUG, "
        "s.SESSION_COOKIE_HTTPONLY)"
    )
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert shown.stdout.split() == ["True", "True", "31536000", "False", "True"], shown.stderr[-2000:]
    deploy = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = set(re.findall(r"security\.W\d+", deploy.stdout + deploy.stderr))
    # Left to the operator on purpose (docs/settings.md): HSTS for subdomains, preload, redirecting at the app.
    assert found <= {"security.W005", "security.W008", "security.W021"}, deploy.stdout + deploy.stderr
