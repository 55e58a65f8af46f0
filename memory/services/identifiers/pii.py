"""Deterministic detection of personal identifiers. Nothing that matches may reach a memory note (content, key,
value, quote), a session summary or title, a pinned fact, a task-state value, scratch, an experience, the audit
log or an embedding.

How: the text is first normalised with an offset map back to the original, so a span found in the
normalised text redacts exactly the original characters:
- full-width forms become ASCII (NFKC, one character for one);
- runs of digits spoken or written as words become digits: English ("one three eight zero zero ...", "oh",
  "double 7"), Chinese digits including 幺 and 两 ("一三八零零…"), and any mix of them with ASCII digits
  ("138零零一三8000"). A run needs 7 digits, so "一两个", "three or four" and 十/百/千/万 amounts stay as they are.

Then every run of digits joined by separators of any kind (space, dash, dot, slash, brackets, underscore) is
judged by maintained libraries, in this order: Chinese resident ID (python-stdnum `cn.ric`: birth date + check
digit, also spaced "110105 19491231 002X"), 15-digit first-generation IDs, US SSN written 3-2-4, card numbers
(Luhn, 13-19 digits), Korean RRN, phone numbers (`phonenumbers`: "+CC ..." or 00CC; national formats with a
trunk 0 that some country's plan allows, e.g. UK 07700 900123, JP 090-1234-5678, DE 030 12345678; Chinese
mobiles; North American 10-digit numbers), and any 7+ digits after a phone / ID / account label. Amounts are not
identifiers: a run after a currency sign or before 元/万/dollars/% is skipped.

Formats without digits runs of their own: e-mail (also "name (at) example (dot) com"), IBAN (python-stdnum, any
case and spacing), passports (with a label, or letter(s) + 7-8 digits: C03005988, E12345678, EA1234567), UK
National Insurance numbers, street addresses (路/街/巷/道 + 号 + 栋/单元/室; house number + street name + suffix;
UK postcodes; German -straße; Japanese 丁目/番地), licence plates (Chinese 京A12345, UK AB12 CDE, EU hyphenated
forms, anything after 车牌/plate/Kennzeichen), messaging handles after 微信/vx/WeChat/QQ/Telegram/LINE/WhatsApp/…
and @handles, IPv4/IPv6 and MAC addresses.

The adversarial set in tests/memory/data/pii_adversarial.jsonl measures it (docs/memory.md has the figures).
"""

from __future__ import annotations

import functools
import ipaddress
import re
from dataclasses import dataclass

from stdnum import iban as stdnum_iban

from memory.reading.secrets import secret_spans
from memory.services.identifiers.pii_digits import digit_runs
from memory.services.identifiers.pii_normalise import normalise

REDACTED = "[已隐去]"
# Weights and check characters of the Chinese resident ID (GB 11643), for tests that build valid numbers.
ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
ID_CHECK = "10X98765432"


@dataclass(frozen=True)
class PiiMatch:
    kind: str
    start: int
    end: int


