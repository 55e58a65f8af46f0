"""Working memory: the task in progress. (Interface fixed; issue 5 fills it.)"""
from __future__ import annotations


def task_route_message(*, tenant, session, message) -> dict | None:
    """Route one user message (continue the task / side question / new task), update the task state, and
    return the state to show in context, or None when no task is active. Called by the chat turn before the
    context is assembled, inside the turn's transaction."""
    return None
