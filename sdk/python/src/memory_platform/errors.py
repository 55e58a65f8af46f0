"""Every error the API answers, as an exception class. Each carries `code`, `message`, `details` and `status`.

The API's error body is always {"error": {"code", "message", "details"}}. The class is chosen by `code`; a code
this SDK does not know yet falls back to the class of its HTTP status, so a newer server never breaks an older
client.
"""

from __future__ import annotations


class ApiError(Exception):
    """A request the API refused or could not complete. `message` is a sentence for a person; `code` is stable
    for programs; `details` says more (e.g. which field, or `retry_after_seconds`)."""

    code = "error"
    status = 0

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        details: dict | None = None,
        status: int | None = None,
        headers: dict | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.code = code or type(self).code
        self.details = details or {}
        self.status = status if status is not None else type(self).status
        self.headers = headers or {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, code={self.code!r}, message={self.message!r})"


class ConnectionFailed(ApiError):
    """The server could not be reached (after the retries)."""

    code = "connection_failed"


# --- by status ---------------------------------------------------------------------------------------------------
class BadRequest(ApiError):
    code, status = "bad_request", 400


class Unauthenticated(ApiError):
    code, status = "unauthenticated", 401


class Forbidden(ApiError):
    code, status = "forbidden", 403


class NotFound(ApiError):
    code, status = "not_found", 404


class MethodNotAllowed(ApiError):
    code, status = "method_not_allowed", 405


class NotAcceptable(ApiError):
    code, status = "not_acceptable", 406


class Conflict(ApiError):
    code, status = "conflict", 409


class VersionMismatch(ApiError):
    """If-Match named a version the object no longer has (someone changed it since): read it again;
    `details["version"]` is the current one."""

    code, status = "version_mismatch", 412


class RequestTooLarge(ApiError):
    code, status = "request_too_large", 413


class UnsupportedMediaType(ApiError):
    code, status = "unsupported_media_type", 415


class Throttled(ApiError):
    """429: `retry_after` is the server's Retry-After, in seconds."""

    code, status = "throttled", 429

    @property
    def retry_after(self) -> float | None:
        value = self.details.get("retry_after_seconds")
        return float(value) if value is not None else None


class QuotaExceeded(Throttled):
    """429: a usage limit of the tenant, an assistant or an end user is used up. Not retried by the clients: it
    lasts until the limit resets (`retry_after` seconds, `details["resets_at"]`) or is raised; `details["limit"]`
    names it, e.g. "user.tokens_per_day"."""

    code = "quota_exceeded"


class InternalError(ApiError):
    code, status = "internal_error", 500


class NotImplementedYet(ApiError):
    code, status = "not_implemented", 501


class Unavailable(ApiError):
    code, status = "unavailable", 503


# --- by code -----------------------------------------------------------------------------------------------------
class InvalidInput(BadRequest):
    """A field is missing or wrong; `details` names the fields."""

    code = "invalid"


class MalformedJson(BadRequest):
    code = "malformed_json"


class JsonTooDeep(BadRequest):
    """The JSON body nests deeper than the server accepts."""

    code = "json_too_deep"


class NulCharacter(BadRequest):
    code = "nul_character"


class MessageTooLong(BadRequest):
    code = "message_too_long"


class PiiRefused(BadRequest):
    """A note or fact was nothing but a personal identifier, which is never stored."""

    code = "pii_refused"


class InvalidIdempotencyKey(BadRequest):
    code = "invalid_idempotency_key"


class ExportTooLarge(BadRequest):
    """The MCP export tool's answer would be too large; download the REST export instead."""

    code = "export_too_large"


class InvalidUrl(BadRequest):
    """A webhook URL that is not http(s) with a host, or carries credentials."""

    code = "invalid_url"


class UrlNotPublic(BadRequest):
    """A webhook URL whose host resolves to a private, loopback or link-local address (production)."""

    code = "url_not_public"


class UnknownTool(BadRequest):
    """A chat turn's `tool_choice` names no tool its assistant may call."""

    code = "unknown_tool"


class InvalidSchema(BadRequest):
    """A tool's `parameters` is not a valid JSON Schema of an object."""

    code = "invalid_schema"


class InvalidName(BadRequest):
    """A tool name that is not 1-64 letters, digits, '_' or '-', or the name of a built-in tool."""

    code = "invalid_name"


class Duplicate(BadRequest):
    """Something with that name exists already (a tool)."""

    code = "duplicate"


class PersonalIdentifier(BadRequest):
    """A note created or corrected with a personal identifier in it (phone, ID, card, IBAN, e-mail, address...)."""

    code = "personal_identifier"


class NotLatest(BadRequest):
    """Only the latest reply can be regenerated, and only the latest message edited."""

    code = "not_latest"


class Unchanged(BadRequest):
    """An edit that changes nothing."""

    code = "unchanged"


class UserNotFound(NotFound):
    code = "user_not_found"


class UserBeingErased(Conflict):
    code = "user_being_erased"


class NoteForgotten(Conflict):
    code = "note_forgotten"


class IdempotencyKeyReused(Conflict):
    """The same Idempotency-Key was sent with another body."""

    code = "idempotency_key_reused"


class IdempotencyInProgress(Conflict):
    """A request with this Idempotency-Key is still running; retry shortly."""

    code = "idempotency_in_progress"


class DatabaseUnavailable(Unavailable):
    code = "database_unavailable"


class ModelUnavailable(Unavailable):
    code = "model_unavailable"


class GenericError(ApiError):
    code = "error"


BY_STATUS: dict[int, type[ApiError]] = {
    cls.status: cls
    for cls in (
        BadRequest,
        Unauthenticated,
        Forbidden,
        NotFound,
        MethodNotAllowed,
        NotAcceptable,
        Conflict,
        VersionMismatch,
        RequestTooLarge,
        UnsupportedMediaType,
        Throttled,
        InternalError,
        NotImplementedYet,
        Unavailable,
    )
}


def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


BY_CODE: dict[str, type[ApiError]] = {cls.code: cls for cls in _all_subclasses(ApiError)}


def error_from_response(status: int, body, headers: dict | None = None) -> ApiError:
    """The exception for an error answer (any status >= 400), whatever its body."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        cls = BY_STATUS.get(status, InternalError if status >= 500 else BadRequest)
        return cls(f"The server answered {status} without an error body.", status=status, headers=headers)
    code = str(error.get("code") or "error")
    found = BY_CODE.get(code)
    cls = (
        found
        if found is not None and not (found.status and found.status != status and code != "error")
        else BY_STATUS.get(status, InternalError if status >= 500 else BadRequest)
    )
    details = error.get("details") if isinstance(error.get("details"), dict) else {"details": error.get("details")}
    return cls(str(error.get("message") or ""), code=code, details=details, status=status, headers=headers)
