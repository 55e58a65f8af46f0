"""JSON bodies only, with the size limit enforced while reading (for bodies sent without Content-Length) and a
nesting limit: JSON_MAX_DEPTH levels of arrays and objects (a body of 100,000 '[' crashed the parser's recursion)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"
    default_detail = "The request body is too large."


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def json_depth_exceeds(value, limit: int) -> bool:
    """True when `value` nests arrays/objects more than `limit` levels deep (iterative: no recursion to blow)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


class JSONTooDeep(ParseError):
    default_code = "json_too_deep"


class LimitedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.API_MAX_REQUEST_BYTES
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise RequestTooLarge(f"The request body is larger than the limit of {limit} bytes.")
        depth = settings.JSON_MAX_DEPTH
        too_deep = JSONTooDeep(f"the body nests arrays and objects more than {depth} levels deep.")
        try:
            data = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
        except UnicodeDecodeError:
            raise ParseError("the body is not UTF-8 text.") from None
        except RecursionError:  # deeper than the interpreter's recursion limit, so far deeper than `depth`
            raise too_deep from None
        except ValueError as exc:
            raise ParseError(str(exc)) from exc
        if json_depth_exceeds(data, depth):
            raise too_deep
        return data
