"""Guards for every /api/ request that work before (and around) the views.

- 413 from the Content-Length header, before any of the body is read (the JSON parser enforces the same limit
  for bodies sent without a length).
- User ids are one path segment: a '/' in an id arrives percent-encoded (%2F), and since the server decodes the
  path before Django sees it, the API's path is rebuilt from the raw path with '%' and '/' inside a segment
  kept encoded (`api_path_info`); api/urls.py's `external_id` converter decodes them back.
- Any non-JSON error response under /api/ (Django's 404 for an unknown address, a 500 from outside DRF) is
  replaced by the API's error body, so a client never gets an HTML page or a stack trace.
"""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.http import HttpResponsePermanentRedirect
from django.utils.decorators import sync_and_async_middleware

from api.errors import error_response

API_PREFIX = "/api/"


def _segment(text: str) -> str:
    return text.replace("%", "%25").replace("/", "%2F")


def api_path_info(request) -> str | None:
    """The /api/ path with each segment's own '%' and '/' percent-encoded, or None to leave the path alone.

    Under ASGI it comes from the raw path, so that `users/team%2Feve/` stays one segment; elsewhere (the test
    client) only the decoded path exists, and its '%' are encoded so that the converter decodes every id alike."""
    scope = getattr(request, "scope", None)
    raw = scope.get("raw_path") if scope is not None and not scope.get("root_path") else None
    if raw:
        try:
            segments = [unquote_to_bytes(part).decode("utf-8") for part in raw.split(b"/")]
        except UnicodeDecodeError:
            return None  # not UTF-8: Django's own decoding of the path answers it
        path = "/".join(_segment(part) for part in segments)
    else:
        path = "/".join(_segment(part) for part in request.path_info.split("/"))
    return path if path.startswith(API_PREFIX) else None


def _route_user_ids(request):
    """Route on the encoded path. Links built from the request must use it too (api.pagination does): the
    decoded `request.path` names another user. A GET of such an address without its final slash is redirected
    here, to the encoded address (CommonMiddleware's slash redirect would build it from the decoded path)."""
    if not request.path_info.startswith(API_PREFIX) or request.META.get("SCRIPT_NAME"):
        return None
    path = api_path_info(request)
    if path is None:
        return None
    request.path_info = path
    if "%2F" in path and not path.endswith("/") and request.method in ("GET", "HEAD"):
        query = request.META.get("QUERY_STRING", "")
        return HttpResponsePermanentRedirect(request.build_absolute_uri(path + "/" + (f"?{query}" if query else "")))
    return None


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
        return error_response(
            413,
            "request_too_large",
            f"The request body is {length} bytes; the limit is {limit} bytes.",
            {"limit_bytes": limit, "received_bytes": length},
        )
    return None


def _as_json_error(request, response):
    if (
        request.path.startswith(API_PREFIX)
        and response.status_code >= 400
        and not response.get("Content-Type", "").startswith("application/json")
        and not getattr(response, "streaming", False)
    ):
        headers = {name: response[name] for name in ("Retry-After", "Allow", "WWW-Authenticate") if name in response}
        return error_response(response.status_code, headers=headers)
    return response


@sync_and_async_middleware
def api_guard_middleware(get_response):
    if iscoroutinefunction(get_response):

        async def middleware(request):
            early = _route_user_ids(request) or _too_large(request)
            if early is not None:
                return early
            return _as_json_error(request, await get_response(request))
    else:

        def middleware(request):
            early = _route_user_ids(request) or _too_large(request)
            if early is not None:
                return early
            return _as_json_error(request, get_response(request))

    return middleware