# --- formats with letters -------------------------------------------------------------------------------------
# Every pattern starts at a boundary (a look-behind) and bounds its repeats: on a 100,000-character message a
# pattern that may start anywhere inside a long run is quadratic (minutes, measured), one that starts only at the
# run's beginning is linear.
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63}){0,8}"
    r"\.[A-Za-z]{2,24}"
)
_EMAIL_SPELLED = re.compile(
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}\s*(?:\(at\)|\[at\]|\sat\s|＠)\s*[A-Za-z0-9\-]+"
    r"(?:\s*(?:\(dot\)|\[dot\]|\sdot\s|\.)\s*[A-Za-z0-9\-]+)*\s*(?:\(dot\)|\[dot\]|\sdot\s)\s*[A-Za-z]{2,}",
    re.IGNORECASE,
)
_IBAN = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ \-]?[A-Za-z0-9]{4}){2,7}(?:[ \-]?[A-Za-z0-9]{1,4})?"
    r"(?![A-Za-z0-9])"
)
_PASSPORT = re.compile(
    r"(?<![A-Za-z0-9])(?:[A-Z]\d{8}|[A-Z]{2}\d{7}|[EeGg]\d{8}|[Ee][A-Za-z]\d{7}|[A-Z][12]\d{8})"
    r"(?![A-Za-z0-9])"
)
_PASSPORT_CTX = re.compile(
    r"(?:passport|护照)(?:\s*(?:no\.?|number|num|#|号码|号))?(?:\s*(?:is|was|是|为))?"
    r"[^A-Za-z0-9]{0,12}([A-Za-z]{0,2}\d{6,9})",
    re.IGNORECASE,
)
_NINO = re.compile(r"(?<![A-Za-z0-9])[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])")
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.])")
_IPV6 = re.compile(r"(?<![0-9A-Fa-f:])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{1,4}(?![0-9A-Fa-f:])")
_MAC = re.compile(r"(?<![0-9A-Fa-f:-])[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){5}(?![0-9A-Fa-f:-])")
_VERSION_BEFORE = re.compile(r"(?:v|version|ver\.?|版本|版本号)\s*$", re.IGNORECASE)

_ZH_ADDRESS = re.compile(
    r"[\u4e00-\u9fff]{1,10}?(?:路|街|巷|大道|胡同|弄)\s*\d{1,6}\s*(?:号|弄|巷)(?:院)?"
    r"(?:\s*[\u4e00-\u9fffA-Za-z]{0,8}?\s*\d{1,6}\s*(?:号楼|栋|幢|座|楼|单元|层|室|号|户)){0,6}"
    r"(?:\s*[\u4e00-\u9fffA-Za-z]{0,8}?\s*[A-Za-z]?\d{2,5}(?:室|号|房)?(?![\d.]))?"
    r"|(?<!\d)\d{1,5}\s*(?:号楼|栋|幢|座)\s*\d{1,5}\s*单元(?:\s*\d{1,6}\s*(?:室|号|层))?"
    r"|(?<!\d)\d{1,5}\s*单元\s*\d{1,6}\s*(?:室|号)?"
    r"|(?<!\d)\d{3,5}\s*室(?!\s*\d*\s*厅)"
)
_JP_ADDRESS = re.compile(
    r"[\u4e00-\u9fff]{1,4}[都道府県][\u4e00-\u9fff]{1,8}?[区市町村郡][\u4e00-\u9fff]{0,8}?"
    r"\d+(?:丁目|-)\s*\d+(?:番地?|-)\s*\d*号?"
)
_STREET_SUFFIX = (
    r"(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Drive|Dr|Boulevard|Blvd|Way|Court|Ct|Place|Pl|"
    r"Terrace|Close|Crescent|Square|Sq|Parkway|Pkwy|Highway|Hwy|Row|Mews|Gardens|Grove|Hill|Walk)"
)
_EN_ADDRESS = re.compile(
    rf"(?<![A-Za-z0-9])\d{{1,5}}[A-Za-z]?(?:[\-/]\d{{1,4}}[A-Za-z]?)?,?\s+(?:[A-Z][A-Za-z'\.]*\s+){{1,3}}"
    rf"{_STREET_SUFFIX}\b\.?"
)
_EN_ADDRESS_LOWER = re.compile(  # lower case needs a house letter ("221b baker street") or an address phrase
    rf"(?:(?<![A-Za-z0-9])\d{{1,5}}[A-Za-z]|(?:live at|lives at|living at|address is|located at|deliver to|"
    rf"ship to|send it to)\s+\d{{1,5}}[A-Za-z]?),?\s+(?:[A-Za-z'\.]+\s+){{1,3}}{_STREET_SUFFIX}\b\.?",
    re.IGNORECASE,
)
_DE_ADDRESS = re.compile(
    r"[A-ZÄÖÜ][a-zäöüß]+(?:straße|strasse|str\.|weg|gasse|allee|platz|ring|damm)\s+\d{1,4}[a-z]?"
    r"(?:,?\s+\d{5}(?:\s+[A-ZÄÖÜ][a-zäöüß]+)?)?"
)
_FR_ADDRESS = re.compile(
    r"(?<![A-Za-z0-9])\d{1,4}(?:\s?(?:bis|ter))?,?\s+(?:rue|avenue|boulevard|bd|place|chemin|allée|"
    r"impasse|quai)\s+(?:d[eu']\s?|de la |des )?[A-ZÀ-Ý][\w'\-]+(?:\s+[A-ZÀ-Ý][\w'\-]+){0,2}",
    re.IGNORECASE,
)
_UK_POSTCODE = re.compile(r"(?<![A-Za-z0-9])(?:[A-PR-UWYZ][A-HK-Y]?\d[A-Z\d]?) ?\d[ABD-HJLNP-UW-Z]{2}(?![A-Za-z0-9])")
_US_ZIP = re.compile(
    r"(?<![A-Za-z0-9])(?:AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|"
    r"MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|DC),?\s+\d{5}"
    r"(?:-\d{4})?(?![\d])"
)

