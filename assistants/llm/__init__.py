"""Chat models: any OpenAI-compatible endpoint, or the offline provider. (Interface fixed; issue 3 fills it.)"""
from __future__ import annotations

from typing import Iterator, Protocol


class ChatModel(Protocol):
    name: str
    offline: bool

    def complete(self, messages: list[dict]) -> str: ...

    def stream(self, messages: list[dict]) -> Iterator[str]: ...


class OfflineChatModel:
    """Deterministic replies built from the assembled context, for machines with no model."""

    name = "offline"
    offline = True

    def complete(self, messages: list[dict]) -> str:
        last = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
        return f"(offline model) You said: {last[:200]}"

    def stream(self, messages: list[dict]) -> Iterator[str]:
        text = self.complete(messages)
        for i in range(0, len(text), 16):
            yield text[i:i + 16]


def get_chat_model(*, tenant, assistant=None) -> ChatModel:
    return OfflineChatModel()
