"""The REST API (api/, docs/api.md): error shape, body limits, rate limits, idempotency, paging, the OpenAPI schema."""

from __future__ import annotations

from config.env import env

REST_FRAMEWORK: dict[str, object] = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
    # One error shape for every API error: {"error": {"code", "message", "details"}} (docs/api.md).
    "EXCEPTION_HANDLER": "api.exception_handlers.api_exception_handler",
}
# Largest request body /api/ accepts (413 above it). Imports of thousands of messages fit in the default.
API_MAX_REQUEST_BYTES = env.int("API_MAX_REQUEST_BYTES", default=5 * 1024 * 1024)
# Deepest nesting of arrays/objects in a JSON body (400 json_too_deep above it): no endpoint needs more than a
# few levels, and a body of 100,000 '[' would otherwise be a RecursionError (500).
JSON_MAX_DEPTH = env.int("JSON_MAX_DEPTH", default=64)
# Requests per API key (DRF rate syntax "n/second|minute|hour|day"); 429 with Retry-After above it.
API_THROTTLE_RATE = env("API_THROTTLE_RATE", default="600/minute")
# Requests per tenant across all its keys, so that creating keys does not multiply the per-key limit.
API_TENANT_THROTTLE_RATE = env("API_TENANT_THROTTLE_RATE", default="1800/minute")
# Requests with an unknown, revoked or expired key per client address (core/client_address.py); above it every
# request with a key from that address is refused with 429 before the key is looked up, until the window passes.
API_BAD_KEY_THROTTLE_RATE = env("API_BAD_KEY_THROTTLE_RATE", default="30/minute")
# The throttle counters live in Django's cache: per process by default, shared by every web process when CACHE_URL
# names a shared cache (redis://127.0.0.1:6379/1; django-environ's cache URL syntax).
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
# How long an Idempotency-Key on POST /api/v1/chat/ replays the first result.
API_IDEMPOTENCY_TTL_HOURS = env.int("API_IDEMPOTENCY_TTL_HOURS", default=24)
API_PAGE_SIZE = env.int("API_PAGE_SIZE", default=50)
# Most messages one history import may carry (POST /api/v1/users/<id>/sessions/).
API_IMPORT_MAX_MESSAGES = env.int("API_IMPORT_MAX_MESSAGES", default=10_000)
SPECTACULAR_SETTINGS = {
    "TITLE": "Assistant memory platform API",
    "DESCRIPTION": "Multi-tenant assistants with short-term, long-term and working memory. See docs/api.md.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI from drf-spectacular-sidecar's bundled files, never a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "ENUM_NAME_OVERRIDES": {
        "NoteKindEnum": "memory.models.MemoryNote.Kind",
        "NoteStatusEnum": "memory.models.MemoryNote.Status",
        "NoteSourceEnum": "memory.models.MemoryNote.Source",
        "TaskStateEnum": "tasks.models.TaskState.State",
        "JobStatusEnum": "tasks.models.JobRecord.Status",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.reject_unknown_fields_hook",
    ],
}
