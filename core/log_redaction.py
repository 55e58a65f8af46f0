"""Logs carry no user content: no message text, no query text, no external ids (docs/reliability.md "Logs").

Every log record of every platform process (uvicorn's access log, Django's `django.request` warnings, the
application's loggers, the Celery workers and beat) is rewritten when it is created, before any handler sees it:

- a user's external id in a path (`/api/v1/users/<id>/...`) becomes `~` and a keyed hash of it;
- every query-string value (`?q=...`, `?user=...`, the admin's `?q=`) becomes a keyed hash, except the few
  parameters that never carry user content (`NEUTRAL_PARAMETERS`: page numbers, sizes, kinds and statuses).

The hash is an HMAC with a per-install key (derived from SECRET_KEY, salted for this use): the same id gives
the same token within one install, so an operator can still follow one client's requests, but the token cannot
be turned back into the id, and no other install produces it. Erasing a user therefore leaves nothing of theirs in
the logs. Message text never reaches a log line: the application logs ids (session, message, job), never text.

Installed through Django's LOGGING_CONFIG hook (`configure_logging`), which every process runs in django.setup():
a record factory, not a handler filter, because Celery replaces the root logger's handlers with its own.
"""

from __future__ import annotations

import logging
import logging.config
import re
from urllib.parse import parse_qsl, quote, unquote

from django.conf import settings
from django.utils.crypto import salted_hmac

HASH_SALT = "core.log_redaction"
# Query parameters whose values are never user content: kept as they are, so logs stay useful.
NEUTRAL_PARAMETERS = frozenset(
    {"page", "page_size", "limit", "offset", "k", "kind", "status", "source", "format", "lang", "o", "p", "all"}
)
# In free text, a path segment after `users/` is taken for an external id.
_USER_SEGMENT = re.compile(r"(/users/)([^/?#\s\"']+)")
# In a path, everything between `users/` and the endpoint's own tail is the id, which may hold `/` itself (an
# id `team/eve` reaches uvicorn's log decoded: /api/v1/users/team/eve/memories/).
_USER_ROUTE_TAIL = re.compile(
    r"^(?P<id>.*?)(?P<tail>/(?:(?:sessions|memories|memories/forget|recall|tasks|export)/)?)?$"
)
# A query string in a path or a URL inside free text: `?name=value&...`, up to white space or a quote.
_QUERY = re.compile(r"\?([^\s\"'#]*=[^\s\"'#]*)")


def pseudonym(value: str) -> str:
    """`~` and 12 hex digits of an HMAC of `value` with this install's key."""
    value = unquote(value)  # `a%20b` in one log and `a b` in another are the same id
    return "~" + salted_hmac(HASH_SALT, value, secret=settings.SECRET_KEY, algorithm="sha256").hexdigest()[:12]


def _redact_query(match: re.Match) -> str:
    parts = []
    for name, value in parse_qsl(match.group(1), keep_blank_values=True):
        shown = value if name in NEUTRAL_PARAMETERS and value.isascii() and len(value) <= 20 else pseudonym(value)
        parts.append(f"{quote(name, safe='')}={shown}")
    return "?" + "&".join(parts)


def redact_path(path: str) -> str:
    """A request path (with or without its query string) as it may be logged: the external id of a
    `/users/<id>/...` path and the query-string values replaced by pseudonyms."""
    path, mark, query = path.partition("?")
    if "/users/" in path:
        head, _, rest = path.partition("/users/")
        route = _USER_ROUTE_TAIL.match(rest)
        if route and route.group("id"):
            path = f"{head}/users/{pseudonym(route.group('id'))}{route.group('tail') or ''}"
    return path + (_QUERY.sub(_redact_query, mark + query) if mark else "")


def redact(text: str) -> str:
    """`text` with every external id in a `/users/<id>/` path and every query-string value replaced by its
    pseudonym (the rest of the text unchanged)."""
    if "/users/" not in text and "?" not in text:
        return text
    text = _USER_SEGMENT.sub(lambda m: m.group(1) + pseudonym(m.group(2)), text)
    return _QUERY.sub(_redact_query, text)


def _redact_record(record: logging.LogRecord) -> None:
    if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) == 5:
        # uvicorn's access line: (client, method, path with query, HTTP version, status); its formatter reads args.
        client, method, path, version, status = record.args
        record.args = (client, method, redact_path(str(path)), version, status)
        return
    if isinstance(record.args, tuple) and any(isinstance(a, str) and a.startswith("/") for a in record.args):
        # A path given as an argument (django.request's "Not Found: %s"): the whole id, even one holding '/'.
        record.args = tuple(redact_path(a) if isinstance(a, str) and a.startswith("/") else a for a in record.args)
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a malformed record is logging's to report, not ours to hide
        return
    redacted = redact(message)
    if redacted != message:
        record.msg, record.args = redacted, None


_previous_factory = logging.getLogRecordFactory()


def _redacting_factory(*args, **kwargs) -> logging.LogRecord:
    record = _previous_factory(*args, **kwargs)
    _redact_record(record)
    return record


def install() -> None:
    """Redact every log record this process creates from now on (idempotent)."""
    if logging.getLogRecordFactory() is not _redacting_factory:
        logging.setLogRecordFactory(_redacting_factory)


def configure_logging(logging_settings: dict | None) -> None:
    """LOGGING_CONFIG: Django's dictConfig of LOGGING, then the redaction (see the module docstring)."""
    if logging_settings:
        logging.config.dictConfig(logging_settings)
    install()
