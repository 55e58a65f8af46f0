"""What one sentence is for: the offline reader's intent, by similarity to the labelled bank (memory.reading.bank)
with the cue words (memory.reading.cues) as features.

A sentence with no cue is a plain sentence (a statement, a question, a request: memory.services.writing.rules reads it).
A sentence with cues is compared with the bank's examples of each intent its cues allow and of the labels that
share those cues without the intent; the closest label wins, with the cue features added to its score. The
encoder is the multilingual one the platform ships, whatever embedding model a tenant uses for recall: the bank
is embedded once per process.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from memory.reading import cues
from memory.reading.bank import BANK
from memory.reading.phrases import forget_phrase

# the labels a cue lets compete, beside the ones that carry the same words without the intent
RIVALS = {
    "forget": ("forget", "not_forget", "question"),
    "off_record": ("off_record", "question"),
    "hypothetical": ("hypothetical", "not_hypothetical", "question"),
    "attack": ("attack", "style", "question"),
    "style": ("style", "statement", "question", "attack"),
}
INTENTS = ("forget", "off_record", "hypothetical", "attack", "style")
TOPIC_WEIGHT = 0.5  # how much of the topic's own likeness to a label is taken off
TOP = 2  # a label's score: the mean cosine of its TOP closest examples
_bank: dict[str, np.ndarray] | None = None
_lock = threading.Lock()


@dataclass(frozen=True)
class Intent:
    label: str  # one of INTENTS, or "plain"
    score: float
    margin: float  # over the best rival label


def encode(texts: list[str]) -> np.ndarray:
    """Unit vectors of `texts` from the shipped multilingual encoder (identifiers redacted first)."""
    from memory.services.vectors.embeddings import SENTENCE_MODEL, embed_texts

    _model, vectors = embed_texts(texts=texts, model=SENTENCE_MODEL)
    matrix = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-9)


def _bank_vectors() -> dict[str, np.ndarray]:
    global _bank
    with _lock:
        if _bank is None:
            _bank = {label: encode(examples) for label, examples in BANK.items()}
        return _bank


def _feature_bonus(label: str, sentence: str) -> float:
    """The rules as features: a cue's own structure makes its intent more likely."""
    if label == "forget":
        bonus = 0.06 if cues.MEMORY_OBJECT.search(sentence) else 0.0  # "delete what you know about", "那条记录"
        if cues.FORGET_IMPERATIVE.search(sentence.strip()):
            bonus += 0.2  # the form of a request
        if cues.FORGET_WISH.search(sentence):
            bonus += 0.15  # "I'd rather you didn't keep …", "不需要你记"
        if cues.FORGET_UNWANTED.search(sentence) or cues.FORGET_REGRET.search(sentence):
            bonus += 0.15  # "I'd prefer you not hold on to …", "I regret mentioning …", "当我没说过"
        if cues.FORGET_KNOWN.search(sentence):
            bonus += 0.15  # "X那个别记了": something already known
        if cues.REMINDER.search(sentence):
            bonus -= 0.3  # "don't forget my birthday is Friday": a reminder, the opposite of a forget
        if cues.FORGET_SELF.search(sentence.strip()):
            bonus -= 0.25  # "I forgot my keys": the user's own forgetting
        if cues.NOT_MEMORY_OBJECT.search(sentence) and not cues.MEMORY_OBJECT.search(sentence):
            bonus -= 0.2  # "delete this file": a thing, not the assistant's memory
        return bonus
    if (
        label == "question"
        and cues.FORGET_IMPERATIVE.search(sentence.strip())
        and not sentence.rstrip().endswith(("?", "？"))
    ):
        return -0.15  # "please forget when my birthday is": a request, though it holds a question word
    if label == "attack" and cues.ATTACK.search(sentence):
        return 0.08
    if label == "style" and cues.STYLE.search(sentence) and not cues.ATTACK.search(sentence):
        return 0.1 if cues.STYLE_HABIT.search(sentence) else 0.04  # "always give me the code first"
    if label == "off_record" and cues.OFF_RECORD.search(sentence):
        return 0.06
    if label == "hypothetical" and cues.HYPOTHETICAL.search(sentence):
        # "the job hunting shouldn't be in there — what if someone sees it?": the worry is the reason for a forget
        return -0.1 if cues.FORGET_REGRET.search(sentence) else 0.05
    return 0.0


def sentence_intent(sentence: str, vector: np.ndarray | None = None) -> Intent:
    """The intent of one sentence (Intent("plain", ...) when no cue gives it one)."""
    found = cues.cues_in(sentence)
    if not found:
        return Intent("plain", 0.0, 0.0)
    if cues.ATTACK_CERTAIN.search(sentence):
        return Intent("attack", 1.0, 1.0)
    if cues.OFF_RECORD_CERTAIN.search(sentence) and not cues.ERASING.search(sentence):
        return Intent("off_record", 1.0, 1.0)
    bank = _bank_vectors()
    # the topic is explained away: what the sentence is about (its content without the cue words) is compared with
    # each label too, and that part of the likeness is taken off ("please forget when my birthday is" is not a
    # reminder because a reminder in the bank is about a birthday)
    topic = forget_phrase(sentence)
    if vector is None or topic != sentence:
        both = encode([sentence, topic])
        v, t = (both[0] if vector is None else vector), both[1]
    else:
        v, t = vector, None
    labels: set[str] = set()
    for cue in found:
        labels.update(RIVALS[cue])
    scores = {}
    for label in labels:
        full = float(np.sort(bank[label] @ v)[-TOP:].mean())
        about = float(np.sort(bank[label] @ t)[-TOP:].mean()) if t is not None else 0.0
        scores[label] = full - TOPIC_WEIGHT * about + _feature_bonus(label, sentence)
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    best, score = ranked[0]
    margin = score - ranked[1][1] if len(ranked) > 1 else score
    if best not in INTENTS or best not in found:
        return Intent("plain", score, margin)
    return Intent(best, score, margin)
