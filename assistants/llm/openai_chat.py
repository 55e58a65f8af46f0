"""The chat turn's model: any OpenAI-compatible endpoint (OpenAI, Qwen/DashScope, DeepSeek, Ollama, vLLM) through
the model gateway (`core.llm`), which owns the client, timeouts (LLM_TIMEOUT_SECONDS) and retries with
exponential backoff honouring Retry-After (LLM_MAX_RETRIES). Every failure surfaces as ModelError with a reason,
never as a raw client exception.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeVar

import openai
from pydantic import BaseModel

from assistants.llm.errors import ModelError
from core import llm
from core.metering import CallUsage

T = TypeVar("T", bound=BaseModel)


def _translate(exc: Exception) -> ModelError:
    if isinstance(exc, ModelError):
        return exc
    if isinstance(exc, openai.APITimeoutError):
        return ModelError("The language model did not answer in time.", reason="timeout")
    if isinstance(exc, openai.RateLimitError):
        return ModelError("The language model is rate limited right now.", reason="rate_limited")
    if isinstance(exc, openai.APIConnectionError):
        return ModelError("The language model could not be reached.", reason="unreachable")
    if isinstance(exc, openai.APIStatusError):
        if exc.status_code >= 500:
            return ModelError(
                f"The language model failed with a server error ({exc.status_code}).", reason="server_error"
            )
        return ModelError(f"The language model refused the request ({exc.status_code}).", reason="refused")
    return ModelError(
        f"The language model returned an answer that could not be read ({type(exc).__name__}).", reason="malformed"
    )


class OpenAIChatModel:
    offline = False

    def __init__(self, *, name: str, temperature: float = 0.3):
        self.name = name
        self.temperature = temperature
        self.last_usage: CallUsage | None = None  # the last stream's tokens, metered by the turn

    def complete(self, messages: list[dict], **kwargs) -> str:
        try:
            text = llm.chat_text(model=self.name, messages=messages, temperature=self.temperature, **kwargs)
        except Exception as exc:
            raise _translate(exc) from exc
        if not text.strip():
            raise ModelError("The language model returned an empty answer.", reason="empty")
        return text

    def stream(self, messages: list[dict]) -> Iterator[str]:
        got_text = False
        self.last_usage = CallUsage()
        try:
            for delta in llm.chat_stream(
                model=self.name, messages=messages, temperature=self.temperature, usage=self.last_usage
            ):
                got_text = got_text or bool(delta.strip())
                yield delta
        except Exception as exc:
            raise _translate(exc) from exc
        if not got_text:
            raise ModelError("The language model returned an empty answer.", reason="empty")

    def stream_round(self, messages: list[dict], *, tools: list[dict], tool_choice, calls: list[dict]) -> Iterator[str]:
        """One round of a turn that offers tools: text deltas; the tool calls asked for are appended to `calls`."""
        if not tools:
            yield from self.stream(messages)
            return
        got_text = False
        self.last_usage = CallUsage()
        try:
            for delta in llm.chat_stream_round(
                model=self.name,
                messages=messages,
                temperature=self.temperature,
                tools=tools,
                tool_choice=tool_choice,
                calls=calls,
                usage=self.last_usage,
            ):
                got_text = got_text or bool(delta.strip())
                yield delta
        except Exception as exc:
            raise _translate(exc) from exc
        if not got_text and not calls:
            raise ModelError("The language model returned an empty answer.", reason="empty")

    def complete_json(self, messages: list[dict], schema: type[T], *, attempts: int = 2) -> T:
        """A structured answer validated with pydantic. A malformed or schema-violating answer is asked for once
        more, then raises ModelError(reason="malformed")."""
        formats = [llm.json_schema_format(schema), {"type": "json_object"}, None]
        last_error = ""
        for _ in range(max(1, attempts)):
            # Not every OpenAI-compatible server knows json_schema: on a 4xx, step down to json_object, then none.
            while True:
                extra = {"response_format": formats[0]} if formats[0] else {}
                try:
                    text = self.complete(messages, **extra)
                    break
                except ModelError as exc:
                    if exc.reason != "refused" or len(formats) == 1:
                        raise
                    formats.pop(0)
            try:
                return llm.parse_json_answer(text, schema)
            except llm.ModelAnswerInvalid as exc:
                last_error = str(exc).splitlines()[0]
        raise ModelError(
            f"The language model's structured answer did not match the schema ({last_error}).", reason="malformed"
        )
