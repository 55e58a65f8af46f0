"""Fixtures for the REST API tests: two tenants with their keys, and a small JSON client."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from django.test import Client

from assistants.services.tenants import end_user_get_or_create, tenant_create
from tenancy.models import Assistant, EndUser, Tenant


class Api:
    """django.test.Client speaking JSON with `Authorization: Bearer <key>`."""

    def __init__(self, key: str | None):
        self.key = key
        self.client = Client()

    def headers(self, extra: dict | None = None) -> dict:
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        headers.update(extra or {})
        return headers

    def get(self, path, params=None, headers=None):
        return self.client.get(path, params or {}, headers=self.headers(headers))

    def post(self, path, body=None, headers=None, raw: bytes | str | None = None, content_type="application/json"):
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return self.client.post(path, data, content_type=content_type, headers=self.headers(headers))

    def patch(self, path, body=None, headers=None, raw=None):
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return self.client.patch(path, data, content_type="application/json", headers=self.headers(headers))

    def delete(self, path, headers=None):
        return self.client.delete(path, headers=self.headers(headers))

    def put(self, path, body=None):
        return self.client.put(path, json.dumps(body or {}), content_type="application/json", headers=self.headers())


@dataclass
class TenantKit:
    tenant: Tenant
    key: str
    api: Api
    assistant: Assistant

    def user(self, external_id: str) -> EndUser:
        return end_user_get_or_create(tenant=self.tenant, external_id=external_id)


def make_tenant(slug: str) -> TenantKit:
    tenant, raw = tenant_create(slug=slug)
    return TenantKit(tenant=tenant, key=raw, api=Api(raw), assistant=Assistant.objects.for_tenant(tenant).get())


@pytest.fixture
def acme(db):
    return make_tenant("acme")


@pytest.fixture
def globex(db):
    """The second tenant: its key must see nothing of acme's."""
    return make_tenant("globex")


def error_of(response) -> dict:
    """The error body, after checking it has the one documented shape."""
    assert response["Content-Type"].startswith("application/json"), response.content[:300]
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"].strip()
    assert "Traceback" not in body["error"]["message"]
    return body["error"]
