"""One structured-output call to the tenant's chat model (OpenAI-compatible), validated with pydantic.

Used by working memory (routing a message) and experience memory (generalising a solution). Any fault — timeout,
HTTP error, malformed or schema-violating JSON — raises `StructuredCallFailed`; callers fall back to their offline
rules, so a broken model never costs the user a reply.
"""
from __future__ import annotations

import json
import re
from typing import TypeVar

from django.conf import settings
from pydantic import BaseModel, ValidationError

OFFLINE_MODEL = "offline"

T = TypeVar("T", bound=BaseModel)


class StructuredCallFailed(Exception):
    pass


def _client():
    from openai import OpenAI

    return OpenAI(base_url=settings.OPENAI_BASE_URL or None, api_key=settings.OPENAI_API_KEY or "none",
                  timeout=settings.LLM_TIMEOUT_SECONDS, max_retries=settings.LLM_MAX_RETRIES)


def structured_complete(*, model: str, system: str, user: str, schema: type[T]) -> T:
    """Ask `model` for a JSON object matching `schema` (json_schema response format) and validate it."""
    from openai import OpenAIError

    try:
        response = _client().chat.completions.create(
            model=model, temperature=0,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            response_format={"type": "json_schema",
                             "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()}},
        )
        content = (response.choices[0].message.content or "").strip()
    except (OpenAIError, IndexError, AttributeError) as exc:
        raise StructuredCallFailed(f"{type(exc).__name__}: {exc}") from exc
    # Some OpenAI-compatible servers wrap JSON in a code fence even when asked for a schema.
    content = re.sub(r"^```(?:json)?\s*|\s*```$", "", content)
    try:
        return schema.model_validate(json.loads(content))
    except (ValueError, ValidationError) as exc:
        raise StructuredCallFailed(f"the model's answer does not match {schema.__name__}: {exc}") from exc
