"""Working memory: the task in progress. (Interface fixed; issue 5 fills it.)"""
from __future__ import annotations


def task_route_message(*, tenant, session, message) -> dict | None:
    """A pre-turn hook (assistants.services.hooks): route one user message (continue the task / side question /
    new task), update the task state, and return {"section": "task", "data": <state for context section 4>,
    "reply_hint": ...}, or None when no task is active."""
    return None
