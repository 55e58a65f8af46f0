"""The model gateway: the one way this platform talks to an OpenAI-compatible endpoint (chat, streamed chat,
structured JSON, embeddings).

It owns what every caller used to repeat: the client (one per process, base URL, key, timeout and retry count,
so connections are reused across turns and jobs), the timeout (LLM_TIMEOUT_SECONDS) and the retries with
exponential backoff honouring Retry-After (LLM_MAX_RETRIES, the `openai` client's own; a caller whose failures
are retried by the job ledger asks for `max_retries=0`), and reading a JSON answer (code fences stripped,
validated with pydantic).

It lives in `core/` because memory (embeddings, extraction), tasks (routing, experience) and assistants (the
chat turn) all use it. Errors stay the client's own (`openai.OpenAIError`) or `ModelAnswerInvalid`: each caller
decides what a failure means for it (a ModelError for the turn, a retry for a job, offline rules for routing).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

import openai
from django.conf import settings
from pydantic import BaseModel, ValidationError

from core.metering import CallUsage, model_call_record

if TYPE_CHECKING:
    from openai.types.chat import ChatCompletionMessageParam

T = TypeVar("T", bound=BaseModel)

_clients: dict[tuple[Any, ...], openai.OpenAI] = {}
_clients_lock = threading.Lock()
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)


class ModelAnswerInvalid(ValueError):
    """The model answered, but not with JSON matching the schema asked for."""


def model_client(*, max_retries: int | None = None) -> openai.OpenAI:
    """The process's client for the configured endpoint. `max_retries` defaults to LLM_MAX_RETRIES.

    Cached per process id as well as per setting: a client made before a worker forks must not share its
    connection pool with the child."""
    key = (
        os.getpid(),
        settings.OPENAI_BASE_URL or None,
        settings.OPENAI_API_KEY or "none",
        settings.LLM_TIMEOUT_SECONDS,
        settings.LLM_MAX_RETRIES if max_retries is None else max_retries,
    )
    client = _clients.get(key)
    if client is None:
        with _clients_lock:
            client = _clients.get(key)
            if client is None:
                client = openai.OpenAI(base_url=key[1], api_key=key[2], timeout=key[3], max_retries=key[4])
                _clients[key] = client
    return client


def _messages(messages: list[dict]) -> list[ChatCompletionMessageParam]:
    """Callers build plain {"role", "content"} dicts; the client's types name each role's shape."""
    return cast("list[ChatCompletionMessageParam]", messages)


def _prompt_texts(messages: list[dict]) -> list[str]:
    return [str(m.get("content") or "") for m in messages]


@dataclass
class _Call:
    """What the block of `_metered` learnt of its call: the provider's token counts (None: not reported) and the
    answer's text."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    answer: str = ""


@contextlib.contextmanager
def _metered(*, kind: str, model: str, prompts: list[str], completion_tokens: int | None = None) -> Iterator[_Call]:
    """Meter the one model call made in the block (core.metering), a failed one too: a block left by an exception
    is a call that failed. Counts the provider did not report are counted from `prompts` and the answer;
    `completion_tokens` fixes the completion count of a call that has no completion (embeddings)."""
    started, call, ok = time.perf_counter(), _Call(completion_tokens=completion_tokens), False
    try:
        yield call
        ok = True
    finally:
        model_call_record(
            kind=kind,
            model=model,
            started=started,
            ok=ok,
            prompt_tokens=call.prompt_tokens,
            completion_tokens=call.completion_tokens,
            counted_from=(prompts, call.answer),
        )


def chat_text(
    *, model: str, messages: list[dict], temperature: float, max_retries: int | None = None, **kwargs: Any
) -> str:
    """One chat completion; its text ("" when the answer has no choices or no content). Metered (core.metering):
    the provider's token counts, or counted ones when it reports none."""
    with _metered(kind="chat", model=model, prompts=_prompt_texts(messages)) as call:
        response = model_client(max_retries=max_retries).chat.completions.create(
            model=model, messages=_messages(messages), temperature=temperature, **kwargs
        )
        call.prompt_tokens = getattr(response.usage, "prompt_tokens", None)
        call.completion_tokens = getattr(response.usage, "completion_tokens", None)
        call.answer = (response.choices[0].message.content or "") if response.choices else ""
        return call.answer


