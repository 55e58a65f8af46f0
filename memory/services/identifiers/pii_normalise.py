"""Normalisation for personal-identifier detection (memory.services.identifiers.pii), with an offset map back to the
original text, so a span found in the normalised text redacts exactly the original characters: full-width forms
become ASCII (NFKC, one character for one), and runs of digits spoken or written as words (English, Chinese, and
any mix with ASCII digits, 7 digits or more) become digits."""

from __future__ import annotations

import re
import unicodedata

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


def normalise(text: str) -> tuple[str, list[int], list[int]]:
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
