"""API keys, throttling, body limits and the one error format, on real requests through the full stack."""

from datetime import timedelta

import pytest
from django.utils import timezone

from api.views.base import TenantAPIView
from assistants.services.tenants import api_key_create, hash_api_key
from tenancy.models import ApiKey, Message
from tests.api.conftest import Api, error_of

pytestmark = pytest.mark.django_db

CHAT = "/api/v1/chat/"


def test_missing_key_is_401_with_bearer_challenge(acme):
    response = Api(None).post(CHAT, {"user": "alice", "message": "hi"})
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")
    assert error_of(response)["code"] == "unauthenticated"


@pytest.mark.parametrize("header", ["Token abc", "Bearer", "Basic dXNlcjpwYXNz", "Bearer two words"])
def test_malformed_authorization_header_says_the_expected_form(acme, header):
    response = Api(None).client.get("/api/v1/assistants/", headers={"Authorization": header})
    assert response.status_code == 401
    assert "Bearer <API key>" in error_of(response)["message"]


def test_unknown_key_is_401(acme):
    response = Api("mk_not-a-real-key").get("/api/v1/assistants/")
    assert response.status_code == 401
    assert error_of(response)["message"].startswith("That API key is not valid")


def test_revoked_key_is_refused_and_other_keys_keep_working(acme):
    key, raw = api_key_create(tenant=acme.tenant, name="ci")
    assert Api(raw).get("/api/v1/assistants/").status_code == 200
    ApiKey.objects.for_tenant(acme.tenant).filter(pk=key.pk).update(revoked_at=timezone.now())
    response = Api(raw).get("/api/v1/assistants/")
    assert response.status_code == 401
    # The same answer as for a key that never existed (same length too): a revoked key is not confirmed.
    unknown = Api(raw[:-4] + "zzzz").get("/api/v1/assistants/")
    assert unknown.status_code == 401 and unknown.content == response.content
    assert response["WWW-Authenticate"] == unknown["WWW-Authenticate"]
    assert acme.api.get("/api/v1/assistants/").status_code == 200
    expired_key, expired_raw = api_key_create(tenant=acme.tenant, name="expired")
    ApiKey.objects.for_tenant(acme.tenant).filter(pk=expired_key.pk).update(
        revoked_at=timezone.now() - timedelta(days=1)
    )
    assert Api(expired_raw).get("/api/v1/assistants/").content == response.content


def test_key_expires_at_its_revoked_at_time(acme):
    key, raw = api_key_create(tenant=acme.tenant, name="temporary")
    ApiKey.objects.for_tenant(acme.tenant).filter(pk=key.pk).update(revoked_at=timezone.now() + timedelta(hours=1))
    assert Api(raw).get("/api/v1/assistants/").status_code == 200  # not expired yet
    ApiKey.objects.for_tenant(acme.tenant).filter(pk=key.pk).update(revoked_at=timezone.now() - timedelta(seconds=1))
    assert Api(raw).get("/api/v1/assistants/").status_code == 401


def test_keys_are_stored_hashed_and_use_is_recorded(acme):
    stored = ApiKey.objects.for_tenant(acme.tenant).get()
    assert stored.hashed_key == hash_api_key(acme.key) and acme.key not in stored.hashed_key
    assert acme.key.startswith(stored.prefix)
    assert stored.last_used_at is None
    acme.api.get("/api/v1/assistants/")
    stored.refresh_from_db()
    assert stored.last_used_at is not None


