"""Per-tenant limits (issue 39, item 5): a tenant's requests are limited across all its API keys, beside each
key's own limit, so that creating keys does not multiply the limit; 429 with Retry-After and a sentence naming
the limit; another tenant is unaffected; with CACHE_URL naming a shared cache (Redis) the counters live there."""

from __future__ import annotations

import uuid

import environ
import pytest
import redis
from django.core.cache import cache

from assistants.services.tenants import api_key_create
from tests.api.conftest import Api, error_of

pytestmark = pytest.mark.django_db
LIST = "/api/v1/assistants/"


def _keys(kit, n: int) -> list[Api]:
    return [kit.api] + [Api(api_key_create(tenant=kit.tenant, name=f"extra-{i}")[1]) for i in range(n - 1)]


def _exercise(acme, globex, settings):
    settings.API_THROTTLE_RATE = "3/minute"
    settings.API_TENANT_THROTTLE_RATE = "7/minute"
    keys = _keys(acme, 4)
    statuses = [api.get(LIST).status_code for api in keys for _ in range(2)]  # 8 requests, 2 per key
    assert statuses == [200] * 7 + [429]
    response = keys[3].get(LIST)
    assert response.status_code == 429 and 1 <= int(response["Retry-After"]) <= 60
    error = error_of(response)
    assert error["code"] == "throttled"
    assert error["message"].startswith("Too many requests for this tenant across all its API keys; retry in")
    assert error["details"]["retry_after_seconds"] == int(response["Retry-After"])
    assert globex.api.get(LIST).status_code == 200  # another tenant has its own budget


def test_a_tenant_is_limited_across_all_its_keys(acme, globex, settings):
    cache.clear()
    _exercise(acme, globex, settings)
    cache.clear()


def test_the_per_key_limit_still_applies_and_says_so(acme, settings):
    cache.clear()
    settings.API_THROTTLE_RATE = "2/minute"
    assert [acme.api.get(LIST).status_code for _ in range(3)] == [200, 200, 429]
    assert error_of(acme.api.get(LIST))["message"].startswith("Too many requests for this API key; retry in")
    cache.clear()


def test_with_a_shared_cache_configured_the_counters_live_there(acme, globex, settings):
    """CACHE_URL=redis://… (django-environ's syntax, as config.settings.base reads it): the counters are in
    Redis, where every web process sees them. Our keys carry a prefix of their own on the machine's Redis."""
    prefix = f"test-issue39-{uuid.uuid4().hex}"
    url = "redis://127.0.0.1:6379/0"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.ConnectionError:
        pytest.skip("no Redis on 127.0.0.1:6379")
    settings.CACHES = {"default": {**environ.Env.cache_url_config(url), "KEY_PREFIX": prefix}}
    assert settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    client = redis.Redis.from_url(url)
    try:
        _exercise(acme, globex, settings)
        stored = [k.decode() for k in client.scan_iter(f"{prefix}:*")]
        assert any(f"api-throttle-tenant:{acme.tenant.pk}" in k for k in stored), stored
    finally:
        for k in client.scan_iter(f"{prefix}:*"):
            client.delete(k)
