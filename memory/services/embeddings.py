"""Embeddings: pluggable, never comparing vectors of two different models. (Interface fixed; issue 4 owns it.)

The offline default is lexical and honest about it: hashed character n-grams (CJK unigrams and bigrams, Latin
word unigrams and character trigrams) into EMBEDDING_DIMENSIONS buckets, L2-normalised. It needs no download and
treats Chinese and English alike; it finds shared words and characters, not synonyms.
"""
from __future__ import annotations

import hashlib
import math
import re

from django.conf import settings

OFFLINE_MODEL = "offline-hash-ngram-v1"

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[A-Za-z]+|\d+(?:\.\d+)?")


def text_features(text: str) -> list[str]:
    """The lexical features the offline embedder and keyword search share."""
    feats: list[str] = []
    for token in _TOKEN.findall((text or "").lower()):
        if _CJK.match(token):
            feats.extend(token)
            feats.extend(token[i:i + 2] for i in range(len(token) - 1))
        else:
            feats.append(token)
            if len(token) > 4 and token.isalpha():
                padded = f"#{token}#"
                feats.extend(padded[i:i + 3] for i in range(len(padded) - 2))
    return feats


def _offline_vector(text: str, dims: int) -> list[float]:
    vec = [0.0] * dims
    for feat in text_features(text):
        digest = hashlib.blake2b(feat.encode(), digest_size=8).digest()
        index = int.from_bytes(digest[:4], "little") % dims
        vec[index] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec] if norm else vec


def embed_texts(*, texts: list[str], model: str | None = None) -> tuple[str, list[list[float]]]:
    """Embed `texts` with `model` (default: LLM_EMBEDDING_MODEL). Returns (model name, vectors)."""
    model = model or settings.LLM_EMBEDDING_MODEL
    dims = settings.EMBEDDING_DIMENSIONS
    if model == OFFLINE_MODEL:
        return model, [_offline_vector(t, dims) for t in texts]
    from openai import OpenAI

    client = OpenAI(base_url=settings.OPENAI_BASE_URL or None, api_key=settings.OPENAI_API_KEY or "none",
                    timeout=settings.LLM_TIMEOUT_SECONDS, max_retries=settings.LLM_MAX_RETRIES)
    response = client.embeddings.create(model=model, input=texts, dimensions=dims)
    return model, [item.embedding for item in response.data]
