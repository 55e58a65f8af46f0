"""A database outage answers 503 with one clear sentence (JSON for the API, a small page for people), never a
500 with a stack trace, and the process recovers by itself once PostgreSQL is back (CONN_HEALTH_CHECKS).
Text with a NUL character (PostgreSQL cannot store one) that slipped past a form or service check is a 400.

Django turns an exception into a response at the layer that raised it (`convert_exception_to_response`), so a
view's error reaches `process_exception`, but one raised inside another middleware (a session save, say) would
already be a 500 by the time it got here. The `got_request_exception` signal is sent for both, so it marks the
request, and the outermost layer replaces whatever response came back.
"""

from __future__ import annotations

import logging
import sys

import psycopg
from django.core.signals import got_request_exception
from django.db import DataError, InterfaceError, OperationalError, connections
from django.dispatch import receiver
from django.http import HttpResponse, JsonResponse
from django.utils.html import escape

from core.exceptions import ApplicationError, InvalidInput, ServiceUnavailable

logger = logging.getLogger(__name__)

DATABASE_ERRORS = (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)
MESSAGE = (
    "The database is not reachable right now, so this request could not be completed; "
    "nothing was changed. Please try again in a minute."
)
NUL_MESSAGE = "The text contains a NUL character (\\0), which cannot be stored: remove it and send again."
RETRY_AFTER_SECONDS = 30
_MARK = "_database_error"


def database_error_as_application_error(exc: BaseException) -> ApplicationError | None:
    """The ApplicationError a person should see for a database-level failure, or None when it is not one.
    (The API's exception handler uses this too, so /api/ answers in its own error format.)"""
    if isinstance(exc, DATABASE_ERRORS):
        return ServiceUnavailable(
            MESSAGE, code="database_unavailable", details={"retry_after_seconds": RETRY_AFTER_SECONDS}
        )
    if isinstance(exc, (DataError, psycopg.DataError)) and "NUL" in str(exc):
        return InvalidInput(NUL_MESSAGE, code="nul_character")
    return None


@receiver(got_request_exception)
def _mark_database_error(sender, request=None, **kwargs):
    exc = sys.exc_info()[1]
    if request is not None and exc is not None and database_error_as_application_error(exc) is not None:
        setattr(request, _MARK, exc)


def wants_json(request) -> bool:
    accept = request.headers.get("Accept", "")
    return (
        request.path.startswith("/api/")
        or request.path == "/healthz"
        or request.content_type == "application/json"
        or ("json" in accept and "html" not in accept)
    )


def error_response(request, error: ApplicationError) -> HttpResponse:
    response: HttpResponse
    if wants_json(request):
        response = JsonResponse(
            {"error": {"code": error.code, "message": error.message, "details": error.details}}, status=error.status
        )
    else:
        title = "Temporarily unavailable" if error.status == 503 else "Request not accepted"
        response = HttpResponse(
            f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
            f"<body><h1>{title}</h1><p>{escape(error.message)}</p></body></html>",
            status=error.status,
            content_type="text/html; charset=utf-8",
        )
    if error.status == 503:
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


class DatabaseUnavailableMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        exc = getattr(request, _MARK, None)
        if exc is not None:
            return self._unavailable(request, exc)
        return response

    def process_exception(self, request, exception):
        if database_error_as_application_error(exception) is not None:
            return self._unavailable(request, exception)
        return None

    def _unavailable(self, request, exc) -> HttpResponse:
        error = database_error_as_application_error(exc)
        if error is None:  # only called for the database errors process_exception recognised
            raise exc
        if error.status != 503:
            return error_response(request, error)
        logger.warning(
            "database unavailable during %s %s: %s",
            request.method,
            request.path,
            str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
        )
        # Drop the broken connection now so that the next request reconnects instead of reusing it.
        for conn in connections.all(initialized_only=True):
            try:
                if conn.connection is not None and not conn.is_usable():
                    conn.close()
            except Exception:  # noqa: BLE001 - closing a dead connection may itself fail
                pass
        return error_response(request, error)
