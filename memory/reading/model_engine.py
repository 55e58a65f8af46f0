"""The connected model's side of the reader: the model sees the message, the assistant's previous reply and the
user's nearest notes by id, and answers with acts on those ids (add, update, delete, nothing: a repeat needs no
act). Code still decides (`model_acts_checked`): an id must be one of the notes the model was shown (so the
user's own), an update becomes a replacement of that note under the same write rules as any candidate, and a
delete is applied only when the reader also read a forget request in the message."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, field_validator

from memory.models import MemoryNote
from memory.services.writing.rules import Candidate

NEAREST_NOTES = 12  # the notes the model is shown, nearest to the message first


def nearest_notes(text: str, notes: list) -> list:
    """The user's notes nearest in meaning to `text` (memory.reading.targets' score), at most NEAREST_NOTES."""
    from memory.reading.targets import notes_scored

    return [note for note, _score in notes_scored(text, notes)[:NEAREST_NOTES]] if text and notes else []


def notes_prompt(notes: list) -> str:
    """The system message that shows the model the notes it may refer to."""
    lines = "\n".join(f"[{n.pk}] {n.content}" for n in notes)
    return (
        "The user's existing notes nearest to the message, as [id] content:\n"
        f"{lines}\n"
        'When the message changes one of them, answer it with "op": "update" and its "note_id"; when the user asks '
        'to forget one, "op": "delete" and its "note_id"; a message that only repeats a note needs no candidate.'
    )


def model_acts_checked(candidates: list, notes: list, *, forget_asked: bool) -> tuple[list, list]:
    """(candidates to write, notes to forget) from the model's acts: an update names one of `notes` (else it is an
    addition), a delete names one of `notes` and is kept only when the reader read a forget request."""
    shown = {n.pk: n for n in notes}
    kept, deletes = [], []
    for c in candidates:
        op, note_id = c.extra.get("op", "add"), c.extra.get("note_id")
        note = shown.get(note_id) if isinstance(note_id, int) else None
        if op == "delete":
            if note is not None and forget_asked and note not in deletes:
                deletes.append(note)
            continue
        if op == "update" and note is not None:
            c.change, c.unclear = True, False
            c.extra = {**c.extra, "replaces": note.pk}
        kept.append(c)
    return kept, deletes


class ExtractionOutputInvalid(ValueError):
    """The model's answer was not the JSON we asked for. Nothing is stored; the job is retried."""


class ModelCandidate(BaseModel):
    kind: str
    key: str = ""
    content: str = Field(min_length=2, max_length=400)
    value: dict | None = None
    confidence: float = Field(ge=0.0, le=1.0)
    source: str = "user_stated"
    quote: str = Field(default="", max_length=1000)
    durable: bool = True
    op: str = "add"  # add | update | delete, on `note_id`: one of the notes the model was shown
    note_id: int | None = None

    @field_validator("op")
    @classmethod
    def known_op(cls, v: str) -> str:
        v = (v or "add").strip().lower()
        if v not in ("add", "update", "delete"):
            raise ValueError(f"unknown op {v!r}")
        return v

    @field_validator("kind")
    @classmethod
    def known_kind(cls, v: str) -> str:
        v = v.strip().lower()
        if v not in MemoryNote.Kind.values:
            raise ValueError(f"unknown kind {v!r}")
        return v


class ModelAnswer(BaseModel):
    # Required: an answer without "candidates" ({"notes": [...]}) is garbage to retry, not "nothing to note".
    candidates: list[ModelCandidate] = Field(max_length=20)


EXTRACTION_PROMPT = """You extract long-term memory notes about the USER from their latest message.
Return JSON only: {"candidates": [{"kind": one of profile|preference|plan|business_status|constraint|conclusion,
"key": a short snake_case slot (budget, city, commute, drink, shop_size, revenue ...), "content": ONE sentence about
the user in the user's language, "value": structured value or null (e.g. {"amount": 100000, "approx": true}),
"confidence": 0..1, "source": "user_stated" or "agent_inferred", "quote": the user's exact words it rests on,
"durable": false for passing whims}]}.
Rules: only what the user explicitly said; facts still useful in six months; never phone numbers, ID, bank card,
e-mail or passport numbers; keep hedges ("about", "大概") as approx with lower confidence; no candidates -> [].
"""


def extract_with_model(
    *, model: str, text: str, previous_reply: str = "", notes: list | None = None
) -> list[Candidate]:
    """Ask the chat model for candidates, showing it the user's nearest `notes` by id (memory.reading.model_engine);
    validate strictly. Raises ExtractionOutputInvalid on garbage and lets HTTP errors propagate (the job ledger
    retries both with backoff)."""
    from core import llm

    messages = [{"role": "system", "content": EXTRACTION_PROMPT}]
    if notes:
        messages.append({"role": "system", "content": notes_prompt(notes)})
    if previous_reply:
        messages.append({"role": "assistant", "content": previous_reply[:2000]})
    messages.append({"role": "user", "content": text})
    # max_retries=0: a failed call fails the job, and the job ledger retries it with backoff.
    try:
        answer = llm.chat_json(
            model=model,
            messages=messages,
            schema=ModelAnswer,
            temperature=0,
            response_format={"type": "json_object"},
            max_retries=0,
        )
    except llm.ModelAnswerInvalid as exc:
        raise ExtractionOutputInvalid(
            f"The model's extraction was not valid JSON candidates: {str(exc)[:300]}"
        ) from exc
    out = []
    for c in answer.candidates:
        out.append(
            Candidate(
                kind=c.kind,
                key=re.sub(r"[^a-z0-9_:]+", "_", c.key.strip().lower())[:100],
                content=c.content.strip(),
                value=c.value,
                confidence=c.confidence,
                source="agent_inferred" if c.source.strip().lower() != "user_stated" else "user_stated",
                quote=c.quote.strip(),
                whim=not c.durable,
                extra={"from_model": True, "op": c.op, "note_id": c.note_id},
            )
        )
    return out
