"""Conditional requests (RFC 9110 section 13): the `ETag` an object is sent with and the `If-Match` a change may
carry. The version itself comes from the owning layer (memory.services.notes.note_versions); here only the header."""

from __future__ import annotations

import re

from core.exceptions import InvalidInput

# One entity tag: optionally weak (W/), then a quoted string of visible characters without quotes.
ENTITY_TAG = re.compile(r'\s*(W/)?"([\x21\x23-\x7e]*)"\s*')


def etag(version: str) -> str:
    return f'"{version}"'


def if_match(request) -> set[str] | None:
    """The versions the request's If-Match accepts: None without the header (no condition), {"*"} for any.

    A weak tag (W/"...") is kept with its prefix, so it never matches: If-Match compares strongly. A header that
    is not a list of quoted tags is refused, so a mistyped condition never turns into no condition."""
    raw = request.headers.get("If-Match")
    if raw is None:
        return None
    if raw.strip() == "*":
        return {"*"}
    versions, position = set(), 0
    while position < len(raw):
        found = ENTITY_TAG.match(raw, position)
        if not found:
            break
        versions.add(("W/" if found.group(1) else "") + found.group(2))
        position = found.end()
        if position < len(raw) and raw[position] != ",":
            break
        position += 1
    else:
        if versions:
            return versions
    raise InvalidInput(
        'The If-Match header must hold the note\'s ETag as GET sent it, in double quotes (If-Match: "3f2a...").'
    )