def test_throttling_is_per_key_with_retry_after(acme, globex, settings):
    settings.API_THROTTLE_RATE = "3/minute"
    from django.core.cache import cache

    cache.clear()
    statuses = [acme.api.get("/api/v1/assistants/").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    response = acme.api.get("/api/v1/assistants/")
    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert error_of(response)["code"] == "throttled"
    assert globex.api.get("/api/v1/assistants/").status_code == 200  # another key has its own budget
    cache.clear()


def test_malformed_json_is_400_and_stores_nothing(acme):
    response = acme.api.post(CHAT, raw='{"user": "alice", "message": "hi"')
    assert response.status_code == 400
    assert error_of(response)["code"] == "malformed_json"
    assert Message.objects.for_tenant(acme.tenant).count() == 0


@pytest.mark.parametrize("raw", ["[1, 2]", '"text"', "null", '{"user": "a", "message": NaN}'])
def test_a_body_that_is_not_an_object_is_400(acme, raw):
    response = acme.api.post(CHAT, raw=raw)
    assert response.status_code == 400
    assert error_of(response)["code"] in {"invalid", "malformed_json"}


@pytest.mark.parametrize(
    "body, field",
    [
        ({"user": "alice", "message": 42}, "message"),
        ({"user": ["alice"], "message": "hi"}, "user"),
        ({"user": "alice", "message": "hi", "session": "12"}, "session"),
        ({"user": "alice", "message": "hi", "session": True}, "session"),
        ({"user": "alice", "message": "hi", "stream": "yes"}, "stream"),
        ({"user": "alice", "message": "hi", "session": 2**70}, "session"),
    ],
)
def test_wrong_types_are_400_naming_the_field(acme, body, field):
    response = acme.api.post(CHAT, body)
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "invalid" and error["message"].startswith(f"{field}:")
    assert field in error["details"]["fields"]


def test_unknown_fields_are_refused(acme):
    response = acme.api.post(CHAT, {"user": "alice", "message": "hi", "sesion": 3})
    assert response.status_code == 400
    error = error_of(response)
    assert error["details"]["fields"] == {"sesion": ["Unknown field."]}
    assert Message.objects.for_tenant(acme.tenant).count() == 0


@pytest.mark.parametrize("message", ["", "   \n "])
def test_empty_message_is_400(acme, message):
    response = acme.api.post(CHAT, {"user": "alice", "message": message})
    assert response.status_code == 400
    assert error_of(response)["message"].startswith("message:")


def test_oversized_message_is_400_with_the_limit(acme, settings):
    settings.MAX_MESSAGE_CHARS = 50
    response = acme.api.post(CHAT, {"user": "alice", "message": "x" * 51})
    assert response.status_code == 400
    assert "limit is 50" in error_of(response)["message"]


def test_body_over_the_limit_is_413_before_anything_is_stored(acme, settings):
    settings.API_MAX_REQUEST_BYTES = 1000
    response = acme.api.post(CHAT, {"user": "alice", "message": "y" * 2000})
    assert response.status_code == 413
    error = error_of(response)
    assert error["code"] == "request_too_large" and error["details"]["limit_bytes"] == 1000
    assert Message.objects.for_tenant(acme.tenant).count() == 0


def test_unknown_address_method_and_media_type_are_json_errors(acme):
    assert error_of(acme.api.get("/api/v1/no-such-thing/"))["code"] == "not_found"
    assert acme.api.get("/api/v1/no-such-thing/").status_code == 404
    response = acme.api.put("/api/v1/chat/", {"user": "a", "message": "b"})
    assert response.status_code == 405 and error_of(response)["code"] == "method_not_allowed"
    response = acme.api.post(CHAT, raw="user=alice&message=hi", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415 and error_of(response)["code"] == "unsupported_media_type"
    response = acme.api.get("/api/v1/assistants/", headers={"Accept": "text/html"})
    assert response.status_code == 406 and error_of(response)["code"] == "not_acceptable"


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/sessions/abc/",
        "/api/v1/sessions/0/",
        "/api/v1/memories/-1/",
        f"/api/v1/memories/{2**70}/",
        "/api/v1/jobs/99999999/",
    ],
)
def test_bad_ids_are_404(acme, path):
    response = acme.api.get(path)
    assert response.status_code == 404
    error_of(response)


@pytest.mark.urls("tests.api.crash_urls")
def test_an_unexpected_failure_is_a_json_500_without_a_trace(acme):
    acme.api.client.raise_request_exception = False
    response = acme.api.get("/crash/")
    assert response.status_code == 500
    error = error_of(response)
    assert error["code"] == "internal_error" and "boom" not in error["message"]


def test_subclasses_cannot_take_over_the_tenant_or_the_security():
    with pytest.raises(TypeError, match="get_queryset"):
        type("Sneaky", (TenantAPIView,), {"get_queryset": lambda self: None})
    with pytest.raises(TypeError, match="authentication_classes"):
        type("Open", (TenantAPIView,), {"authentication_classes": []})
    with pytest.raises(TypeError, match="throttle_classes"):
        type("Unthrottled", (TenantAPIView,), {"throttle_classes": []})
