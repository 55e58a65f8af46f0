"""API-key authentication and the API's rate limits, for the REST API (api.views.base.TenantAPIView) and the MCP
endpoint (mcp_api.asgi): per key, per tenant across all its keys, and per client address for requests with a bad
key. Counters live in Django's cache (CACHE_URL: shared between web processes when it names a shared cache)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import BasePermission
from rest_framework.throttling import SimpleRateThrottle

from assistants.services.tenants import hash_api_key
from core.client_address import client_address
from tenancy.models import ApiKey

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
        bad_keys = BadApiKeyThrottle()
        wait = bad_keys.blocked_for(request)
        if wait is not None:  # guessing keys from this address: not even a valid key is looked up until it waits
            raise LimitExceeded(wait, sentence=bad_keys.sentence)
        key = None
        if len(raw) <= MAX_KEY_CHARS:
            # The one lookup across tenants: the key is what tells us the tenant.
            key = ApiKey.objects.unscoped().select_related("tenant").filter(hashed_key=hash_api_key(raw)).first()
        now = timezone.now()
        if key is None or (key.revoked_at is not None and key.revoked_at <= now):
            # One answer for unknown, revoked and expired keys: it must not confirm that a key ever existed.
            bad_keys.record(request)
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


class LimitExceeded(exceptions.Throttled):
    """A 429 that says which limit was reached (`sentence`); the API's exception handler adds the wait."""

    def __init__(self, wait: float | None, *, sentence: str):
        super().__init__(wait)
        self.sentence = sentence


class _ApiKeyLimit(SimpleRateThrottle):
    """A limit on the requests sent with a valid API key. Its rate is the setting named `rate_setting`, read per
    request so that a settings change applies at once; `cache_key` says whose requests share one count."""

    rate_setting: str
    sentence: str

    def get_rate(self):
        return getattr(settings, self.rate_setting)

    def get_cache_key(self, request, view):
        if not isinstance(request.auth, ApiKey):
            return None
        return self.cache_key(request.auth)

    def cache_key(self, key: ApiKey) -> str:
        raise NotImplementedError


class ApiKeyRateThrottle(_ApiKeyLimit):
    """API_THROTTLE_RATE requests per API key."""

    scope = "api_key"
    rate_setting = "API_THROTTLE_RATE"
    sentence = "Too many requests for this API key"

    def cache_key(self, key: ApiKey) -> str:
        return f"api-throttle:{key.pk}"


class TenantRateThrottle(_ApiKeyLimit):
    """API_TENANT_THROTTLE_RATE requests per tenant, whichever of its keys sends them: a tenant does not raise its
    limit by creating keys."""

    scope = "api_tenant"
    rate_setting = "API_TENANT_THROTTLE_RATE"
    sentence = "Too many requests for this tenant across all its API keys"

    def cache_key(self, key: ApiKey) -> str:
        return f"api-throttle-tenant:{key.tenant_id}"


API_LIMITS = (ApiKeyRateThrottle, TenantRateThrottle)


def api_limits_check(request, view=None) -> None:
    """Count this request against every limit of API_LIMITS; raise LimitExceeded, naming the limit that asks for the
    longest wait, when any is reached. `request` needs only `.auth` (the ApiKey)."""
    reached = []
    for throttle_class in API_LIMITS:
        throttle = throttle_class()
        if not throttle.allow_request(request, view):
            reached.append((throttle.wait() or 1.0, throttle.sentence))
    if reached:
        wait, sentence = max(reached)
        raise LimitExceeded(wait, sentence=sentence)


class BadApiKeyThrottle(SimpleRateThrottle):
    """API_BAD_KEY_THROTTLE_RATE requests with a bad key per client address. Only failures are counted
    (`record`); once they fill the window, `blocked_for` refuses the address's requests before any key lookup."""

    scope = "api_bad_key"
    sentence = "Too many requests with an invalid API key from this address"

    def get_rate(self):
        return settings.API_BAD_KEY_THROTTLE_RATE

    def get_cache_key(self, request, view=None):
        return f"api-bad-key:{client_address(request)}"

    def _history(self, request) -> tuple[list[float], int, int]:
        """(the recent failures' times, newest first; the limit; the window in seconds)."""
        limit, window = self.parse_rate(self.get_rate())
        self.key, self.now = self.get_cache_key(request), self.timer()
        window = window or 60
        return [t for t in self.cache.get(self.key, []) if t > self.now - window], limit or 1, window

    def blocked_for(self, request) -> float | None:
        """Seconds this address must wait, or None when it may send a key."""
        history, limit, window = self._history(request)
        if len(history) < limit:
            return None
        return max(1.0, window - (self.now - history[limit - 1]))

    def record(self, request) -> None:
        history, _limit, window = self._history(request)
        self.cache.set(self.key, [self.now, *history], window)
