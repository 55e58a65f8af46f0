"""Addresses only from proxies you name (issue 39, item 4): TRUSTED_PROXIES (empty by default) decides whose
X-Forwarded-For counts, in uvicorn as `make run` starts it and in the login lockout; a per-address limit across
usernames stops password spraying; bad API keys are throttled per address."""

from __future__ import annotations

import http.cookiejar
import re
import urllib.parse
import urllib.request

import pytest
from django.core.cache import cache
from django.test import Client

from tests.conftest import ROOT, worker_env
from tests.reliability.conftest import WebProcess, free_port

PASSWORD = "right-pass-8812"


@pytest.fixture
def users(django_user_model):
    return {name: django_user_model.objects.create_user(name, password=PASSWORD) for name in ("alice", "bob")}


def attempt(client, username, password):
    return client.post("/login/", {"username": username, "password": password, "next": "/"})


@pytest.fixture(autouse=True)
def limits(settings):
    settings.AXES_FAILURE_LIMIT = 5
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 12
    cache.clear()
    yield settings
    cache.clear()


def test_uvicorn_options_follow_trusted_proxies():
    from core.management.commands.runplatform import uvicorn_proxy_options

    assert uvicorn_proxy_options([]) == ["--no-proxy-headers"]
    assert uvicorn_proxy_options(["10.0.0.1", " 192.168.0.0/16 "]) == [
        "--proxy-headers",
        "--forwarded-allow-ips",
        "10.0.0.1,192.168.0.0/16",
    ]


@pytest.mark.django_db
def test_x_forwarded_for_counts_only_from_a_named_proxy(users, settings):
    # No proxy named: a client sending a new X-Forwarded-For every time is still one address.
    for i in range(5):
        spoof = Client(REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}")
        attempt(spoof, "alice", f"guess-{i}")
    spoof = Client(REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="198.51.100.200")
    assert attempt(spoof, "alice", PASSWORD).status_code == 429
    # Behind a named proxy, its X-Forwarded-For names the client (read from the right, past the proxies).
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    for i in range(5):
        # The client's own header says 1.2.3.<i>; the proxy appends what it saw (192.0.2.10).
        behind = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"1.2.3.{i}, 192.0.2.10")
        attempt(behind, "bob", f"guess-{i}")
    locked = Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="9.9.9.9, 192.0.2.10")
    assert attempt(locked, "bob", PASSWORD).status_code == 429
    # Another client behind the same proxy is another address: not locked.
    other = Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR="192.0.2.99")
    assert attempt(other, "bob", PASSWORD).status_code == 302


@pytest.mark.django_db
def test_password_spraying_from_one_address_is_stopped_across_usernames(users, django_user_model):
    sprayer = Client(REMOTE_ADDR="203.0.113.50")
    statuses = [attempt(sprayer, f"user-{i}", "Summer2024!").status_code for i in range(12)]
    assert statuses == [200] * 12  # one try per username: the per-username limit never fires
    refused = attempt(sprayer, "alice", PASSWORD)
    assert refused.status_code == 429 and "Too many failed logins" in refused.content.decode()
    assert int(refused["Retry-After"]) > 0
    # Another address, and the same people elsewhere, are unaffected.
    assert attempt(Client(REMOTE_ADDR="198.51.100.8"), "alice", PASSWORD).status_code == 302
    # The per-username limit stays lower than the per-address one.
    one = Client(REMOTE_ADDR="192.0.2.77")
    assert [attempt(one, "bob", f"x{i}").status_code for i in range(5)] == [200, 200, 200, 200, 429]


@pytest.mark.django_db(transaction=True)  # mcp_api.asgi._check closes the connections, as after each request
def test_bad_api_keys_are_throttled_per_address(settings):
    from assistants.services.tenants import tenant_create
    from mcp_api.asgi import _check

    settings.API_BAD_KEY_THROTTLE_RATE = "3/minute"
    _tenant, good = tenant_create(slug="bad-keys")
    guesser = Client(REMOTE_ADDR="203.0.113.9")
    statuses = [
        guesser.get("/api/v1/assistants/", headers={"Authorization": f"Bearer guess-{i}"}).status_code for i in range(3)
    ]
    assert statuses == [401, 401, 401]
    refused = guesser.get("/api/v1/assistants/", headers={"Authorization": "Bearer guess-4"})
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 60
    error = refused.json()["error"]
    assert error["code"] == "throttled" and "invalid API key from this address" in error["message"]
    # Once blocked, even a right guess from that address is not looked up; other addresses are unaffected.
    assert guesser.get("/api/v1/assistants/", headers={"Authorization": f"Bearer {good}"}).status_code == 429
    assert (
        Client(REMOTE_ADDR="198.51.100.1")
        .get("/api/v1/assistants/", headers={"Authorization": f"Bearer {good}"})
        .status_code
        == 200
    )
    # The MCP endpoint counts the same address the same way.
    mcp = {"host": "127.0.0.1:8000", "authorization": f"Bearer {good}"}
    status, body, headers = _check(mcp, "203.0.113.9")[1]
    assert status == 429 and "invalid API key" in body["error"]["message"] and int(headers["retry-after"]) >= 1
    assert _check(mcp, "198.51.100.1")[1] is None


@pytest.mark.django_db(transaction=True)
def test_make_runs_uvicorn_does_not_let_x_forwarded_for_pick_the_lockout_address(openai_server, django_user_model):
    """The issue's probe, against uvicorn started with runplatform's options: a new X-Forwarded-For every try from
    127.0.0.1 used to be a new address for the lockout (uvicorn trusts loopback's header by default)."""
    from core.management.commands.runplatform import uvicorn_proxy_options

    django_user_model.objects.create_user("carol", password=PASSWORD)
    env = worker_env(openai_server)
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings.local", "LOGIN_FAILURE_LIMIT": "5"})
    web = WebProcess(free_port(), env, ROOT / "test-artifacts" / "web-proxies.log")
    web.extra_args = uvicorn_proxy_options([])
    web.start()
    try:
        statuses = [_login(web.base, "carol", f"guess-{i}", f"198.51.100.{i}") for i in range(5)]
        assert statuses[-1] == 429, statuses
        assert _login(web.base, "carol", PASSWORD, "198.51.100.99") == 429
    finally:
        web.stop()


def _login(base: str, username: str, password: str, forwarded_for: str) -> int:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(jar), _NoRedirect, urllib.request.HTTPErrorProcessor
    )
    headers = {"X-Forwarded-For": forwarded_for}
    page = opener.open(urllib.request.Request(f"{base}/login/", headers=headers), timeout=15).read().decode()
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found, page[:500]
    token = found.group(1)
    body = urllib.parse.urlencode(
        {"username": username, "password": password, "next": "/", "csrfmiddlewaretoken": token}
    ).encode()
    request = urllib.request.Request(f"{base}/login/", data=body, headers={**headers, "Referer": f"{base}/login/"})
    try:
        return opener.open(request, timeout=15).status
    except urllib.error.HTTPError as err:
        return err.code


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None
