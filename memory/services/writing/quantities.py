"""Numbers in a user's words, with what they count: money, area, people, age, or something else.

A number fills a slot of long-term memory only when its unit or the slot's keyword says what it is:
"Team of 4 people" is a head count, never a budget; "T65", "iPhone 15", "GPT-4", "Model 3" are names, not amounts;
"1990年", "12th floor", "9点", "5 km", "8 hours" count other things. The currency is kept ("20,000 euros" stays
euros), so a note's value and sentence say what the user said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text import EN_NUMBER_WORDS, cn_numerals_to_digits

MONEY_SLOTS = {"budget", "revenue", "rent"}

_EN_WORDS = EN_NUMBER_WORDS
_EN_WORD_RX = re.compile(
    r"\b(" + "|".join(sorted(_EN_WORDS, key=len, reverse=True)) + r")\b(?:[- ](one|two|three|"
    r"four|five|six|seven|eight|nine))?",
    re.IGNORECASE,
)

# Currencies: ISO code <- the ways people write them (before or after the number).
CURRENCIES = (  # the dollars of other countries before the US dollar: "Canadian dollars" is not "dollars"
    ("CAD", r"c\$|ca\$|canadian dollars?\b|cad\b|加元|加币"),
    ("AUD", r"a\$|au\$|australian dollars?\b|aud\b|澳元|澳币"),
    ("SGD", r"s\$|singapore dollars?\b|sgd\b|新币|新加坡元"),
    ("TWD", r"nt\$|twd\b|新台币|台币"),
    ("EUR", r"€|euros?\b|eur\b|欧元"),
    ("GBP", r"£|pounds?(?: sterling)?\b|gbp\b|英镑"),
    ("USD", r"\$|us\$|usd\b|dollars?\b|bucks\b|美元|美金"),
    ("JPY", r"日元|円|yen\b|jpy\b"),
    ("HKD", r"港币|港元|hkd\b"),
    ("CNY", r"¥|￥|rmb\b|cny\b|yuan\b|人民币|元|块钱?|圆"),
)
_CURRENCY_AFTER = re.compile(r"^\s*(?:" + "|".join(f"(?P<{c}>{rx})" for c, rx in CURRENCIES) + ")", re.IGNORECASE)
_CURRENCY_BEFORE = re.compile(r"(?:" + "|".join(f"(?P<{c}>{rx})" for c, rx in CURRENCIES) + r")\s*$", re.IGNORECASE)
_MULTIPLIER = re.compile(
    r"^\s*(亿|百万|千万|万|w(?![a-z])|千|k(?![a-z])|thousand\b|million\b|m(?![a-z²2])|grand\b|"
    r"mn\b|bn\b|billion\b)",
    re.IGNORECASE,
)
_SCALE = {
    "亿": 1e8,
    "千万": 1e7,
    "百万": 1e6,
    "万": 1e4,
    "w": 1e4,
    "千": 1e3,
    "k": 1e3,
    "thousand": 1e3,
    "grand": 1e3,
    "million": 1e6,
    "m": 1e6,
    "mn": 1e6,
    "bn": 1e9,
    "billion": 1e9,
}
_AREA = re.compile(
    r"^\s*(?:平(?![时常均安])|㎡|m2\b|m²|sq\.?\s?m\b|sqm\b|square\s+(?:meters?|metres?|feet|foot)|"
    r"sq\.?\s?ft\b|平方)",
    re.IGNORECASE,
)
_PEOPLE = re.compile(
    r"^\s*(?:(?:个|名|位)?(?:人|员工|店员|伙计|雇员|同事|成员|工人|厨师|服务员)|"
    r"(?:full[- ]time |part[- ]time )?(?:people|persons?|employees?|staff(?:ers)?|workers?|"
    r"members?|colleagues|hires|engineers|developers|cooks|chefs|baristas|waiters|servers|"
    r"nurses|teachers|people on (?:the|my|our) team))",
    re.IGNORECASE,
)
# "team of 8", "a staff of 12", "团队一共 4", "员工有 6": the number before which the head count is named.
_PEOPLE_BEFORE = re.compile(
    r"\b(?:team|staff|crew|workforce|headcount|head count) of\s*$|(?:团队|员工|人手|店员)(?:一共|共|总共)?"
    r"(?:有|是)?\s*$",
    re.IGNORECASE,
)
_AGE = re.compile(r"^\s*(?:周岁|岁|years? old\b|yo\b|y/o\b)", re.IGNORECASE)
# Units of other things: the number is no amount of money, area or people.
_OTHER = re.compile(
    r"^\s*(?:年(?!薪|收入|营业|流水|预算)|月(?!租|流水|薪|营业)|日|号|点|时|分钟|分|秒|楼|层|栋|室|次|遍|趟|节|章|页|"
    r"期|代|款|版|寸|英寸|公里|千米|米|厘米|公斤|斤|克|度|小时|个小时|天|周|星期|个月|岁(?=.*的孩子)|"
    r"只|条|头|匹|本|台|辆|杯|瓶|碗|家|间|套|张|份|种|门|%|％|"
    r"(?:st|nd|rd|th)\b|%|percent\b|km\b|kms\b|miles?\b|kg\b|kilos?\b|lbs?\b|cm\b|mm\b|inch(?:es)?\b|"
    r"hours?\b|hrs?\b|minutes?\b|mins?\b|days?\b|weeks?\b|months?\b|years?\b|times?\b|floors?\b|"
    r"storey|stories|am\b|pm\b|o'clock|:\d|cats?\b|dogs?\b|kids?\b|children\b|students\b|pupils\b|"
    r"cups?\b|seats?\b|tables?\b|rooms?\b|gb\b|tb\b|mb\b|ghz\b|mp\b|fps\b|calories\b|kcal\b|"
    r"steps\b|books?\b|pages?\b|laps\b|sets\b|reps\b|points?\b|stars?\b)",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)")
# A number glued to letters or a hyphen is part of a name or code: T65, GPT-4, A4, 3D, COVID-19, BA287.
_CODE_BEFORE = re.compile(
    r"[A-Za-z][-_]?$|\b[A-Z]{1,3}\s?#?$|#$|\b(?i:no|nr|room|route|flight|bus|line|gate|version|v)"
    r"\.?\s?$"
)
_CODE_AFTER = re.compile(r"^[A-Za-z]{1,2}\d|^-?[A-Za-z](?![a-z])|^\.\d+\.\d|^[-_/]\w")
# "iPhone 15", "Model 3", "Python 3.11", "Windows 11", "PS5", "route 66": a capitalised name then its number.
_NAME_BEFORE = re.compile(r"\b(?:[A-Z][a-zA-Z]+|[a-z]+[A-Z][a-zA-Z]*)\s$")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_YEAR_CONTEXT = re.compile(r"(?:\b(?:in|since|from|until|of|by|born|class of|year)\s+|年)$", re.IGNORECASE)


@dataclass(frozen=True)
class Quantity:
    """One number in the text: its value (multiplier applied), what it counts, its currency, where it is."""

    amount: float
    unit: str  # money | area | people | age | other | bare
    currency: str = ""
    start: int = 0
    end: int = 0
    code: bool = False  # part of a name or code ("T65", "iPhone 15"): never an amount


def _en_words_to_digits(text: str) -> str:
    def convert(m):
        value = _EN_WORDS[m.group(1).lower()]
        if m.group(2):
            value += _EN_WORDS[m.group(2).lower()]
        return str(value)

    return _EN_WORD_RX.sub(convert, text)


def normalise(text: str) -> str:
    """Chinese numerals and English number words as digits ("三个员工" -> "3个员工", "three employees" -> "3
    employees"), full-width digits as ASCII."""
    import unicodedata

    text = "".join(unicodedata.normalize("NFKC", ch) if ch.isdigit() else ch for ch in text or "")
    text = re.sub(
        r"(?<![\d一二三四五六七八九十两])([一二三四五六七八九两])(?=\s*(?:个|名|位)?(?:人|员工|店员|伙计|"
        r"雇员|同事|成员|工人|厨师|服务员)|\s*(?:个|名|位))",
        lambda m: str("一二三四五六七八九".find(m.group(1)) + 1 if m.group(1) != "两" else 2),
        text,
    )
    # "1万2" is 12,000 and "3千5" 3,500 (the digit after the unit is the next place), not 10,002
    text = re.sub(r"(\d+)万([1-9])(?![\d千百十万.])", r"\1.\2万", text)
    text = re.sub(r"(\d+)千([1-9])(?![\d百十千万.])", r"\1.\2千", text)
    return _en_words_to_digits(cn_numerals_to_digits(text))


def quantities(text: str) -> list[Quantity]:
    """Every number in `text` with what it counts."""
    text = normalise(text)
    out = []
    for m in _NUMBER.finditer(text):
        raw = m.group(1)
        before, after = text[: m.start()], text[m.end() :]
        number = float(raw.replace(",", ""))
        code = (
            bool(
                _CODE_BEFORE.search(before)
                and not _CURRENCY_BEFORE.search(before)
                and not re.search(r"(?:usd|eur|gbp|rmb|cny|jpy|hkd|us\$?)\s?$", before, re.I)
            )
            or bool(_CODE_AFTER.match(after) and not _MULTIPLIER.match(after))
            or bool(
                _NAME_BEFORE.search(before)
                and not _MULTIPLIER.match(after)
                and not _CURRENCY_AFTER.match(after)
                and not _PEOPLE.match(after)
                and not _AREA.match(after)
            )
        )
        scale_m = _MULTIPLIER.match(after)
        rest = after[scale_m.end() :] if scale_m else after
        if scale_m:
            number *= _SCALE[scale_m.group(1).lower()]
        currency = ""
        cur_after = _CURRENCY_AFTER.match(rest)
        cur_before = _CURRENCY_BEFORE.search(before)
        for cm in (cur_after, cur_before):
            if cm:
                currency = next(c for c, _ in CURRENCIES if cm.group(c))
                break
        if currency:
            unit = "money"
        elif _AREA.match(rest):
            unit = "area"
        elif _PEOPLE.match(rest) or (_PEOPLE_BEFORE.search(before) and not _OTHER.match(rest)):
            unit = "people"
        elif _AGE.match(rest):
            unit = "age"
        elif _OTHER.match(rest) and not scale_m:
            unit = "other"
        elif (
            _YEAR.match(raw)
            and not scale_m
            and (_YEAR_CONTEXT.search(before) or not rest.strip() or re.match(r"^\s*[,，.。)]", rest))
        ):
            unit = "other"  # "in 2019", "since 1998": a year
        else:
            unit = "bare"
        if scale_m and unit == "bare":
            unit = "scaled"  # "40 万", "60k": an amount, most likely of money
        out.append(Quantity(amount=number, unit=unit, currency=currency, start=m.start(), end=m.end(), code=code))
    return out


_MONEY_WORDS = re.compile(
    r"预算|资金|本钱|成本|花|费用|投入|存款|攒了|budget|afford|spend|funds?\b|savings?|invest|cost", re.IGNORECASE
)


def slot_amount(slot: str, text: str, *, keyword: bool) -> Quantity | None:
    """The quantity of `text` that fills `slot`, or None. `keyword`: the slot's own word is in the text ("预算",
    "budget", "员工", "staff"), which lets a bare number ("预算 40", "staff of 5") count; without it only a number
    whose unit says what it is counts."""
    found = [q for q in quantities(text) if not q.code]
    if slot in MONEY_SLOTS:
        money = [q for q in found if q.unit == "money"]
        if money:
            return money[0]
        if keyword:
            return next((q for q in found if q.unit in ("scaled", "bare")), None)
        return None
    if slot == "orders":
        return next((q for q in found if q.unit in ("bare", "scaled")), None) if keyword else None
    if slot == "staff":
        people = [q for q in found if q.unit == "people"]
        if people:
            return people[0]
        return next((q for q in found if q.unit == "bare"), None) if keyword else None
    if slot == "shop_size":
        return next((q for q in found if q.unit == "area"), None)
    if slot == "age":
        return next((q for q in found if q.unit == "age"), None)
    return None


def money_text(amount: float, currency: str, chinese: bool, approx: bool = False) -> str:
    """An amount as the note says it, in the user's currency: "20,000 euros", "$3,000", "2 万欧元", "5 万元"."""
    number = f"{int(amount):,}" if float(amount).is_integer() else f"{amount:,.2f}".rstrip("0").rstrip(".")
    if chinese:
        names = {
            **{"EUR": "欧元", "GBP": "英镑", "USD": "美元", "JPY": "日元", "HKD": "港元", "CNY": "元", "": "元"},
            **{"CAD": "加元", "AUD": "澳元", "SGD": "新加坡元", "TWD": "新台币"},
        }
        if amount >= 10000 and (amount / 10000) * 10 == int((amount / 10000) * 10):
            value = amount / 10000
            return f"{int(value) if value.is_integer() else value:g} 万{names.get(currency, '元')}"
        return f"{number.replace(',', '')} {names.get(currency, '元')}"
    if currency == "USD":
        return f"${number}"
    if currency == "GBP":
        return f"£{number}"
    if currency == "EUR":
        return f"{number} euros"
    if currency == "CNY":
        return f"{number} yuan"
    if currency == "JPY":
        return f"{number} yen"
    if currency == "HKD":
        return f"HK${number}"
    prefixes = {"CAD": "C$", "AUD": "A$", "SGD": "S$", "TWD": "NT$"}
    return f"{prefixes[currency]}{number}" if currency in prefixes else number
