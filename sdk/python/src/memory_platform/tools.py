"""The shape of a tool call in a chat turn's answer (`tool_calls`) and in a stream's tool events."""

from __future__ import annotations

from typing import Any, TypedDict


class ToolCall(TypedDict):
    """One call the model made: `status` is ok, error, timeout, too_large, invalid_arguments, unknown_tool or
    refused; `result` is cut to 1,000 characters with identifiers redacted; `cached`: reused from an identical
    call earlier in the conversation; `round`: the tool round of the turn (1 = first)."""

    id: str
    name: str
    label: str
    arguments: Any
    status: str
    duration_ms: float
    cached: bool
    result: str
    round: int


class ToolCallAsked(TypedDict):
    """A stream's `tool_call` event: the call as the model asked for it, before it runs."""

    id: str
    name: str
    arguments: str
    round: int
