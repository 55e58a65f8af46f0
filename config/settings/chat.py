"""The chat turn: what reads a message before the context is built, tool calls, message limits, compaction."""

from __future__ import annotations

from config.env import env

# Pre-turn hooks (assistants/services/hooks.py): what reads the user's message, in this order, before the context is
# built; each is a dotted path to `hook(*, tenant, session, message) -> dict | None`. Settings hold them so that a
# layer below the chat turn is plugged in by name and the turn imports none of them (README "Code layout").
ASSISTANT_PRE_TURN_HOOKS = [
    path.strip()
    for path in env.list(
        "ASSISTANT_PRE_TURN_HOOKS",
        default=[
            "assistants.services.forgetting.forget_turn_hook",  # "forget …" everywhere: notes, pinned, summary, tasks
            "memory.services.writing.commands.memory_turn_hook",  # forget requests' notes, the question on an unclear change
            "tasks.services.working_memory.task_route_message",  # working memory: the task state of this message
            "assistants.services.feedback.feedback_turn_hook",  # "很好，就按这个来": a thumbs-up on the previous reply
            "tasks.services.experience.experience_turn_hook",  # a hint from a similar earlier task
        ],
    )
    if path.strip()
]

# --- Tools (tools/, docs/chat.md#tools) --------------------------------------------------------------------------
# Rounds of tool calls one turn may make before the model must answer, so a looping model cannot hold a turn; how
# much of a tool's result the model and clients see; how long a result is reused in its conversation.
ASSISTANT_MAX_TOOL_ROUNDS = env.int("ASSISTANT_MAX_TOOL_ROUNDS", default=4)
ASSISTANT_TOOL_RESULT_CHARS = env.int("ASSISTANT_TOOL_RESULT_CHARS", default=4000)
ASSISTANT_TOOL_CACHE_SECONDS = env.int("ASSISTANT_TOOL_CACHE_SECONDS", default=600)
TOOL_RESPONSE_MAX_BYTES = env.int("TOOL_RESPONSE_MAX_BYTES", default=262144)  # read no more of an HTTP tool's answer
# Python tools: dotted paths of functions `fn(**arguments)` with a `tool_parameters` JSON Schema attribute; an
# assistant offers those its `python_tools` lists, so that no function is callable by a model unless named twice.
ASSISTANT_PYTHON_TOOLS = [p.strip() for p in env.list("ASSISTANT_PYTHON_TOOLS", default=[]) if p.strip()]
# A Python tool's call is reported as timed out after this long (a function's `tool_timeout_seconds` overrides it);
# the thread it runs in cannot be stopped and finishes on its own.
ASSISTANT_PYTHON_TOOL_TIMEOUT_SECONDS = env.float("ASSISTANT_PYTHON_TOOL_TIMEOUT_SECONDS", default=10.0)

# --- Limits -------------------------------------------------------------------------------------------------
# Longest user message accepted, in characters; longer ones are rejected with a clear error (README "Limits").
MAX_MESSAGE_CHARS = env.int("MAX_MESSAGE_CHARS", default=100_000)
# Seconds a streaming chat turn waits after `done` for its extraction job, to send the turn's `memory` event with
# what was written or changed; after that the event says "pending" and GET …/memory-events/ has it.
MEMORY_EVENTS_WAIT_SECONDS = env.float("MEMORY_EVENTS_WAIT_SECONDS", default=3.0)
# Compaction in bounded passes (assistants.services.compaction): one pass merges at most this many of the oldest
# messages that left the window (and this many tokens of them: the model's prompt) into the summary; the rest go
# to the next pass, its own job, so a pass takes the same time in a long session as in a short one.
COMPACTION_PASS_MESSAGES = env.int("COMPACTION_PASS_MESSAGES", default=200)
COMPACTION_PASS_TOKENS = env.int("COMPACTION_PASS_TOKENS", default=8000)
