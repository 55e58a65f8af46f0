"""API-key authentication and per-key throttling. Used only through api.views.base.TenantAPIView."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import BasePermission
from rest_framework.throttling import SimpleRateThrottle

from assistants.models import ApiKey
from assistants.services.tenants import hash_api_key

LAST_USED_GRANULARITY = timedelta(seconds=60)  # one write per key per minute, not one per request
BAD_KEY_MESSAGE = "That API key is not valid (unknown, revoked or expired); send a valid key."
MAX_KEY_CHARS = 200  # real keys are far shorter; a longer one is not hashed at all


@dataclass
class ApiClient:
    """request.user for API requests: the tenant's integration, identified by its key."""

    api_key: ApiKey
    is_authenticated: bool = True
    is_anonymous: bool = False

    @property
    def tenant(self):
        return self.api_key.tenant


class ApiKeyAuthentication(BaseAuthentication):
    """`Authorization: Bearer <key>`. Keys are looked up by their SHA-256 hash; a key whose revoked_at is in the
    past is refused (set revoked_at in the future to make a key expire then)."""

    def authenticate(self, request):
        header = get_authorization_header(request)
        if not header:
            return None
        try:
            scheme, _, raw = header.decode("ascii").partition(" ")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("The Authorization header must be 'Bearer <API key>'.") from None
        raw = raw.strip()
        if scheme.lower() != "bearer" or not raw or " " in raw:
            raise exceptions.AuthenticationFailed("The Authorization header must be 'Bearer <API key>'.")
        if len(raw) > MAX_KEY_CHARS:
            raise exceptions.AuthenticationFailed(BAD_KEY_MESSAGE)
        # The one lookup across tenants: the key is what tells us the tenant.
        key = ApiKey.objects.unscoped().select_related("tenant").filter(hashed_key=hash_api_key(raw)).first()
        now = timezone.now()
        if key is None or (key.revoked_at is not None and key.revoked_at <= now):
            # One answer for unknown, revoked and expired keys: it must not confirm that a key ever existed.
            raise exceptions.AuthenticationFailed(BAD_KEY_MESSAGE)
        if key.last_used_at is None or now - key.last_used_at > LAST_USED_GRANULARITY:
            ApiKey.objects.unscoped().filter(pk=key.pk).update(last_used_at=now)
            key.last_used_at = now
        return ApiClient(api_key=key), key

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


class HasApiKey(BasePermission):
    message = "Send a valid API key as 'Authorization: Bearer <key>'."

    def has_permission(self, request, view):
        return isinstance(request.auth, ApiKey)


class ApiKeyRateThrottle(SimpleRateThrottle):
    """API_THROTTLE_RATE requests per API key (read per request, so a settings change applies at once)."""

    scope = "api_key"

    def get_rate(self):
        return settings.API_THROTTLE_RATE

    def get_cache_key(self, request, view):
        if not isinstance(request.auth, ApiKey):
            return None
        return f"api-throttle:{request.auth.pk}"
