"""Two sides of one question, each a bank of example sentences: which side a sentence is nearer to, by the mean
cosine of its TOP closest examples on each side (the shipped encoder, the banks embedded once per process).
memory.reading.durable and memory.reading.about ask their questions this way."""

from __future__ import annotations

import threading

import numpy as np

TOP = 2


class TwoSides:
    def __init__(self, first: list[str], second: list[str]):
        self._examples = (first, second)
        self._vectors: tuple[np.ndarray, np.ndarray] | None = None
        self._lock = threading.Lock()

    def lean(self, sentence: str) -> float:
        """How much nearer `sentence` is to the second side than to the first (negative: nearer the first)."""
        from memory.reading.intents import encode

        with self._lock:
            if self._vectors is None:
                self._vectors = (encode(self._examples[0]), encode(self._examples[1]))
        v = encode([sentence])[0]
        first, second = (float(np.sort(bank @ v)[-TOP:].mean()) for bank in self._vectors)
        return second - first
