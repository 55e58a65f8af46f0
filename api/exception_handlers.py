"""The API's one exception handler: every error, from DRF, from a service or unexpected, becomes
{"error": {"code", "message", "details"}} with a sentence a person can act on (never a stack trace)."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404
from rest_framework import exceptions as drf
from rest_framework.response import Response

from api.errors import error_body, error_for_status
from core.exceptions import ApplicationError

logger = logging.getLogger(__name__)


def _validation_message(detail) -> str:
    """The first problem, as a sentence: "message: This field is required." """
    if isinstance(detail, dict):
        for field, problems in detail.items():
            first = _validation_message(problems)
            if field == "non_field_errors":
                return first
            return f"{field}: {first}"
    if isinstance(detail, list) and detail:
        return _validation_message(detail[0])
    return str(detail)


def _details(detail):
    if isinstance(detail, (dict, list)):
        return {"fields": detail} if isinstance(detail, dict) else {"problems": detail}
    return {}


def api_exception_handler(exc, context):
    headers = {}
    from core.middleware import database_error_as_application_error

    mapped = database_error_as_application_error(exc)  # database down: 503; NUL in text: 400
    if mapped is not None:
        if mapped.status == 503:
            headers["Retry-After"] = str(mapped.details.get("retry_after_seconds", 30))
        return Response(error_body(mapped.code, mapped.message, mapped.details), status=mapped.status, headers=headers)
    if isinstance(exc, ApplicationError):
        if exc.status in (429, 503) and "retry_after_seconds" in exc.details:  # e.g. quota_exceeded (usage.quotas)
            headers["Retry-After"] = str(exc.details["retry_after_seconds"])
        return Response(error_body(exc.code, exc.message, exc.details), status=exc.status, headers=headers)
    if isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf.PermissionDenied()
    if isinstance(exc, drf.APIException):
        status = exc.status_code
        code, message = error_for_status(status)
        details = {}
        if isinstance(exc, drf.ValidationError):
            code, message, details = "invalid", _validation_message(exc.detail), _details(exc.detail)
        elif isinstance(exc, drf.ParseError) and exc.get_codes() == "json_too_deep":
            code, message = "json_too_deep", f"The body is not accepted: {exc.detail}"
            details = {"max_depth": settings.JSON_MAX_DEPTH}
        elif isinstance(exc, drf.ParseError):
            code, message = "malformed_json", f"The body is not valid JSON: {exc.detail}"
        elif isinstance(exc, drf.Throttled):
            # drf-stubs do not declare Throttled.wait (DRF sets it in __init__): a stubs gap, not a missing attribute
            wait = int(exc.wait or 1) if exc.wait is not None else 1  # type: ignore[attr-defined]
            sentence = getattr(exc, "sentence", "Too many requests for this API key")  # api.authentication
            message = f"{sentence}; retry in {wait} seconds."
            details = {"retry_after_seconds": wait}
            headers["Retry-After"] = str(wait)
        elif isinstance(exc, drf.MethodNotAllowed):
            message = f"This address does not accept {context['request'].method}."
        elif isinstance(exc, drf.UnsupportedMediaType):
            got = context["request"].content_type or "no content type"
            message = f"Send the body as JSON with 'Content-Type: application/json' (got '{got}')."
        elif isinstance(exc.detail, str) and exc.detail != str(type(exc).default_detail):
            message = str(exc.detail)  # a specific sentence (e.g. "That API key was revoked ...")
        if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
            status = 401
            headers["WWW-Authenticate"] = 'Bearer realm="api"'
        return Response(error_body(code, message, details), status=status, headers=headers)
    logger.exception("Unhandled error in API view %s", context.get("view").__class__.__name__, exc_info=exc)
    code, message = error_for_status(500)
    return Response(error_body(code, message), status=500)
