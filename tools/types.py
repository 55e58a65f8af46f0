"""The types the tool modules share: a tool as offered to the model, and the turn it runs in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tools.models import Tool


@dataclass
class ToolContext:
    """Whose turn a tool runs in, resolved once by the turn. `events`: the memory events the tools' writes
    produced; `untrusted`: the results tools returned this turn (never accepted as a fact about the user)."""

    tenant: Any
    session: Any
    user_message: Any
    policy: Any
    long_term: bool
    events: list[dict]
    untrusted: list[str]


@dataclass
class ToolSpec:
    name: str
    description: str
    parameters: dict
    kind: str  # "memory" (built in), "python" or "http"
    label: str = ""  # what a person sees: "Looked up your notes"
    run: Callable[..., Any] | None = None  # memory and python tools: run(ctx, **arguments)
    tool: Tool | None = None  # http tools
    cacheable: bool = False  # a repeated call in the conversation reuses the result (read-only tools)
    timeout: float = 0.0  # python tools: seconds before the call is reported as timed out

    def as_openai(self) -> dict:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }
