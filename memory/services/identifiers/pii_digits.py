"""Runs of digits judged as personal identifiers (memory.services.identifiers.pii): every run joined by separators of any
kind is checked by maintained libraries (python-stdnum, phonenumbers) as a Chinese resident ID, a first-generation
ID, a US SSN, a card number, a Korean RRN or a phone number, or counts after a phone / ID / account label; amounts
(after a currency sign, before 元/万/dollars/%) are not identifiers."""

from __future__ import annotations

import functools
import re

import phonenumbers
from stdnum import luhn as stdnum_luhn
from stdnum.cn import ric as stdnum_cn_ric
from stdnum.kr import rrn as stdnum_kr_rrn

# --- runs of digits -------------------------------------------------------------------------------------------
_SEPS = r"[ \t\u00a0\u3000\-\.\(\)/_·–—]"
_DIGIT_RUN = re.compile(rf"(?<![A-Za-z0-9+])(?:\+|\b00)?\(?\d(?:{_SEPS}{{0,3}}\d){{5,}}(?:[ \-]?[Xx])?(?![A-Za-z0-9])")
_MONEY_BEFORE = re.compile(r"(?:[¥￥$€£]|rmb|usd|eur|gbp|cny|hkd)\s*$", re.IGNORECASE)
_UNIT_AFTER = re.compile(
    r"\s*(?:元|块|万|亿|千|百|美元|欧|英镑|日元|%|％|平|米|公里|km|kg|dollars?|yuan|euros?|pounds|"
    r"usd|rmb|sq|square|m2|㎡|percent|units?|pcs|items?|views|people|users|visitors)",
    re.IGNORECASE,
)
_PHONE_LABEL = re.compile(
    r"(?:phone|mobile|cell|tel(?:ephone)?|landline|office line|number|whatsapp|fax|hotline|"
    r"call|text|ring|reach|contact|n[uú]mero|numéro|nummer|telefon|t[ée]l[ée]phone|portable|handy|m[óo]vil|"
    r"cellulare|电话|手机|座机|联系方式|号码|手机号|打给|致电|短信|传真)[^\dA-Za-z]{0,12}"
    r"(?:(?:is|was|are|me at|at|on|me|es|est|ist|é|e)\b[^\dA-Za-z]{0,6}){0,2}$",
    re.IGNORECASE,
)
_ID_LABEL = re.compile(
    r"(?:身份证(?:号码?)?|证件号(?:码)?|\bid\s*(?:card|number|no\.?|#)?|national\s*id|"
    r"social security(?:\s*number)?|\bssn|\bsin\b|社保(?:卡)?号?|驾照(?:号码?)?|驾驶证号?|"
    r"driver'?s licen[cs]e(?:\s*(?:number|no\.?))?|licen[cs]e\s*(?:number|no\.?)|tax\s*id|税号|"
    r"医保(?:卡)?号?|会员号|学号|工号|employee\s*(?:id|number)|student\s*(?:id|number)|"
    r"account(?:\s*(?:number|no\.?|#))?|账号|账户|卡号|银行卡|信用卡|储蓄卡|card\s*(?:number|no\.?|#)|"
    r"qq号?|passport(?:\s*(?:number|no\.?))?|护照(?:号码?)?)[^\dA-Za-z]{0,8}"
    r"(?:(?:is|was|are)\b[^\dA-Za-z]{0,6})?$",
    re.IGNORECASE,
)
_NON_DIGITS = re.compile(r"\D")
_DIGIT_GROUPS = re.compile(r"\d+")
_NOT_PERSONAL_LABEL = re.compile(
    r"(?:order|tracking|invoice|reference|ref|model|serial|part|item|product|sku|batch|"
    r"订单|快递|运单|发票|型号|编号|批次|货号)\s*(?:number|no\.?|#|号码?)?[^\dA-Za-z]{0,6}$",
    re.IGNORECASE,
)
_PHONE_REGIONS = (
    "CN",
    "GB",
    "JP",
    "DE",
    "FR",
    "AU",
    "IN",
    "KR",
    "IT",
    "ES",
    "NL",
    "BR",
    "RU",
    "MX",
    "TW",
    "HK",
    "SG",
    "IE",
    "NZ",
    "ZA",
    "TR",
    "SE",
    "CH",
    "BE",
    "AT",
    "PL",
    "PT",
    "TH",
    "VN",
    "MY",
    "ID",
    "PH",
)


