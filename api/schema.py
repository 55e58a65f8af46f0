"""OpenAPI documentation helpers: the API-key security scheme, the documented errors of every endpoint, and a
hook that marks request bodies `additionalProperties: false` (unknown fields are refused with 400)."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema

from api.fields import ErrorSerializer


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.ApiKeyAuthentication"
    name = "ApiKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "mk_...",
            "description": "A tenant API key (create_tenant, create_api_key or the admin).",
        }


def _error(description: str, code: str, message: str) -> OpenApiResponse:
    return OpenApiResponse(
        ErrorSerializer,
        description=description,
        examples=[
            OpenApiExample(code, value={"error": {"code": code, "message": message, "details": {}}}, response_only=True)
        ],
    )


ERRORS = {
    400: _error(
        "Invalid input: malformed JSON, a wrong type, an unknown or missing field.",
        "invalid",
        "message: This field may not be blank.",
    ),
    401: _error("Missing, invalid, revoked or expired API key.", "unauthenticated", "That API key is not valid."),
    404: _error(
        "Not found, or owned by another tenant or user (the two look the same).",
        "not_found",
        "There is no user 'alice'.",
    ),
    405: _error("The address does not accept this method.", "method_not_allowed", "This address does not accept PUT."),
    406: _error(
        "The Accept header asks for a format this endpoint does not produce.",
        "not_acceptable",
        "This address answers with application/json (or text/event-stream for chat).",
    ),
    409: _error(
        "Conflict with the current state (e.g. the user is being erased, an Idempotency-Key reused with another body).",
        "conflict",
        "User 'alice' is being erased; nothing new is accepted.",
    ),
    412: _error(
        "If-Match named a version the object no longer has: read it again (details.version is the current one).",
        "version_mismatch",
        "That note was changed since you read it; read it again and apply your change to the new version.",
    ),
    413: _error(
        "The request body is larger than API_MAX_REQUEST_BYTES.",
        "request_too_large",
        "The request body is 9000000 bytes; the limit is 5242880 bytes.",
    ),
    415: _error(
        "The body is not application/json.",
        "unsupported_media_type",
        "Send the body as JSON with 'Content-Type: application/json' (got 'text/plain').",
    ),
    429: _error(
        "Too many requests for this API key; see the Retry-After header (seconds).",
        "throttled",
        "Too many requests for this API key; retry in 12 seconds.",
    ),
    501: _error(
        "This feature is not available in this version.",
        "not_implemented",
        "Erasure is not available in this version yet.",
    ),
    500: _error(
        "An unexpected failure; nothing was half-done that a retry cannot finish.",
        "internal_error",
        "Something went wrong on our side; the request was not completed. Try again.",
    ),
}


def api_doc(*, summary: str, responses: dict, description: str = "", body: bool = False, errors=(), **kwargs):
    """extend_schema with the errors every endpoint can answer, plus the ones this endpoint adds."""
    statuses = {401, 404, 405, 406, 429, 500} | ({400, 413, 415} if body else set()) | set(errors)
    all_responses = {**{s: ERRORS[s] for s in sorted(statuses)}, **responses}
    return extend_schema(summary=summary, description=description, responses=all_responses, **kwargs)


PATH_PARAMETERS = {
    "external_id": (
        {"type": "string", "minLength": 1, "maxLength": 200},
        "Your id for the end user (created on first write; unknown on a read: 404), percent-encoded as "
        "one path segment: 'team/eve' is team%2Feve, '50%off' is 50%25off (docs/api.md \"User ids\").",
    ),
    "id": ({"type": "integer", "minimum": 1}, "The object's id, within your tenant."),
    "note_id": ({"type": "integer", "minimum": 1}, "The note the memory change wrote (its event's note_id)."),
}


def reject_unknown_fields_hook(result, generator, request, public):
    """Request bodies are StrictSerializers: say so in the schema. Path parameters get their description."""
    for name, component in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request") and component.get("type") == "object":
            component["additionalProperties"] = False
    for item in result.get("paths", {}).values():
        for operation in item.values():
            for parameter in operation.get("parameters", []) if isinstance(operation, dict) else []:
                known = PATH_PARAMETERS.get(parameter.get("name")) if parameter.get("in") == "path" else None
                if known:
                    parameter["schema"], parameter["description"] = dict(known[0]), known[1]
    return result
