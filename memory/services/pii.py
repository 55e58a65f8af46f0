"""Deterministic detection of personal identifiers. Nothing that matches may reach a memory note, a summary, an
experience or an embedding.

Covered: Chinese mobile numbers (+86 optional), 18-digit resident ID numbers (ISO 7064 check digit), bank/credit
card numbers (13-19 digits, Luhn), e-mail addresses, passport numbers (CN E/G + 8 digits, and generic letter +
digit forms after the word passport/护照), international phone numbers (+CC ...). Full-width digits and
separators (spaces, dashes, dots) are normalised first, so "１３８ ００１３-８０００" is still found.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

REDACTED = "[已隐去]"


@dataclass(frozen=True)
class PiiMatch:
    kind: str
    start: int
    end: int


def _normalise(text: str) -> str:
    # NFKC turns full-width digits/letters into ASCII one for one; keep the same length for offsets.
    return "".join(unicodedata.normalize("NFKC", ch) if len(unicodedata.normalize("NFKC", ch)) == 1 else ch
                   for ch in text)


_SEP = r"[\s\-\.]?"
_EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}")
_CN_MOBILE = re.compile(rf"(?<!\d)(?:\+?86{_SEP})?1[3-9]\d{_SEP}\d{{4}}{_SEP}\d{{4}}(?!\d)")
_CN_ID = re.compile(r"(?<!\d)\d{6}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?!\d)")
_CARD = re.compile(rf"(?<!\d)\d(?:{_SEP}?\d){{12,18}}(?!\d)")
_PASSPORT = re.compile(r"(?<![A-Za-z0-9])[EeGg]\d{8}(?!\d)")
_PASSPORT_CTX = re.compile(r"(?:passport|护照)[^A-Za-z0-9]{0,12}([A-Za-z]{1,2}\d{6,9})", re.IGNORECASE)
_INTL_PHONE = re.compile(rf"(?<![A-Za-z0-9+])\+\d{{1,3}}(?:{_SEP}\(?\d{{1,4}}\)?){{2,5}}(?!\d)")

_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
_ID_CHECK = "10X98765432"


def cn_id_valid(number: str) -> bool:
    if len(number) != 18 or not number[:17].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS))
    return _ID_CHECK[total % 11] == number[17].upper()


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def pii_find(text: str) -> list[PiiMatch]:
    """Every identifier in `text`, as (kind, start, end) over the original string."""
    if not text:
        return []
    norm = _normalise(text)
    found: list[PiiMatch] = []

    def add(kind, start, end):
        found.append(PiiMatch(kind, start, end))

    for m in _EMAIL.finditer(norm):
        add("email", m.start(), m.end())
    for m in _CN_ID.finditer(norm):
        if cn_id_valid(m.group()):
            add("cn_id_number", m.start(), m.end())
    for m in _CN_MOBILE.finditer(norm):
        add("cn_mobile", m.start(), m.end())
    for m in _CARD.finditer(norm):
        digits = re.sub(r"\D", "", m.group())
        if 13 <= len(digits) <= 19 and luhn_valid(digits):
            add("bank_card", m.start(), m.end())
    for m in _PASSPORT.finditer(norm):
        add("passport", m.start(), m.end())
    for m in _PASSPORT_CTX.finditer(norm):
        add("passport", m.start(1), m.end(1))
    for m in _INTL_PHONE.finditer(norm):
        if len(re.sub(r"\D", "", m.group())) >= 8:
            add("phone", m.start(), m.end())
    # Overlapping candidates are merged into one span (the earliest names the kind): skipping the second
    # could leave part of an identifier behind, e.g. "+1 000 000 0000 (130 0000 0000)".
    merged: list[PiiMatch] = []
    for m in sorted(found, key=lambda m: (m.start, -m.end)):
        if merged and m.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = PiiMatch(last.kind, last.start, max(last.end, m.end))
        else:
            merged.append(m)
    return merged


def pii_redact(text: str) -> tuple[str, dict[str, int]]:
    """`text` with every identifier replaced by a placeholder, and the count per kind that was removed."""
    matches = pii_find(text)
    counts: dict[str, int] = {}
    out, pos = [], 0
    for m in matches:
        out.append(text[pos:m.start])
        out.append(REDACTED)
        pos = m.end
        counts[m.kind] = counts.get(m.kind, 0) + 1
    out.append(text[pos:])
    return "".join(out), counts


def pii_contains(text: str) -> bool:
    return bool(pii_find(text))
