"""Chat models: any OpenAI-compatible endpoint, or the offline provider.

get_chat_model(policy=, assistant=) takes the model name from the caller's effective policy (assistant > tenant >
LLM_CHAT_MODEL, as core.policy.memory_policy_for resolves it). The offline provider is used when that name is
"offline" or no OPENAI_BASE_URL / OPENAI_API_KEY is configured.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

from django.conf import settings

from assistants.llm.errors import ModelError
from assistants.llm.offline import OfflineChatModel
from assistants.llm.openai_chat import OpenAIChatModel

if TYPE_CHECKING:  # the annotation only: the model providers load no Django models
    from core.policy import MemoryPolicy

__all__ = ["ChatModel", "ModelError", "OfflineChatModel", "OpenAIChatModel", "get_chat_model"]

OFFLINE_NAME = "offline"


class ChatModel(Protocol):
    name: str
    offline: bool

    def complete(self, messages: list[dict]) -> str: ...

    def stream(self, messages: list[dict]) -> Iterator[str]: ...


def get_chat_model(*, policy: MemoryPolicy, assistant=None) -> ChatModel:
    """The chat model of `policy` (the caller's effective policy, e.g. the turn's), at `assistant`'s temperature."""
    name = policy.chat_model or OFFLINE_NAME
    if name == OFFLINE_NAME or not (settings.OPENAI_BASE_URL and settings.OPENAI_API_KEY):
        return OfflineChatModel()
    temperature = assistant.temperature if assistant is not None else 0.3
    return OpenAIChatModel(name=name, temperature=temperature)