_CN_PLATE = re.compile(
    r"[京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼][A-Za-z]\s?[·•\-]?\s?"
    r"[A-Za-z0-9]{5,6}(?![A-Za-z0-9])"
)
_UK_PLATE = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2} ?[A-Z]{3}(?![A-Za-z0-9])")
_EU_PLATE = re.compile(
    r"(?<![A-Za-z0-9\-])(?:[A-ZÄÖÜ]{1,3}-[A-Z]{1,2} ?\d{1,4}[EH]?|[A-Z]{2}-\d{3}-[A-Z]{2}|"
    r"[A-Z]{2} ?\d{3} ?[A-Z]{2}|(?=[A-Z0-9\-]{8}(?![A-Za-z0-9\-]))[A-Z0-9]{1,3}-[A-Z0-9]{1,3}-[A-Z0-9]{1,3})"
    r"(?![A-Za-z0-9\-])"
)
_PLATE_CTX = re.compile(
    r"(?:车牌(?:号码?)?|牌照|licen[cs]e plate|number plate|\bplate|registration(?:\s*number)?|"
    r"\breg\.?(?:\s*(?:no|number))?|kennzeichen|matr[ií]cula|immatriculation|kenteken|targa)"
    r"(?:\s*(?:is|是|为|:|：))?[^A-Za-z0-9\u4e00-\u9fff]{0,6}"
    r"([A-Za-z0-9\u4e00-\u9fff][A-Za-z0-9 \-·]{3,9}[A-Za-z0-9])",
    re.IGNORECASE,
)

