"""Pre-turn hooks: services of other layers that look at the user's message before the context is built.

The hooks are the dotted paths in settings.ASSISTANT_PRE_TURN_HOOKS, called in that order (the default list and
what each does are in config/settings/chat.py; docs/settings.md). The chat turn imports none of them: a layer
below it is plugged in by name, so no import goes upwards and none comes back.

Each hook is called as `hook(*, tenant, session, message)` inside the turn, after the user's message is stored,
and returns None or a dict:
    {"section": "task" | "memory" | "experience", "data": {...}, "reply_hint": "a sentence for the reply"}
- section "task": `data` is the task state shown in context section 4 (TurnContext.task).
- `reply_hint` (optional) is something the reply must say (e.g. "还差预算，请告诉我预算。", "I forgot: ...",
  "我记得你说过预算大概 10 万，现在是 15 万了吗？"). It goes into the context as a system note, and the
  offline model says it verbatim.
A hook that raises is logged and skipped: a broken layer never blocks a reply. A path that does not name a
callable is refused when the process starts (system check assistants.E001), not skipped turn after turn.

Hooks run while the turn holds the end user's and the session's row locks, so a hook never calls a remote model
itself. What it needs from one (a routing decision, embeddings) it asks in its `prepare` function, set as the
hook's attribute `prepare` and called as `prepare(*, tenant, session, text, policy)` before the turn locks
anything; its return value reaches the hook as `prepared=`. A hook that declares a `policy` keyword gets the
turn's effective policy (core.policy.MemoryPolicy, resolved once per turn) instead of looking it
up again.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register
from django.db import transaction
from django.utils.module_loading import import_string

from core.policy import MemoryPolicy

logger = logging.getLogger(__name__)


def pre_turn_hooks() -> list[str]:
    """The configured hooks' dotted paths, in call order (read each turn, so a test's settings override holds)."""
    return list(settings.ASSISTANT_PRE_TURN_HOOKS)


@register()
def check_pre_turn_hooks(app_configs, **kwargs) -> list[CheckMessage]:
    """Every configured hook must import and be callable."""
    errors: list[CheckMessage] = []
    for path in pre_turn_hooks():
        try:
            hook: Callable | None = import_string(path)
        except ImportError as exc:
            hook, reason = None, f"it cannot be imported ({exc})"
        else:
            reason = "it is not a function"
        if hook is None or not callable(hook):
            errors.append(
                Error(
                    f"ASSISTANT_PRE_TURN_HOOKS names {path!r}, but {reason}.",
                    hint="Give the dotted path of a function hook(*, tenant, session, message).",
                    id="assistants.E001",
                )
            )
    return errors


@lru_cache(maxsize=64)
def _accepted(hook: Callable[..., Any]) -> frozenset[str]:
    """The optional keywords (policy, prepared) that `hook` declares."""
    try:
        parameters = inspect.signature(hook).parameters
    except (TypeError, ValueError):
        return frozenset()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return frozenset({"policy", "prepared"})
    return frozenset({"policy", "prepared"} & set(parameters))


def prepare_pre_turn_hooks(*, tenant, session, text: str, policy) -> dict[str, Any]:
    """Each hook's remote-model work for this message, done before the turn takes its row locks: {hook path:
    what its `prepare` returned}. A prepare that raises is logged and left out (its hook then decides without
    it, by its offline rules)."""
    prepared: dict[str, Any] = {}
    for path in pre_turn_hooks():
        prepare: Callable[..., Any] | None = getattr(import_string(path), "prepare", None)
        if prepare is None:
            continue
        try:
            prepared[path] = prepare(tenant=tenant, session=session, text=text, policy=policy)
        except Exception:
            logger.exception("preparing pre-turn hook %s failed", path)
    return prepared


def run_pre_turn_hooks(
    *, tenant, session, message, policy: MemoryPolicy, prepared: dict[str, Any] | None = None
) -> list[dict]:
    """Run every hook in one savepoint (two statements, not two per hook). Should one hook raise, that
    savepoint is rolled back, so no hook's writes are half kept, and the hooks run again one savepoint each, the
    failing one skipped: the others' effects are exactly those of a turn where it failed alone. `policy` and
    `prepared` (prepare_pre_turn_hooks) are handed to the hooks that declare them."""
    failed: set[str] = set()
    extra = {"policy": policy, "prepared": prepared}
    try:
        with transaction.atomic():
            return _run(tenant=tenant, session=session, message=message, failed=failed, isolate=False, extra=extra)
    except _HookFailed:
        return _run(tenant=tenant, session=session, message=message, failed=failed, isolate=True, extra=extra)


class _HookFailed(Exception):
    """A hook raised inside the shared savepoint (which is then rolled back)."""


def _call(path: str, *, tenant, session, message, extra: dict[str, Any]):
    hook = import_string(path)
    accepted = _accepted(hook)
    kwargs: dict[str, Any] = {}
    if "policy" in accepted:
        kwargs["policy"] = extra["policy"]
    if "prepared" in accepted and extra["prepared"] is not None:  # the turn prepared: None if this hook's failed
        kwargs["prepared"] = extra["prepared"].get(path)
    return hook(tenant=tenant, session=session, message=message, **kwargs)


def _run(*, tenant, session, message, failed: set[str], isolate: bool, extra: dict[str, Any]) -> list[dict]:
    results = []
    for path in pre_turn_hooks():
        if path in failed:
            continue
        try:
            if isolate:
                # A savepoint per hook: a hook whose SQL fails must not abort the turn's transaction.
                with transaction.atomic():
                    result = _call(path, tenant=tenant, session=session, message=message, extra=extra)
            else:
                result = _call(path, tenant=tenant, session=session, message=message, extra=extra)
        except Exception as exc:
            logger.exception("pre-turn hook %s failed", path)
            failed.add(path)
            if not isolate:
                raise _HookFailed(path) from exc
            continue
        if result:
            results.append(result)
    return results
