"""Whether a short statement about the user is a lasting fact ("I'm a carpenter", "I have asthma") or how they are
right now ("I'm tired", "I have a question"): one content word says too little for the rules, the encoder decides.

The examples are written for the two sides (not copied from any evaluation set), on many topics, so that what is
close to a side is its kind of statement and not its subject. A statement is lasting when it is closer to the
lasting examples than to the passing ones by MARGIN.
"""

from __future__ import annotations

from memory.reading.sides import TwoSides

LASTING = [
    "I'm a nurse.",
    "I'm an architect.",
    "I'm a plumber.",
    "I'm a widow.",
    "I'm vegetarian.",
    "I'm left-handed.",
    "I'm diabetic.",
    "I'm Catholic.",
    "I'm retired.",
    "I'm married.",
    "I'm divorced.",
    "I'm colour-blind.",
    "I'm deaf in one ear.",
    "I'm an only child.",
    "I'm a twin.",
    "I'm a freelancer.",
    "I'm Canadian.",
    "I have epilepsy.",
    "I have eczema.",
    "I have twins.",
    "I have a stepson.",
    "I have a mortgage.",
    "I have dyslexia.",
    "I have a PhD.",
    "I own a bakery.",
    "I speak Portuguese.",
    "I'm from Scotland.",
    "I'm from a farming family.",
]
PASSING = [
    "I'm tired.",
    "I'm fine.",
    "I'm back.",
    "I'm here.",
    "I'm hungry.",
    "I'm bored.",
    "I'm ready.",
    "I'm done.",
    "I'm busy.",
    "I'm confused.",
    "I'm sorry.",
    "I'm late.",
    "I'm curious.",
    "I'm excited!",
    "I'm stuck.",
    "I'm lost.",
    "I'm outside.",
    "I'm listening.",
    "I have a question.",
    "I have an idea.",
    "I have a headache.",
    "I have a meeting.",
    "I have a cold.",
    "I have homework.",
    "I have no clue.",
    "I have time now.",
    "I'm at the airport.",
    "I'm in a taxi.",
    "I'm on my way.",
]
MARGIN = 0.02
_SIDES = TwoSides(PASSING, LASTING)


def is_lasting(statement: str) -> bool:
    """Whether a short first-person statement is a lasting fact about its speaker."""
    return _SIDES.lean(statement) >= MARGIN
