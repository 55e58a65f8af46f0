"""Pre-turn hooks: services of other layers that look at the user's message before the context is built.

Each hook is called as `hook(*, tenant, session, message)` inside the turn, after the user's message is stored,
and returns None or a dict:
    {"section": "task" | "memory" | "experience", "data": {...}, "reply_hint": "a sentence for the reply"}
- section "task": `data` is the task state shown in context section 4 (TurnContext.task).
- `reply_hint` (optional) is something the reply must say (e.g. "还差预算，请告诉我预算。", "I forgot: ...",
  "我记得你说过预算大概 10 万，现在是 15 万了吗？"). It goes into the context as a system note, and the
  offline model says it verbatim.
A hook that raises is logged and skipped: a broken layer never blocks a reply.
"""
from __future__ import annotations

import logging

from django.db import transaction
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)

PRE_TURN_HOOKS = [
    "assistants.services.forgetting.forget_turn_hook",  # "forget …" everywhere: notes, pinned, summary, tasks
    "memory.services.commands.memory_turn_hook",  # forget requests, conflict clarification
    "tasks.services.working_memory.task_route_message",  # working memory: task states
    "tasks.services.experience.experience_turn_hook",  # experience hints
]


def run_pre_turn_hooks(*, tenant, session, message) -> list[dict]:
    """Run every hook in one savepoint (two statements, not two per hook: hooks run on every turn). Should one hook raise, that
    savepoint is rolled back, so no hook's writes are half kept, and the hooks run again one savepoint each, the
    failing one skipped: the others' effects are exactly those of a turn where it failed alone."""
    failed: set[str] = set()
    try:
        with transaction.atomic():
            return _run(tenant=tenant, session=session, message=message, failed=failed, isolate=False)
    except _HookFailed:
        return _run(tenant=tenant, session=session, message=message, failed=failed, isolate=True)


class _HookFailed(Exception):
    """A hook raised inside the shared savepoint (which is then rolled back)."""


def _run(*, tenant, session, message, failed: set[str], isolate: bool) -> list[dict]:
    results = []
    for path in PRE_TURN_HOOKS:
        if path in failed:
            continue
        try:
            if isolate:
                # A savepoint per hook: a hook whose SQL fails must not abort the turn's transaction.
                with transaction.atomic():
                    result = import_string(path)(tenant=tenant, session=session, message=message)
            else:
                result = import_string(path)(tenant=tenant, session=session, message=message)
        except Exception as exc:  # one layer failing must not cost the user a reply
            logger.exception("pre-turn hook %s failed", path)
            failed.add(path)
            if not isolate:
                raise _HookFailed(path) from exc
            continue
        if result:
            results.append(result)
    return results
