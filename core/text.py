"""The small text toolkit every layer shares: which language a text is in, its sentences, and numbers written
in Chinese numerals (on `cn2an`) or English number words.

Two questions about language, answered one way each:
- `has_chinese`: does the text hold any Chinese character? (The user wrote Chinese: reply, note and title in
  Chinese; the note's rules read it as Chinese.)
- `mostly_chinese`: is the text mainly Chinese? (A Chinese name in an English reply keeps the reply English.)
"""

from __future__ import annotations

import re
import warnings

import cn2an

CJK = re.compile(r"[\u3400-\u9fff]")  # CJK unified ideographs, with extension A
_LATIN = re.compile(r"[A-Za-z]")
# a Latin "!" or "?" inside a word ("Qwer!234") ends no sentence
_SENTENCE_SPLIT = re.compile(r"(?<=[。！？；\n])|(?<=[!?;])(?![A-Za-z0-9#@$%&*_])|(?<=\.)\s+")
_CN_NUMERAL_RUN = re.compile(r"(?:\d+(?:\.\d+)?)?[零〇一二三四五六七八九十百千万亿两]+")
_PLACE_VALUE = re.compile(r"[十百千万亿]")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")

# English number words an amount or a head count is often written in ("three employees", "a dozen staff"): the
# one table the offline readers (memory.services.writing.quantities, tasks.services.field_extraction) share.
EN_NUMBER_WORDS: dict[str, int] = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
    "hundred": 100,
    "a dozen": 12,
    "dozen": 12,
}


def has_chinese(text: str | None) -> bool:
    """True when the text holds at least one Chinese character."""
    return bool(CJK.search(text or ""))


def language_of(text: str | None) -> str:
    """'zh' when the text holds Chinese characters, else 'en' (a reply follows the user's language)."""
    return "zh" if has_chinese(text) else "en"


def mostly_chinese(text: str | None, *, latin_per_cjk: float = 2.0) -> bool:
    """True when the text is mainly Chinese: it has Chinese characters and at most `latin_per_cjk` Latin letters
    for each of them (a Chinese character carries about as much as a short English word)."""
    cjk = len(CJK.findall(text or ""))
    latin = len(_LATIN.findall(text or ""))
    return cjk > 0 and cjk * latin_per_cjk >= latin


# contractions typed without their apostrophe ("dont keep", "im vegan now"): restoring it changes no word a quote
# is compared on (memory.services.writing.extraction compares quotes without apostrophes)
_APOSTROPHES = (
    (re.compile(r"\b(do|does|did|ca|wo|is|are|was|were|have|has|had|should|could|would|must)nt\b", re.I), r"\1n't"),
    (re.compile(r"\b(?:im|Im)\b"), "I'm"),
    (re.compile(r"\b(?:ive|Ive)\b"), "I've"),
    (
        re.compile(
            r"\b(that|what|there|it|he|she)s\b(?=\s+(?:a|an|the|my|not|been|gone|got|just|so|really|now)\b)", re.I
        ),
        r"\1's",
    ),
    (re.compile(r"\b(you|they)re\b", re.I), r"\1're"),
)
# the shorthand of chat ("can u remove", "dont keep", "plz"), in the words the readers know
_TEXTING = (
    *_APOSTROPHES,
    (re.compile(r"\bu\b", re.I), "you"),
    (re.compile(r"\bur\b", re.I), "your"),
    (re.compile(r"\b(?:plz|pls|plez)\b", re.I), "please"),
    (re.compile(r"\bwanna\b", re.I), "want to"),
    (re.compile(r"\bgonna\b", re.I), "going to"),
)


def with_apostrophes(text: str) -> str:
    """`text` with the apostrophes of its contractions put back ("im pescatarian now" -> "I'm pescatarian now")."""
    for rx, word in _APOSTROPHES:
        text = rx.sub(word, text)
    return text


def spelled_out(text: str) -> str:
    """Chat shorthand spelled out ("can u remove ur note" -> "can you remove your note"); Chinese is left as it is."""
    for pattern, word in _TEXTING:
        text = pattern.sub(word, text)
    return text


def split_sentences(text: str | None) -> list[str]:
    """Sentences, cut after Chinese and Latin sentence ends (。！？；and . ! ? ; and line breaks), stripped,
    empty ones left out."""
    return [s.strip() for s in _SENTENCE_SPLIT.split(text or "") if s and s.strip()]


def _cn2an(run: str) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cn2an warns on some inputs it still reads
        return float(cn2an.cn2an(run, "smart"))


def cn_numerals_to_digits(text: str) -> str:
    """Chinese numerals to Arabic in running text ("四千" -> "4000", "十五万" -> "150000"), leaving the rest.

    Only runs with a place value (十/百/千/万/亿) are numbers: "一共", "两只", "一家" are words, not amounts."""

    def convert(m: re.Match) -> str:
        run = m.group()
        if len(run) < 2 or not _PLACE_VALUE.search(run):
            return run
        try:
            return str(_cn2an(run)).removesuffix(".0")
        except Exception:  # noqa: BLE001 - cn2an rejects some runs ("十点"): read them as they are
            return run

    return _CN_NUMERAL_RUN.sub(convert, text)


def cn_number(token: str | None) -> float | None:
    """One number written in digits ("1,000", "2.5") or Chinese numerals ("五", "二十", "两", "一百二十", "3万"),
    or None when the token is not one."""
    token = (token or "").strip()
    if not token:
        return None
    if _DIGITS.fullmatch(token):
        return float(token.replace(",", ""))
    try:
        return _cn2an(token.replace("两", "二"))
    except Exception:  # noqa: BLE001 - cn2an raises several types for text that is not a number
        return None


_FRACTIONS = {"half": 0.5, "third": 1 / 3, "quarter": 0.25, "fifth": 0.2, "tenth": 0.1}
_FRACTION_WORD = re.compile(r"\b(?:a |one )?(half)\b|\b(?:a|one) (third|quarter|fifth|tenth)\b", re.IGNORECASE)


def share_of(text: str | None) -> float | None:
    """A share written in the text: "20%", "百分之十五", "两成", "三分之一", "half", "a quarter" -> 0.2, 0.15, 0.2,
    1/3, 0.5, 0.25; None when it gives none (the one reader the offline model and memory's rules share)."""
    text = text or ""
    m = re.search(r"(\d+(?:\.\d+)?)\s*(?:%|％|percent\b)", text, re.IGNORECASE)
    if m:
        return float(m.group(1)) / 100
    m = re.search(r"百分之([\d零一二两三四五六七八九十百]+)", text)
    if m and (percent := cn_number(m.group(1))) is not None:
        return percent / 100
    m = re.search(r"([\d一二两三四五六七八九])\s*成", text)
    if m and (tenths := cn_number(m.group(1))) is not None:
        return tenths / 10
    m = re.search(r"([\d一二两三四五六七八九十]+)分之([\d一二两三四五六七八九十]+)", text)
    if m:
        whole, part = cn_number(m.group(1)), cn_number(m.group(2))
        return part / whole if whole and part is not None else None
    m = _FRACTION_WORD.search(text)
    if m:
        return _FRACTIONS[(m.group(1) or m.group(2)).lower()]
    return None