_STRONG_HANDLE_LABEL = (
    r"微信号?|威信|(?i:v信)|加\s*[vV](?![A-Za-z])|(?<![A-Za-z])(?i:vx|wx|weixin|wechat(?:\s*id)?|qq|telegram|whatsapp|"
    r"kakao(?:talk)?|snapchat|instagram|insta|twitter|skype|discord|username|user\s*name|"
    r"line\s*id)(?![A-Za-z])|(?<![A-Za-z])LINE(?![A-Za-z])|抖音号?|小红书号?|微博|用户名|推特|脸书"
)
_WEAK_HANDLE_LABEL = r"(?<![A-Za-z])(?:account(?:\s*id)?|handle|signal|tg|ig|id)(?![A-Za-z])|账号|帐号|账户"
_HANDLE = r"(@?[A-Za-z0-9][A-Za-z0-9_\-.]{1,30}[A-Za-z0-9_])(?![A-Za-z0-9_])"
_MARKER = r"\s*(?:(?i:is)|是|为|:|：|=|＝|号|(?i:id))\s*"
_HANDLE_STRONG = re.compile(
    rf"(?:{_STRONG_HANDLE_LABEL})(?:{_MARKER}|[\s,，]*(?:(?:me|us)\s+(?:at|on)\s+)?)(?:加|add)?"
    rf"\s*{_HANDLE}"
)
_HANDLE_STRONG_MARKED = re.compile(rf"(?:{_STRONG_HANDLE_LABEL})(?:{_MARKER})\s*{_HANDLE}")
# Words that follow "my Instagram is ..." without being a handle.
_NOT_HANDLES = {
    "great",
    "down",
    "busy",
    "mostly",
    "private",
    "public",
    "closed",
    "open",
    "new",
    "old",
    "active",
    "inactive",
    "full",
    "empty",
    "blocked",
    "banned",
    "gone",
    "deleted",
    "the",
    "not",
    "very",
    "also",
    "just",
    "only",
    "still",
    "where",
    "how",
    "what",
    "for",
    "about",
    "better",
    "best",
    "good",
    "fine",
}
_HANDLE_ANY = re.compile(
    rf"(?:{_STRONG_HANDLE_LABEL}|{_WEAK_HANDLE_LABEL})[\s:：=＝是为]*(?:is\s+)?{_HANDLE}", re.IGNORECASE
)
_AT_HANDLE = re.compile(
    r"(?<![A-Za-z0-9._%+\-@])@[A-Za-z0-9_\u4e00-\u9fff][A-Za-z0-9_.\u4e00-\u9fff]{1,30}"
    r"(?<![.])(?![A-Za-z0-9_@])"
)


def _ip_spans(norm: str, add) -> None:
    for pattern in (_IPV4, _IPV6):
        for m in pattern.finditer(norm):
            if _VERSION_BEFORE.search(norm[max(0, m.start() - 10) : m.start()]):
                continue
            try:
                ipaddress.ip_address(m.group())
            except ValueError:
                continue
            add("ip_address", m.start(), m.end())
    for m in _MAC.finditer(norm):
        add("mac_address", m.start(), m.end())


def _iban_spans(norm: str, add) -> None:
    for m in _IBAN.finditer(norm):
        candidate = m.group()
        while candidate:
            if stdnum_iban.is_valid(candidate.upper()):
                add("iban", m.start(), m.start() + len(candidate))
                break
            cut = re.search(r"[ \-]?[A-Za-z0-9]{1,4}$", candidate)
            candidate = candidate[: cut.start()] if cut and cut.start() >= 8 else ""


def _handle_spans(norm: str, add) -> None:
    for pattern, strict in ((_HANDLE_STRONG_MARKED, False), (_HANDLE_STRONG, True), (_HANDLE_ANY, True)):
        for m in pattern.finditer(norm):
            handle = m.group(1)
            if strict and not (re.search(r"[\d_.]", handle) or handle.startswith("@")):
                continue  # "add me on WeChat tomorrow", "my account is closed": a word, not a handle
            if handle.lower() in _NOT_HANDLES or re.fullmatch(r"\d{1,6}", handle):
                continue  # a short number after "号" is a quantity or a date, not a handle
            add("account_handle", m.start(1), m.end(1))
    for m in _AT_HANDLE.finditer(norm):
        add("account_handle", m.start(), m.end())


def _has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


