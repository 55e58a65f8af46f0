"""What a number in a statement measures ("65公斤", "74 kg": a weight; "1000 mg": a dose; "36了" after a birthday:
an age), so that a statement giving the same measure another value is read as its change ("down to 74 kg now"
after "The user weighs 80 kg"), and two numbers of different measures never are ("3 kids" is no weight).
"""

from __future__ import annotations

import re

from memory.services.writing.quantities import normalise, quantities

# each measure with the units that name it, in either language (the longer spellings first)
_UNITS = {
    "weight": r"kgs?|kilos?|kilograms?|lbs?|stone|公斤|千克|斤",
    "dose": r"mg|mcg|µg|ml|毫克|微克|毫升|片|粒",
    "length": r"cm|centimet(?:er|re)s?|mm|inch(?:es)?|feet|foot|ft|厘米|公分|毫米|米(?!饭)",
    "distance": r"km|kms|kilomet(?:er|re)s?|miles?|公里|千米",
    "age": r"years? old|yo|y/o|周岁|岁",
    "duration": r"hours?|hrs?|minutes?|mins?|小时|个小时|分钟",
    "frequency": r"times? (?:a|per) (?:day|week|month)|次",
    "children": r"kids?|children|sons?|daughters?|个孩子|个娃|个小孩",
    "pets": r"cats?|dogs?|只猫|只狗|条狗",
    "size": r"m2|m²|sqm|square met(?:er|re)s?|sq ?ft|平米|平方米?|平",
    "clock": r"[ap]\.?m\.?|o'clock|点(?!钟头)",
}
_MEASURE = re.compile(
    r"(?<![A-Za-z0-9_.])(\d+(?:\.\d+)?)\s*(" + "|".join(f"(?P<{k}>{v})" for k, v in _UNITS.items()) + r")(?![a-z])",
    re.IGNORECASE,
)
# the factor that brings a unit to its measure's base unit (kg, cm, km, mg); a unit not listed counts as 1
_TO_BASE = (
    (re.compile(r"lbs?$", re.I), 0.4536),
    (re.compile(r"stone$", re.I), 6.35),
    (re.compile(r"^斤$"), 0.5),
    (re.compile(r"^(?:mm|毫米)$", re.I), 0.1),
    (re.compile(r"^inch", re.I), 2.54),
    (re.compile(r"^(?:feet|foot|ft)$", re.I), 30.48),
    (re.compile(r"^米$"), 100.0),
    (re.compile(r"^miles?$", re.I), 1.609),
    (re.compile(r"^(?:mcg|µg|微克)$", re.I), 0.001),
)
# "turned 36", "36 now", "刚过完生日，36了": an age said without its unit
_AGE_SAID = re.compile(
    r"\bturn(?:ed|s|ing)?\s+(\d{1,3})\b|生日.{0,8}?(\d{1,3})\s*了|(?<!\d)(\d{1,3})\s*(?:了|now)\b|(?<!\d)(\d{1,2})了"
)


def measures(text: str) -> dict[str, set[float]]:
    """{measure: amounts} for the numbers of `text` whose unit says what they measure (money and head counts as
    memory.services.writing.quantities reads them)."""
    said = normalise(text or "")
    found: dict[str, set[float]] = {}
    for m in _MEASURE.finditer(said):
        kind = next(k for k in _UNITS if m.group(k))
        factor = next((f for rx, f in _TO_BASE if rx.search(m.group(2).strip())), 1.0)
        found.setdefault(kind, set()).add(round(float(m.group(1)) * factor, 1))
    for q in quantities(said):
        if q.unit in ("money", "people", "age", "area") and not q.code:
            found.setdefault({"area": "size"}.get(q.unit, q.unit), set()).add(q.amount)
    return found


def _alike(a: set[float], b: set[float]) -> bool:
    """Two sets of amounts of one measure agree (within 3%: 180 cm is 5 ft 11)."""
    return all(any(abs(x - y) <= 0.03 * max(abs(x), abs(y), 1.0) for y in b) for x in a)


def bare_numbers(text: str) -> set[float]:
    """The numbers of `text` said with no unit ("36了", "turned 36")."""
    said = normalise(text or "")
    return {float(n) for m in _AGE_SAID.finditer(said) for n in m.groups() if n}


# amounts a sentence may name without changing anything ("the latte here is 32 块", "a team of 6 at work"): only a
# change word makes them a change
_PASSING = {"money", "people"}


def says_measure(text: str) -> bool:
    """Whether `text` gives an amount that could change a note without a change word (not money nor a head count:
    those need one, see measure_changed)."""
    return bool(set(measures(text)) - _PASSING or bare_numbers(text))


def measure_changed(sentence: str, note_text: str, *, worded: bool = False) -> bool:
    """The sentence gives a measure the note holds another amount of ("74 kg" / "weighs 80 kg"; "36了" / "今年35岁"
    when the note holds one age and the sentence a bare number). Money and head counts count only when the sentence
    says that something changed (`worded`)."""
    said, held = measures(sentence), measures(note_text)
    shared = (set(said) & set(held)) - (set() if worded else _PASSING)
    if shared:
        return any(not _alike(said[k], held[k]) for k in shared)
    if said:
        return False
    bare = bare_numbers(sentence)
    return bool(bare and held.get("age") and bare != held["age"])
