"""The rule for a user's external id, one for every way in (REST, MCP, the web chat's sign-up, services).

An id is what staff read in the admin and what an integrator's logs show: a character a person cannot see (a
right-to-left override, a zero-width space, a soft hyphen, a Hangul filler) would let two ids look alike or one
look like another, so new ids refuse them. Ids stored before this rule keep working: reads never apply it, writes
apply it only when they would create the user, and the admin shows such ids with the invisible characters escaped
(`external_id_shown`).
"""

from __future__ import annotations

import unicodedata

EXTERNAL_ID_RULE = (
    "A user id is 1 to 200 characters of any script, without control or invisible characters (such as "
    "right-to-left overrides or zero-width spaces), and not '.' or '..'. In a URL, percent-encode it as one "
    "path segment ('/' as %2F, '%' as %25, '?' as %3F, '#' as %23, a space as %20)."
)
MAX_EXTERNAL_ID_CHARS = 200

# Unicode general categories a person cannot see or that change how text around them is shown: controls (Cc),
# format characters (Cf: bidi controls, zero-width space/joiners, soft hyphen, BOM), surrogates (Cs), private use
# (Co), unassigned (Cn), line and paragraph separators (Zl, Zp).
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Letters and marks that render as nothing although their category says otherwise.
INVISIBLE_CHARACTERS = frozenset(
    "\u034f"  # combining grapheme joiner (Mn)
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers (Lo)
    "\u2800"  # braille pattern blank (So)
    "\u180e"  # Mongolian vowel separator
)


def invisible_character(text: str) -> str | None:
    """The first character of `text` a person cannot see, or None."""
    return next((char for char in text if _invisible(char)), None)


def external_id_problem(external_id) -> str | None:
    """Why `external_id` cannot be a new user id (docs/api.md "User ids"), or None. Every id accepted here can be
    addressed by every /users/<id>/ endpoint: '.' and '..' are refused because HTTP clients rewrite them away."""
    if not isinstance(external_id, str) or not external_id or len(external_id) > MAX_EXTERNAL_ID_CHARS:
        return f"The user id must be 1 to 200 characters. {EXTERNAL_ID_RULE}"
    if any(ord(c) < 32 for c in external_id):
        return f"The user id contains a control character. {EXTERNAL_ID_RULE}"
    if external_id in (".", ".."):
        return f"The user id cannot be '.' or '..'. {EXTERNAL_ID_RULE}"
    try:
        external_id.encode("utf-8")
    except UnicodeEncodeError:
        return f"The user id contains invalid characters (unpaired surrogates). {EXTERNAL_ID_RULE}"
    char = invisible_character(external_id)
    if char is not None:
        return (
            f"The user id contains an invisible character (U+{ord(char):04X} {unicodedata.name(char, 'unnamed')}). "
            f"{EXTERNAL_ID_RULE}"
        )
    return None


def external_id_addressable(external_id) -> bool:
    """Whether a stored user could have this id: the length only, so that ids stored before the invisible-character
    rule are still found (a read never creates anything, so it needs no more)."""
    return isinstance(external_id, str) and 0 < len(external_id) <= MAX_EXTERNAL_ID_CHARS


def external_id_shown(external_id: str) -> str:
    """The id as staff should read it: every invisible character written as its escape (`\\u202e`), so that an
    id stored before the rule cannot disguise itself in the admin."""
    return "".join(_escaped(c) if _invisible(c) else c for c in external_id)


def _invisible(char: str) -> bool:
    return char in INVISIBLE_CHARACTERS or unicodedata.category(char) in INVISIBLE_CATEGORIES


def _escaped(char: str) -> str:
    return f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}"