def chat_stream(
    *, model: str, messages: list[dict], temperature: float, usage: CallUsage | None = None
) -> Iterator[str]:
    """One streamed chat completion: its text deltas as they arrive (empty deltas skipped). With `usage`, the
    provider's token counts (asked for with `stream_options`, LLM_STREAM_USAGE) are written there and the caller
    meters the call; without it the call is metered here. A round that offers no tools (chat_stream_round)."""
    measured = usage if usage is not None else CallUsage()
    parts: list[str] = []
    round_ = chat_stream_round(
        model=model, messages=messages, temperature=temperature, tools=[], tool_choice="none", calls=[], usage=measured
    )
    meter = (
        contextlib.nullcontext(_Call())
        if usage is not None
        else _metered(kind="chat", model=model, prompts=_prompt_texts(messages))
    )
    with meter as call:
        try:
            for delta in round_:
                parts.append(delta)
                yield delta
        finally:
            round_.close()  # its own `finally` fills `measured` now, also when the reader stopped early
            call.prompt_tokens, call.completion_tokens = measured.prompt_tokens, measured.completion_tokens
            call.answer = "".join(parts)


def chat_stream_round(
    *,
    model: str,
    messages: list[dict],
    temperature: float,
    tools: list[dict],
    tool_choice: str | dict,
    calls: list[dict],
    usage: CallUsage,
) -> Generator[str, None, None]:
    """One streamed round of a turn that offers `tools` (OpenAI `tools` / `tool_choice`): its text deltas as they
    arrive; the tool calls the model asked for, parallel ones included, are appended to `calls` as
    {"id", "name", "arguments"} (arguments as the JSON text the model wrote, pieced together from its deltas).
    The provider's token counts go to `usage`: the caller meters the turn."""
    started, ok = time.perf_counter(), False
    extra: dict[str, Any] = {"stream_options": {"include_usage": True}} if settings.LLM_STREAM_USAGE else {}
    if tools:
        extra.update(tools=tools, tool_choice=tool_choice)
    pieces: dict[int, dict] = {}
    reported = None
    try:
        stream = model_client().chat.completions.create(
            model=model, messages=_messages(messages), temperature=temperature, stream=True, **extra
        )
        for chunk in stream:
            if getattr(chunk, "usage", None) is not None:
                reported = chunk.usage
            if not chunk.choices:
                continue
            delta = chunk.choices[0].delta
            for piece in delta.tool_calls or []:
                call = pieces.setdefault(piece.index, {"id": "", "name": "", "arguments": ""})
                call["id"] = piece.id or call["id"]
                if piece.function is not None:
                    call["name"] += piece.function.name or ""
                    call["arguments"] += piece.function.arguments or ""
            if delta.content:
                yield delta.content
        ok = True
    finally:
        calls.extend(pieces[i] for i in sorted(pieces))
        usage.prompt_tokens = getattr(reported, "prompt_tokens", None)
        usage.completion_tokens = getattr(reported, "completion_tokens", None)
        usage.duration_ms, usage.ok = (time.perf_counter() - started) * 1000, ok


def json_schema_format(schema: type[BaseModel]) -> dict:
    """The `response_format` asking for a JSON object matching `schema` (OpenAI structured output)."""
    return {"type": "json_schema", "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()}}


def parse_json_answer(text: str, schema: type[T]) -> T:
    """A model's text as `schema`. Some OpenAI-compatible servers wrap JSON in a code fence even when asked for
    a schema: the fence is stripped. Raises ModelAnswerInvalid (first line of the reason) otherwise."""
    text = (text or "").strip()
    match = _FENCE.match(text)
    if match:
        text = match.group(1)
    try:
        return schema.model_validate(json.loads(text))
    except (ValidationError, ValueError) as exc:
        raise ModelAnswerInvalid(str(exc)) from exc


def chat_json(
    *,
    model: str,
    messages: list[dict],
    schema: type[T],
    temperature: float = 0,
    response_format: dict | None = None,
    max_retries: int | None = None,
) -> T:
    """One chat completion read as `schema`. `response_format` defaults to the schema's json_schema format."""
    text = chat_text(
        model=model,
        messages=messages,
        temperature=temperature,
        max_retries=max_retries,
        response_format=response_format or json_schema_format(schema),
    )
    return parse_json_answer(text, schema)


def embed(*, model: str, texts: list[str], dimensions: int) -> list[list[float]]:
    """Embeddings of `texts` (in order), each asked for with exactly `dimensions` dimensions."""
    with _metered(kind="embedding", model=model, prompts=texts, completion_tokens=0) as call:
        response = model_client().embeddings.create(model=model, input=texts, dimensions=dimensions)
        call.prompt_tokens = getattr(response.usage, "prompt_tokens", None)
        return [list(item.embedding) for item in response.data]