def pii_find(text: str) -> list[PiiMatch]:
    """Every identifier in `text`, as (kind, start, end) over the original string, overlapping ones merged."""
    if not text:
        return []
    norm, starts, ends = normalise(text)
    found: list[PiiMatch] = []

    def add(kind, start, end):
        if end > start:
            found.append(PiiMatch(kind, starts[start], ends[end - 1]))

    for pattern in (_EMAIL, _EMAIL_SPELLED):
        for m in pattern.finditer(norm):
            add("email", m.start(), m.end())
    digit_runs(norm, add)
    _iban_spans(norm, add)
    for m in _PASSPORT.finditer(norm):
        add("passport", m.start(), m.end())
    for m in _PASSPORT_CTX.finditer(norm):
        add("passport", m.start(1), m.end(1))
    for m in _NINO.finditer(norm):
        add("national_id", m.start(), m.end())
    _ip_spans(norm, add)
    for pattern in (
        _ZH_ADDRESS,
        _JP_ADDRESS,
        _EN_ADDRESS,
        _EN_ADDRESS_LOWER,
        _DE_ADDRESS,
        _FR_ADDRESS,
        _UK_POSTCODE,
        _US_ZIP,
    ):
        for m in pattern.finditer(norm):
            add("address", m.start(), m.end())
    for pattern in (_CN_PLATE, _UK_PLATE, _EU_PLATE):
        for m in pattern.finditer(norm):
            if _has_digit(m.group()) and re.search(r"[A-Za-z]", m.group()):
                add("licence_plate", m.start(), m.end())
    for m in _PLATE_CTX.finditer(norm):
        if _has_digit(m.group(1)):
            add("licence_plate", m.start(1), m.end(1))
    _handle_spans(norm, add)
    for start, end in secret_spans(norm):  # a password, PIN or API key is kept out exactly like an identifier
        add("secret", start, end)
    # Overlapping candidates are merged into one span (the earliest names the kind): skipping the second
    # could leave part of an identifier behind, e.g. "+1 000 000 0000 (130 0000 0000)".
    merged: list[PiiMatch] = []
    for span in sorted(found, key=lambda s: (s.start, -s.end)):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            merged[-1] = PiiMatch(last.kind, last.start, max(last.end, span.end))
        else:
            merged.append(span)
    return merged


def pii_redact(text: str) -> tuple[str, dict[str, int]]:
    """`text` with every identifier replaced by a placeholder, and the count per kind that was removed."""
    matches = pii_find(text)
    counts: dict[str, int] = {}
    out, pos = [], 0
    for m in matches:
        out.append(text[pos : m.start])
        out.append(REDACTED)
        pos = m.end
        counts[m.kind] = counts.get(m.kind, 0) + 1
    out.append(text[pos:])
    return "".join(out), counts


def pii_find_in_value(value) -> list[PiiMatch]:
    """Identifiers anywhere in a JSON-like value (strings in dicts and lists, keys included)."""
    found: list[PiiMatch] = []
    if isinstance(value, str):
        found.extend(pii_find(value))
    elif isinstance(value, dict):
        for k, v in value.items():
            found.extend(pii_find_in_value(k))
            found.extend(pii_find_in_value(v))
    elif isinstance(value, (list, tuple)):
        for v in value:
            found.extend(pii_find_in_value(v))
    return found


def pii_safe_title(text: str, limit: int) -> str:
    """A title made from a user's words: identifiers redacted on the whole text first, then cut to `limit`
    characters, so an identifier that straddles the cut cannot leave its first digits behind."""
    redacted, _ = pii_redact(" ".join((text or "").split()))
    return redacted if len(redacted) <= limit else redacted[: limit - 1].rstrip() + "…"


@functools.lru_cache(maxsize=2048)
def pii_redacted_text(text: str) -> str:
    """pii_redact's text alone, kept per text: a returning user's past messages are shown by recall again and again
    (about 0.5 ms each to read for identifiers), as the reader keeps its reading of a message (memory.reading)."""
    return pii_redact(text)[0]


def pii_redact_value(value):
    """A JSON-like value with every identifier in its strings (keys included) redacted, and the counts per kind.
    Numbers and other scalars are kept as they are."""
    counts: dict[str, int] = {}

    def walk(v):
        if isinstance(v, str):
            redacted, found = pii_redact(v)
            for kind, n in found.items():
                counts[kind] = counts.get(kind, 0) + n
            return redacted
        if isinstance(v, dict):
            return {walk(k) if isinstance(k, str) else k: walk(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [walk(x) for x in v]
        return v

    return walk(value), counts
