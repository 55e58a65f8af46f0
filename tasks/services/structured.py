"""One structured-output call to the tenant's chat model (OpenAI-compatible), validated with pydantic.

Used by working memory (routing a message) and experience memory (generalising a solution). Any fault — timeout,
HTTP error, malformed or schema-violating JSON — raises `StructuredCallFailed`; callers fall back to their offline
rules, so a broken model never costs the user a reply.
"""

from __future__ import annotations

from typing import TypeVar

from openai import OpenAIError
from pydantic import BaseModel

from core import llm

OFFLINE_MODEL = "offline"

T = TypeVar("T", bound=BaseModel)


class StructuredCallFailed(Exception):
    pass


def structured_complete(*, model: str, system: str, user: str, schema: type[T]) -> T:
    """Ask `model` for a JSON object matching `schema` (json_schema response format) and validate it."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    try:
        text = llm.chat_text(
            model=model, temperature=0, messages=messages, response_format=llm.json_schema_format(schema)
        )
    except (OpenAIError, IndexError, AttributeError) as exc:
        raise StructuredCallFailed(f"{type(exc).__name__}: {exc}") from exc
    try:
        return llm.parse_json_answer(text, schema)
    except llm.ModelAnswerInvalid as exc:
        raise StructuredCallFailed(f"the model's answer does not match {schema.__name__}: {exc}") from exc
