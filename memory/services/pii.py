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
import unicodedata
from dataclasses import dataclass

import phonenumbers
from stdnum import iban as stdnum_iban
from stdnum import luhn as stdnum_luhn
from stdnum.cn import ric as stdnum_cn_ric
from stdnum.kr import rrn as stdnum_kr_rrn

REDACTED = "[已隐去]"
# Weights and check characters of the Chinese resident ID (GB 11643), for tests that build valid numbers.
_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
_ID_CHECK = "10X98765432"


@dataclass(frozen=True)
class PiiMatch:
    kind: str
    start: int
    end: int


# --- normalisation, with an offset map back to the original text ----------------------------------------------
_CN_DIGITS = {
    "零": "0",
    "〇": "0",
    "一": "1",
    "幺": "1",
    "二": "2",
    "两": "2",
    "三": "3",
    "四": "4",
    "五": "5",
    "六": "6",
    "七": "7",
    "八": "8",
    "九": "9",
    # the financial forms people use to dodge filters
    "壹": "1",
    "贰": "2",
    "貳": "2",
    "叁": "3",
    "參": "3",
    "肆": "4",
    "伍": "5",
    "陆": "6",
    "陸": "6",
    "柒": "7",
    "捌": "8",
    "玖": "9",
}
_EN_DIGITS = {
    "zero": "0",
    "oh": "0",
    "o": "0",
    "nil": "0",
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
}
_UNIT = (
    r"(?:[0-9]|[零〇一幺二两三四五六七八九壹贰貳叁參肆伍陆陸柒捌玖]|(?<![A-Za-z])(?:(?:double|triple)[\s\-]+)?"
    r"(?:zero|oh|o|nil|one|two|three|four|five|six|seven|eight|nine)(?![A-Za-z]))"
)
_UNIT_RE = re.compile(_UNIT, re.IGNORECASE)
_SPOKEN_RUN = re.compile(rf"{_UNIT}(?:[\s\-\.,，、·_/()（）]{{0,3}}{_UNIT}){{6,}}", re.IGNORECASE)


def _normalise(text: str) -> tuple[str, list[int], list[int]]:
    """(normalised text, start and end in `text` of each normalised character)."""
    chars = []
    for ch in text:
        n = unicodedata.normalize("NFKC", ch)
        chars.append(n if len(n) == 1 else ch)
    base = "".join(chars)
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pos = 0
    for run in _SPOKEN_RUN.finditer(base):
        if run.group().isascii() and not re.search(r"[A-Za-z]", run.group()):
            continue  # only ASCII digits and separators: the detectors below see it as it is
        digits: list[tuple[str, int, int]] = []
        for unit in _UNIT_RE.finditer(run.group()):
            word = unit.group().lower()
            s, e = run.start() + unit.start(), run.start() + unit.end()
            times = 3 if word.startswith("triple") else 2 if word.startswith("double") else 1
            last = re.split(r"[\s\-]+", word)[-1]
            digit = _CN_DIGITS.get(last) or _EN_DIGITS.get(last) or last
            digits.extend([(digit, s, e)] * times)
        if len(digits) < 7:
            continue
        for i in range(pos, run.start()):
            out.append(base[i])
            starts.append(i)
            ends.append(i + 1)
        for digit, s, e in digits:
            out.append(digit)
            starts.append(s)
            ends.append(e)
        pos = run.end()
    for i in range(pos, len(base)):
        out.append(base[i])
        starts.append(i)
        ends.append(i + 1)
    return "".join(out), starts, ends


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


def _digit_runs(norm: str, add) -> None:
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
    norm, starts, ends = _normalise(text)
    found: list[PiiMatch] = []

    def add(kind, start, end):
        if end > start:
            found.append(PiiMatch(kind, starts[start], ends[end - 1]))

    for pattern in (_EMAIL, _EMAIL_SPELLED):
        for m in pattern.finditer(norm):
            add("email", m.start(), m.end())
    _digit_runs(norm, add)
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
