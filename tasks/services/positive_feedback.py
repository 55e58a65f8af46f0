"""Explicit positive feedback in a user's message ("很好，就按这个来", "perfect, go with this"): what makes the
pre-turn hook assistants.services.feedback.feedback_turn_hook record a thumbs-up, the only trigger of experience
memory's writes (tasks.services.experience)."""

from __future__ import annotations

import re

# Praise opens the message ("很好，…", "Perfect, …"); agreement to go ahead may stand anywhere ("…就按这个来").
_OPENER = r"^\s*(?:嗯|哇|哦|噢|好|oh|wow|ok|okay)?[\s,，!！.。~]*"
_POSITIVE_ZH = re.compile(
    _OPENER + r"(?:很好|非常好|太好了|太棒了|很棒|真棒|完美|很满意|非常满意|好极了|非常感谢)|"
    r"就按这个|就照这个|按你说的(?:来|做|办)|就这么(?:办|做|定)|就这样(?:吧|定了)"
)
_POSITIVE_EN = re.compile(
    _OPENER + r"(?:great|perfect|excellent|awesome|amazing|fantastic|brilliant|love it|well done|spot on|"
    r"sounds great|looks great)\b|\b(?:exactly what i (?:needed|wanted)|works for me|(?:let'?s )?go with (?:this|that|it))\b",
    re.IGNORECASE,
)
_NEGATION_BEFORE = re.compile(
    r"(?:不|没|别|未|not\s+|n't\s+|never\s+|hardly\s+)(?:太|很|那么|是|so\s+|that\s+|very\s+|really\s+)?$",
    re.IGNORECASE,
)


def is_positive_feedback(text: str) -> bool:
    """An explicit, unnegated statement that the previous answer was good ("很好，就按这个来", "perfect, go with
    this"); "不太满意" and "not great" are not."""
    text = text or ""
    for pattern in (_POSITIVE_ZH, _POSITIVE_EN):
        for m in pattern.finditer(text):
            if not _NEGATION_BEFORE.search(text[max(0, m.start() - 12) : m.start()]):
                return True
    return False
