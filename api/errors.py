"""The one error body of the API: {"error": {"code", "message", "details"}}. Used by the DRF exception handler
and by the middleware for errors that never reach a view (413, unknown URLs, crashes outside DRF)."""

from __future__ import annotations

from django.http import JsonResponse

# A sentence and a stable code for each status that can reach a client without a more specific message.
STATUS_ERRORS = {
    400: ("bad_request", "The request could not be understood; check the JSON body and the parameters."),
    401: ("unauthenticated", "Send a valid API key as 'Authorization: Bearer <key>'."),
    403: ("forbidden", "This API key may not do that."),
    404: ("not_found", "Nothing exists at this address."),
    405: ("method_not_allowed", "This address does not accept that HTTP method."),
    406: ("not_acceptable", "This address answers with application/json (or text/event-stream for chat)."),
    413: ("request_too_large", "The request body is too large."),
    415: ("unsupported_media_type", "Send the body as JSON with 'Content-Type: application/json'."),
    429: ("throttled", "Too many requests for this API key; retry after the time in Retry-After."),
    500: ("internal_error", "Something went wrong on our side; the request was not completed. Try again."),
    503: ("unavailable", "The service is temporarily unavailable; try again shortly."),
}


def error_body(code: str, message: str, details=None) -> dict:
    return {"error": {"code": code, "message": message, "details": details if details is not None else {}}}


def error_for_status(status: int) -> tuple[str, str]:
    return STATUS_ERRORS.get(
        status, ("error" if status < 500 else "internal_error", STATUS_ERRORS[400 if status < 500 else 500][1])
    )


def error_response(
    status: int, code: str | None = None, message: str | None = None, details=None, headers: dict | None = None
) -> JsonResponse:
    default_code, default_message = error_for_status(status)
    response = JsonResponse(
        error_body(code or default_code, message or default_message, details),
        status=status,
        json_dumps_params={"ensure_ascii": False},
    )
    for name, value in (headers or {}).items():
        response[name] = value
    return response