@functools.lru_cache(maxsize=4096)
def _phone_kind(prefix: str, digits: str) -> str | None:
    """`prefix` is "+" or "00" when the number was written with one, else ""."""
    n = len(digits)
    if prefix:
        if re.fullmatch(r"(?:00)?861[3-9]\d{9}", digits):
            return "cn_mobile"
        return "phone" if 8 <= n - (2 if prefix == "00" else 0) <= 15 else None
    if digits[0] == "0" and 9 <= n <= 12:
        for region in _PHONE_REGIONS:
            try:
                if phonenumbers.is_possible_number(phonenumbers.parse(digits, region)):
                    return "phone"
            except phonenumbers.NumberParseException:
                continue
        return None
    try:
        # Every 1[3-9] prefix, allocated or not yet (the library's plan lags new ranges such as 140/19x).
        if re.fullmatch(r"(?:86)?1[3-9]\d{9}", digits):
            return "cn_mobile"
        if n == 10 or (n == 11 and digits[0] == "1"):
            if phonenumbers.is_valid_number(phonenumbers.parse(digits, "US")):
                return "phone"
    except phonenumbers.NumberParseException:
        return None
    return None


def _cn_ric(number: str) -> bool:
    """Check digit and birth date of a Chinese resident ID (python-stdnum), not the birth place: a county renamed
    since is still someone's identifier."""
    try:
        stdnum_cn_ric.get_birth_date(number)
        return stdnum_cn_ric.calc_check_digit(number) == number[-1].upper()
    except Exception:  # noqa: BLE001 - any failure of the library's checks means "not an ID"
        return False


def _cn_id15(digits: str) -> bool:
    return bool(re.fullmatch(r"\d{8}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}", digits))


@functools.lru_cache(maxsize=4096)
def _labels(before: str) -> tuple[bool, bool, bool, bool, bool]:
    """What the 40 characters before a number say it is: (money, a thing's number, passport, phone, ID). Cached:
    the windows of one run share their start, and a long run of numbers repeats the same text before them."""
    return (
        bool(_MONEY_BEFORE.search(before)),
        bool(_NOT_PERSONAL_LABEL.search(before)),
        bool(re.search(r"(?:passport|护照)[^.。;；]{0,20}$", before, re.IGNORECASE)),
        bool(_PHONE_LABEL.search(before)),
        bool(_ID_LABEL.search(before)),
    )


def _digit_run_kind(raw: str, before: str, after: str) -> str | None:
    """What a run of digits is, or None for an ordinary number."""
    digits = _NON_DIGITS.sub("", raw)
    n = len(digits)
    if raw[-1] in "Xx":
        return "cn_id_number" if n == 17 and _cn_ric(digits + "X") else None
    if n == 18 and _cn_ric(digits):
        return "cn_id_number"
    money, thing, passport, phone_label, id_label = _labels(before)
    if money or _UNIT_AFTER.match(after):
        return None
    if n == 15 and _cn_id15(digits):
        return "cn_id_number"
    groups = [len(g) for g in _DIGIT_GROUPS.findall(raw)]
    if groups == [3, 2, 4] and not raw.startswith("+"):
        return "ssn"
    if not raw.startswith("+") and 13 <= n <= 19 and stdnum_luhn.is_valid(digits):
        return "bank_card"
    if n == 13 and groups == [6, 7] and stdnum_kr_rrn.is_valid(digits):
        return "national_id"
    kind = _phone_kind("+" if raw.startswith("+") else "00" if raw.startswith("00") else "", digits)
    if kind:
        return kind
    if thing:
        return None  # "order number 1234567", "型号 200012": a number of a thing, not of a person
    if passport:
        return "passport"
    if 7 <= n <= 15 and phone_label:
        return "phone"
    if n >= 6 and id_label:
        return "id_number"
    return None


def digit_runs(norm: str, add) -> None:
    for m in _DIGIT_RUN.finditer(norm):
        raw = m.group()
        kind = _digit_run_kind(raw, norm[max(0, m.start() - 40) : m.start()], norm[m.end() : m.end() + 12])
        if kind:
            add(kind, m.start(), m.end())
            continue
        # Two numbers side by side ("2024 13800138000", "电话 010 8888 6666 转 2"): try the groups between spaces.
        chunks = [(c.start(), c.end()) for c in re.finditer(r"\S+", raw)]
        counts = [sum(ch.isdigit() for ch in raw[a:b]) for a, b in chunks]
        # No identifier spans more than 7 groups; inside a table of thousands of numbers, 3 (a bound on the work
        # a hostile 100,000-character message can cause; measured 2.6 s with 7, and it is in every embed).
        widest = 7 if len(chunks) <= 64 else 3
        i = 0
        while i < len(chunks):
            for j in range(min(len(chunks), i + widest), i, -1):
                if (i, j) == (0, len(chunks)) or not 6 <= sum(counts[i:j]) <= 19:
                    continue
                s, e = m.start() + chunks[i][0], m.start() + chunks[j - 1][1]
                sub = norm[s:e].strip("()（）.-_/ ")
                if not sub or not sub[0].isdigit() and sub[0] != "+":
                    continue
                s = norm.index(sub, s)
                e = s + len(sub)
                kind = _digit_run_kind(sub, norm[max(0, s - 40) : s], norm[e : e + 12])
                if kind:
                    add(kind, s, e)
                    i = j - 1
                    break
            i += 1
