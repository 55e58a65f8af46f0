"""Python SDK of the memory platform's REST API. See sdk/python/README.md."""

from memory_platform import errors
from memory_platform._transport import ChatEvent
from memory_platform.client import AsyncClient, Client
from memory_platform.errors import ApiError
from memory_platform.tools import ToolCall

__all__ = ["Client", "AsyncClient", "ChatEvent", "ApiError", "ToolCall", "errors"]
__version__ = "0.1.0"
