"""Memory as a person reads it, in the language of the page: a note's slot ("budget" -> "预算"), its canonical
option ("vegetarian" -> "素食"), where a forgotten fact was removed from, and a pinned fact's name.

Memory stores codes (`constraint:budget`, `vegetarian`) and a short label built from them ("budget ~40 万元",
memory.services.notes.events.note_label); the numbers and units in that label are already the user's own ("40 万元",
"20,000 euros"). This module only replaces the codes around them, so the memory layer keeps one stored form and
every page shows it in the reader's language; where the user's own words are at hand (the message a notice is
for, a note's quote) an amount or an area is shown as the user wrote it ("400k", "40万", "60平米"), not as
the stored number ("400,000", "40 万元", "60 m²").
"""

from __future__ import annotations

import re

from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext, pgettext_lazy

from assistants.services.forgetting import PLACE_NAMES
from assistants.services.pinned import LABELS as PINNED_LABELS
from assistants.services.pinned import LIMIT_PREFIX
from memory.services.writing.quantities import CURRENCIES, Quantity, quantities

# Who a note came from (MemoryNote.source), as its owner reads it.
SOURCE_LABELS = {
    "user_stated": gettext_lazy("You said it"),
    "agent_inferred": gettext_lazy("Inferred by the assistant"),
    "tool_result": gettext_lazy("From a tool"),
    "admin": gettext_lazy("Added by staff"),
}

# The slots of memory.services.writing.topic_lexicon, as a person calls them.
SLOT_LABELS = {
    "commute": pgettext_lazy("memory slot", "commute"),
    "drink": pgettext_lazy("memory slot", "drink"),
    "diet": pgettext_lazy("memory slot", "diet"),
    "allergy": pgettext_lazy("memory slot", "allergy"),
    "health": pgettext_lazy("memory slot", "health"),
    "budget": pgettext_lazy("memory slot", "budget"),
    "shop_size": pgettext_lazy("memory slot", "shop size"),
    "revenue": pgettext_lazy("memory slot", "revenue"),
    "rent": pgettext_lazy("memory slot", "rent"),
    "orders": pgettext_lazy("memory slot", "orders"),
    "lease": pgettext_lazy("memory slot", "lease"),
    "opening_date": pgettext_lazy("memory slot", "opening date"),
    "staff": pgettext_lazy("memory slot", "staff"),
    "business": pgettext_lazy("memory slot", "business"),
    "occupation": pgettext_lazy("memory slot", "occupation"),
    "name": pgettext_lazy("memory slot", "name"),
    "age": pgettext_lazy("memory slot", "age"),
    "family": pgettext_lazy("memory slot", "family"),
    "pet": pgettext_lazy("memory slot", "pet"),
    "location": pgettext_lazy("memory slot", "location"),
    "exercise": pgettext_lazy("memory slot", "exercise"),
    "seat": pgettext_lazy("memory slot", "seat"),
    "opening_hours": pgettext_lazy("memory slot", "opening hours"),
    "trip": pgettext_lazy("memory slot", "trip"),
    "language": pgettext_lazy("memory slot", "language"),
}

# The canonical options of a slot (memory.services.writing.topic_lexicon), as a person says them.
OPTION_LABELS = {
    "subway": pgettext_lazy("memory option", "subway"),
    "bus": pgettext_lazy("memory option", "bus"),
    "car": pgettext_lazy("memory option", "car"),
    "bike": pgettext_lazy("memory option", "bike"),
    "walk": pgettext_lazy("memory option", "on foot"),
    "taxi": pgettext_lazy("memory option", "taxi"),
    "americano": pgettext_lazy("memory option", "americano"),
    "latte": pgettext_lazy("memory option", "latte"),
    "cappuccino": pgettext_lazy("memory option", "cappuccino"),
    "espresso": pgettext_lazy("memory option", "espresso"),
    "mocha": pgettext_lazy("memory option", "mocha"),
    "flat_white": pgettext_lazy("memory option", "flat white"),
    "tea": pgettext_lazy("memory option", "tea"),
    "milk_tea": pgettext_lazy("memory option", "milk tea"),
    "coffee": pgettext_lazy("memory option", "coffee"),
    "vegetarian": pgettext_lazy("memory option", "vegetarian"),
    "vegan": pgettext_lazy("memory option", "vegan"),
    "spicy": pgettext_lazy("memory option", "spicy food"),
    "light": pgettext_lazy("memory option", "light food"),
    "window": pgettext_lazy("memory option", "window seat"),
    "aisle": pgettext_lazy("memory option", "aisle seat"),
}


def slot_of(key: str) -> str:
    """The slot of a note key: "constraint:budget" -> "budget"."""
    return (key or "").split(":")[-1]


def slot_label(key: str) -> str:
    slot = slot_of(key)
    return str(SLOT_LABELS[slot]) if slot in SLOT_LABELS else slot.replace("_", " ")


