"""Guards for every /api/ request that work before (and around) the views.

- 413 from the Content-Length header, before any of the body is read (the JSON parser enforces the same limit
  for bodies sent without a length).
- Any non-JSON error response under /api/ (Django's 404 for an unknown address, a 500 from outside DRF) is
  replaced by the API's error body, so a client never gets an HTML page or a stack trace.
"""
from __future__ import annotations

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.utils.decorators import sync_and_async_middleware

from api.errors import error_response

API_PREFIX = "/api/"


def _too_large(request):
    if not request.path.startswith(API_PREFIX):
        return None
    raw = request.META.get("CONTENT_LENGTH") or "0"
    try:
        length = int(raw)
    except ValueError:
        return error_response(400, "bad_request", "The Content-Length header is not a number.")
    limit = settings.API_MAX_REQUEST_BYTES
    if length > limit:
        return error_response(413, "request_too_large",
                              f"The request body is {length} bytes; the limit is {limit} bytes.",
                              {"limit_bytes": limit, "received_bytes": length})
    return None


def _as_json_error(request, response):
    if (request.path.startswith(API_PREFIX) and response.status_code >= 400
            and not response.get("Content-Type", "").startswith("application/json")
            and not getattr(response, "streaming", False)):
        headers = {name: response[name] for name in ("Retry-After", "Allow", "WWW-Authenticate") if name in response}
        return error_response(response.status_code, headers=headers)
    return response


@sync_and_async_middleware
def api_guard_middleware(get_response):
    if iscoroutinefunction(get_response):
        async def middleware(request):
            early = _too_large(request)
            if early is not None:
                return early
            return _as_json_error(request, await get_response(request))
    else:
        def middleware(request):
            early = _too_large(request)
            if early is not None:
                return early
            return _as_json_error(request, get_response(request))
    return middleware
