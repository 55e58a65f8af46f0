"""Deterministic detection of personal identifiers. Nothing that matches may reach a memory note, a summary, an
experience or an embedding.

Covered: Chinese mobile numbers (+86 optional), 18-digit resident ID numbers (ISO 7064 check digit), bank/credit
card numbers (13-19 digits, Luhn), e-mail addresses, passport numbers (CN E/G + 8 digits, and generic letter +
digit forms after the word passport/护照), international phone numbers (+CC ...). Full-width digits and
separators (spaces, dashes, dots) are normalised first, so "１３８ ００１３-８０００" is still found.

Hardened (issue 4): numbers spelled in Chinese digits ("一三八零零一三八零零零"), 15-digit first-generation ID
numbers (valid birth date), Chinese landlines (010-12345678), North American phone numbers ((415) 555-2671),
US social security numbers (123-45-6789), IBANs (mod-97 check), CN passports of the E + letter + 7 digits form,
and e-mail addresses written as "name (at) example (dot) com" / "name at example dot com".

Issue 9: any 7+ digit run after a phone label (national formats of every country), and account handles after
their label (微信号 / WeChat / QQ / username / 账号).
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


_CN_DIGITS = {"零": "0", "〇": "0", "一": "1", "幺": "1", "二": "2", "两": "2", "三": "3", "四": "4", "五": "5",
              "六": "6", "七": "7", "八": "8", "九": "9"}
_CN_DIGIT_RUN = re.compile(r"[零〇一幺二两三四五六七八九](?:[\s\-]?[零〇一幺二两三四五六七八九]){6,}")


def _normalise(text: str) -> str:
    # NFKC turns full-width digits/letters into ASCII one for one; keep the same length for offsets.
    out = "".join(unicodedata.normalize("NFKC", ch) if len(unicodedata.normalize("NFKC", ch)) == 1 else ch
                  for ch in text)
    # Runs of 7+ Chinese digit characters (no 十/百/千/万: those are amounts, not identifiers) read digit by digit.
    return _CN_DIGIT_RUN.sub(lambda m: "".join(_CN_DIGITS.get(c, c) for c in m.group()), out)


_SEP = r"[\s\-\.]?"
_EMAIL = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}")
_CN_MOBILE = re.compile(rf"(?<!\d)(?:\+?86{_SEP})?1[3-9]\d{_SEP}\d{{4}}{_SEP}\d{{4}}(?!\d)")
_CN_ID = re.compile(r"(?<!\d)\d{6}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?!\d)")
_CARD = re.compile(rf"(?<!\d)\d(?:{_SEP}?\d){{12,18}}(?!\d)")
_PASSPORT = re.compile(r"(?<![A-Za-z0-9])[EeGg]\d{8}(?!\d)")
_PASSPORT_CTX = re.compile(r"(?:passport|护照)(?:\s*(?:no\.?|number|num|#|号码|号))?(?:\s*(?:is|was|是|为))?"
                           r"[^A-Za-z0-9]{0,12}([A-Za-z]{0,2}\d{6,9})",
                           re.IGNORECASE)
# After "卡号 / bank card / card number", 16-19 digits are a card even when they fail Luhn (some UnionPay cards).
_CARD_CTX = re.compile(r"(?:卡号|银行卡|信用卡|储蓄卡|card\s*(?:number|no\.?|#))[^\d]{0,8}(\d(?:[\s\-]?\d){15,18})(?!\d)",
                       re.IGNORECASE)
_INTL_PHONE = re.compile(rf"(?<![A-Za-z0-9+])\+\d{{1,3}}(?:{_SEP}\(?\d{{1,4}}\)?){{2,5}}(?!\d)")

_CN_ID15 = re.compile(r"(?<!\d)\d{6}\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}(?!\d)")
_CN_LANDLINE = re.compile(r"(?<!\d)0\d{2,3}[\s\-]\d{7,8}(?!\d)")
_NA_PHONE = re.compile(r"(?<![\d\w])(?:\(\d{3}\)\s?|\d{3}[\s\-.])\d{3}[\s\-.]\d{4}(?!\d)")
_SSN = re.compile(r"(?<!\d)\d{3}-\d{2}-\d{4}(?!\d)")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?(?![A-Za-z0-9])")
# After a label (phone / mobile / 电话 / 手机 / number), any run of 7+ digits is a phone number, whatever its national
# format ("020 7946 0321", "0412 345 678").
_PHONE_CTX = re.compile(r"(?:phone|mobile|cell|tel(?:ephone)?|landline|office line|(?:my|his|her|our|wife's|husband's) number|"
                        r"whatsapp|电话|手机|座机|联系方式)"
                        r"[^\dA-Za-z]{0,8}(?:(?:is|was|are)\b)?[^\dA-Za-z]{0,6}(\+?\(?\d(?:[\s\-.()]{0,2}\d){6,14})(?!\d)", re.IGNORECASE)
# An account handle after its label: "微信号是 wxid_abc123", "WeChat: lee_88", "QQ 123456789", "username jdoe77".
_HANDLE_CTX = re.compile(r"(?:微信号?|wechat(?:\s*id)?|qq号?|telegram|skype|whatsapp|line\s*id|username|user\s*name|"
                         r"用户名|账号|account\s*(?:number|no\.?|id)?)(?:\s*(?:is|是|为|:|：|＝|=))?\s*"
                         r"([A-Za-z0-9][A-Za-z0-9_\-.]{4,31})(?![A-Za-z0-9_])", re.IGNORECASE)
_PASSPORT_NEW = re.compile(r"(?<![A-Za-z0-9])[Ee][A-Za-z]\d{7}(?!\d)")
_EMAIL_SPELLED = re.compile(
    r"[A-Za-z0-9._%+\-]+\s*(?:\(at\)|\[at\]|\sat\s|＠)\s*[A-Za-z0-9\-]+"
    r"(?:\s*(?:\(dot\)|\[dot\]|\sdot\s|\.)\s*[A-Za-z0-9\-]+)*\s*(?:\(dot\)|\[dot\]|\sdot\s)\s*[A-Za-z]{2,}",
    re.IGNORECASE)


def iban_valid(text: str) -> bool:
    raw = re.sub(r"\s", "", text).upper()
    if not 15 <= len(raw) <= 34:
        return False
    moved = raw[4:] + raw[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


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
    for m in _CARD_CTX.finditer(norm):
        add("bank_card", m.start(1), m.end(1))
    for m in _PASSPORT.finditer(norm):
        add("passport", m.start(), m.end())
    for m in _PASSPORT_CTX.finditer(norm):
        add("passport", m.start(1), m.end(1))
    for m in _INTL_PHONE.finditer(norm):
        if len(re.sub(r"\D", "", m.group())) >= 8:
            add("phone", m.start(), m.end())
    for m in _EMAIL_SPELLED.finditer(norm):
        add("email", m.start(), m.end())
    for m in _CN_ID15.finditer(norm):
        add("cn_id_number", m.start(), m.end())
    for m in _CN_LANDLINE.finditer(norm):
        add("phone", m.start(), m.end())
    for m in _NA_PHONE.finditer(norm):
        add("phone", m.start(), m.end())
    for m in _SSN.finditer(norm):
        add("ssn", m.start(), m.end())
    for m in _IBAN.finditer(norm):
        if iban_valid(m.group()):
            add("iban", m.start(), m.end())
    for m in _PASSPORT_NEW.finditer(norm):
        add("passport", m.start(), m.end())
    for m in _PHONE_CTX.finditer(norm):
        add("phone", m.start(1), m.end(1))
    for m in _HANDLE_CTX.finditer(norm):
        if re.search(r"\d", m.group(1)) or "_" in m.group(1):  # a handle, not a word ("my account is closed")
            add("account_handle", m.start(1), m.end(1))
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
