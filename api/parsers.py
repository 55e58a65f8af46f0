"""JSON bodies only, with the size limit enforced while reading (for bodies sent without Content-Length)."""
from __future__ import annotations

import json

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


class LimitedJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.API_MAX_REQUEST_BYTES
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise RequestTooLarge(f"The request body is larger than the limit of {limit} bytes.")
        try:
            return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
        except UnicodeDecodeError:
            raise ParseError("the body is not UTF-8 text.")
        except ValueError as exc:
            raise ParseError(str(exc))