def _value_text(slot: str, value: str) -> str:
    """A slot's value in the page's language: options named, "~" said as a word, head counts with their unit."""
    approx = value.startswith("~")
    value = value.lstrip("~").strip()
    if value in OPTION_LABELS:
        value = str(OPTION_LABELS[value])
    elif slot == "staff" and value.endswith(" people") and value[: -len(" people")].isdigit():
        count = int(value[: -len(" people")])
        value = ngettext("%(count)d person", "%(count)d people", count) % {"count": count}
    return pgettext("approximate value", "about %(value)s") % {"value": value} if approx else value


def fact_label(key: str, label: str) -> str:
    """A note's short label (memory.services.notes.events.note_label: "<slot> <value>", else its sentence) with the
    slot and option codes in the page's language: "budget ~40 万元" -> "预算 约 40 万元"."""
    slot = slot_of(key)
    label = label or ""
    if not slot or not label.startswith(f"{slot} "):
        return label
    return f"{slot_label(slot)} {_value_text(slot, label[len(slot) + 1 :])}"


def fact_value(key: str, value: str) -> str:
    """The value part alone ("30 万元"), for "budget 40 万元 → 30 万元"."""
    slot = slot_of(key)
    return _value_text(slot, value or "") if slot else value or ""


def places_text(places) -> str:
    """Where a forgotten fact was removed from, in the page's language: "notes, pinned facts"."""
    names = [str(PLACE_NAMES[p]) if p in PLACE_NAMES else str(p) for p in places or []]
    return gettext(", ").join(names) if names else ""


def pinned_fact_label(key: str) -> str:
    """A pinned fact's name in the page's language ("budget" -> "预算", "limit:装修" -> "装修上限")."""
    if key.startswith(LIMIT_PREFIX):
        return pgettext("pinned fact", "Limit on %(subject)s") % {"subject": key[len(LIMIT_PREFIX) :]}
    return str(PINNED_LABELS[key]) if key in PINNED_LABELS else key.replace("_", " ")


# An amount or an area as written, whole: "$400k", "40 万元", "五十万", "1.2 million dollars", "60平米".
_AMOUNT_RE = re.compile(
    r"(?:(?:us\$|hk\$|[$€£¥￥]|\b(?:usd|eur|gbp|rmb|cny|jpy|hkd)\s?)\s?)?"
    r"(?:\d[\d,]*(?:\.\d+)?|[零一二两三四五六七八九十百千万亿]+)"
    r"(?:\s*(?:亿|千万|百万|万|w(?![a-z])|千|k(?![a-z])|thousand\b|million\b|m(?![a-z²2])|grand\b|mn\b|bn\b|"
    r"billion\b)\d?(?!\d))?"
    r"(?:\s*(?:" + "|".join(rx for _, rx in CURRENCIES) + "))?"
    r"(?:\s*(?:平方米|平方|平米|个平|平(?![时常均安])|㎡|m²|m2\b|sqm\b|sq\.?\s?m\b|square\s+(?:meters?|metres?|feet|foot)|"
    r"sq\.?\s?ft\b))?",
    re.I,
)
_WORDED_SLOTS = {"budget", "revenue", "rent", "shop_size"}


def _amounts(text: str) -> list[tuple[int, int, Quantity]]:
    """Each amount or area in `text` as (start, end, what it is), the span taken whole as written."""
    found = []
    for m in _AMOUNT_RE.finditer(text):
        read = [q for q in quantities(m.group()) if not q.code]
        if read and read[0].unit in ("money", "scaled", "bare", "area"):
            found.append((m.start(), m.start() + len(m.group().rstrip()), read[0]))
    return found


def in_users_words(text: str, said: str) -> str:
    """`text` (a note's label or sentence, written by memory from the stored number) with each amount or area
    that the user's words `said` also hold, by value, put back as the user wrote it: "budget ~400,000" with
    "My budget is about 400k" -> "budget ~400k"; "用户的预算约 40 万元。" with "预算大概40万" -> "用户的预算约 40万。".
    A currency stored for the note that the user's words do not name is kept (the stored number is shown then)."""
    if not text or not said:
        return text or ""
    theirs = _amounts(said)
    out, done = [], 0
    for start, end, q in _amounts(text):
        match = next(
            (
                (s, e, t)
                for s, e, t in theirs
                if abs(t.amount - q.amount) < 1e-6 * max(1.0, q.amount) and (t.unit == "area") == (q.unit == "area")
            ),
            None,
        )
        if match is None or (q.currency not in ("", "CNY") and not match[2].currency):
            continue  # "$400,000" said as "400k" elsewhere: the dollar sign is part of the truth
        out += [text[done:start], said[match[0] : match[1]]]
        done = end
    return "".join(out) + text[done:]


def event_in_users_words(event: dict, *, said: str, said_before: str) -> dict:
    """A memory event of a turn with its amounts as the user wrote them: `said` is the message of the turn,
    `said_before` the words the note it replaced came from ("" when unknown)."""
    if slot_of(event.get("key", "")) not in _WORDED_SLOTS:
        return event
    shown = dict(event, label=in_users_words(event.get("label", ""), said))
    shown["value"] = in_users_words(event.get("value", ""), said)
    if event.get("before"):
        shown["before"] = dict(event["before"], label=in_users_words(event["before"].get("label", ""), said_before))
    return shown
