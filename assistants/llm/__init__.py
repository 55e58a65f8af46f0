"""Chat models: any OpenAI-compatible endpoint, or the offline provider.

get_chat_model(tenant=, assistant=) resolves the model name (assistant > tenant > LLM_CHAT_MODEL). The offline
provider is used when that name is "offline" or no OPENAI_BASE_URL / OPENAI_API_KEY is configured.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from django.conf import settings

from assistants.llm.errors import ModelError
from assistants.llm.offline import OfflineChatModel
from assistants.llm.openai_chat import OpenAIChatModel

__all__ = ["ChatModel", "ModelError", "OfflineChatModel", "OpenAIChatModel", "get_chat_model"]

OFFLINE_NAME = "offline"


class ChatModel(Protocol):
    name: str
    offline: bool

    def complete(self, messages: list[dict]) -> str: ...

    def stream(self, messages: list[dict]) -> Iterator[str]: ...


def get_chat_model(*, tenant, assistant=None, policy=None) -> ChatModel:
    """The chat model of `policy` (the caller's effective policy, e.g. the turn's), or of `assistant`'s policy."""
    from core.policy import memory_policy_for

    policy = policy or memory_policy_for(tenant=tenant, assistant=assistant)
    name = policy.chat_model or OFFLINE_NAME
    if name == OFFLINE_NAME or not (settings.OPENAI_BASE_URL and settings.OPENAI_API_KEY):
        return OfflineChatModel()
    temperature = assistant.temperature if assistant is not None else 0.3
    return OpenAIChatModel(name=name, temperature=temperature)
