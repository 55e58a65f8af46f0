"""Working memory (seed 002, third layer): the task in progress, as an explicit state machine.

    collecting_info -> planning -> waiting_confirm -> completed
    any open state  -> paused (another task started) -> back where it was (resume)
    any open/paused -> cancelled | expired (TTL, by the periodic job)
completed, cancelled and expired are final: a final task is never changed again.

`task_route_message` is a pre-turn hook (assistants.services.hooks). Every user message is routed (see
tasks.services.routing): it continues the current task (fields filled, each with the message it came from), is a
side question (the task row is not written at all), starts a new task (the current one is paused, not lost), or
resumes an earlier one. Its reply_hint is what the reply must say: the recap and the one question still open,
the finished result to confirm, or the offer to continue a task left in an earlier session.

Concurrency: the current task row is locked (SELECT ... FOR UPDATE) for the rest of the turn's transaction and
every write is a compare-and-set on `version`, so two tabs sending at once never lose a field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from core.policy import MemoryPolicy
from tasks.models import TaskState, TaskType
from tasks.selectors import (
    OPEN_STATES,
    task_state_as_context,
    task_state_resumable,
)
from tasks.services.field_extraction import language_of
from tasks.services.routing import (
    ANOTHER,
    CONTINUE,
    OfflineRouter,
    PreparedRoute,
    Route,
    RoutingInputs,
    router_for,
    routing_inputs,
    task_involved,
)
from tasks.services.routing import OFFER_KEY as ROUTING_OFFER_KEY
from tasks.services.scratch import scratch_put
from tasks.services.task_hints import (
    hint_cancelled,
    hint_confirmed,
    hint_continue_told,
    hint_nothing_to_cancel,
    hint_offer,
    hint_paused,
    hint_progress,
    hint_resume,
    hint_start,
)
from tasks.services.task_states import (
    now_iso,
    state_after_resume,
    task_state_fill,
    task_state_save,
    task_state_start,
    task_state_transition,
    task_state_ttl,
)

# Callers import these from working memory (the periodic job, forgetting, tests): re-exported from task_states.
from tasks.services.task_states import task_states_expire as task_states_expire
from tasks.services.task_states import task_states_forget as task_states_forget

OFFER_KEY = ROUTING_OFFER_KEY  # kept here too: callers read it from working memory


# --- the hook -----------------------------------------------------------------------------------------------------
def _result(state: TaskState, route: str, hint: str | None) -> dict:
    return {"section": "task", "data": task_state_as_context(state, route=route), "reply_hint": hint}


def task_route_prepare(*, tenant, session, text: str, policy) -> PreparedRoute | None:
    """Ask the chat model how to route `text`, before the turn locks the user's rows (the hook's `prepare`, see
    assistants.services.hooks): a model that takes seconds then holds up nobody else's work. Reads only, without
    locks. None when the model is not needed (no task involved, an offline model, a forget request)."""
    from memory.services.forgetting.forget_requests import forget_target

    if forget_target(text):
        return None  # "forget ..." is said to memory, never routed (task_route_message returns None for it)
    if isinstance(router_for(chat_model=policy.chat_model), OfflineRouter):
        return None  # no model to ask: the offline rules decide under the locks, so there is nothing to read first
    seen = routing_inputs(tenant=tenant, session=session, lock=False)
    router = router_for(chat_model=policy.chat_model if task_involved(seen, text) else "offline")
    if isinstance(router, OfflineRouter):
        return None
    return PreparedRoute(
        seen.key(),
        router.route(
            text=text,
            current=seen.current,
            task_types=seen.task_types,
            offered=seen.offered,
            same_session=seen.current is not None,
        ),
    )


_NOT_PREPARED = object()


def task_route_message(*, tenant, session, message, policy: MemoryPolicy, prepared=_NOT_PREPARED) -> dict | None:
    """A pre-turn hook (assistants.services.hooks): route one user message (continue the task / side question /
    new task), update the task state, and return {"section": "task", "data": <state for context section 4>,
    "reply_hint": ...}, or None when no task is active.

    The model is never asked while the task rows are locked: the chat turn hands over `prepared` (what
    task_route_prepare asked before the turn locked anything) and it is used if the tasks are still as the model
    saw them; otherwise (another turn changed them meanwhile, or the model was not asked) the offline rules
    decide. Called on its own, without `prepared`, it asks the model first and then locks."""
    if prepared is _NOT_PREPARED:
        prepared = task_route_prepare(tenant=tenant, session=session, text=message.content or "", policy=policy)
    # The turn runs hooks in a savepoint each (assistants.services.hooks); a second one here would only add round
    # trips. Called on its own, this still opens a transaction.
    with transaction.atomic(savepoint=False):
        return _route_message(tenant=tenant, session=session, message=message, policy=policy, prepared=prepared)


task_route_message.prepare = task_route_prepare  # type: ignore[attr-defined]


@dataclass(frozen=True)
class _Turn:
    """The message being routed, with what every step of applying its route needs: whose conversation it is, the
    user's language (zh) for the hints, and the turn's policy."""

    tenant: Any
    session: Any
    message: Any
    zh: bool
    policy: MemoryPolicy


def _route_message(*, tenant, session, message, policy, prepared: PreparedRoute | None) -> dict | None:
    """Route one user message against the session's task states, under the row locks routing_inputs takes, and
    apply the route (start, fill, pause, resume, cancel, confirm, offer). The route is the one `prepared` before
    the locks when what it saw is still what is locked; otherwise the offline rules decide, so no remote model is
    called while the rows are locked. Returns the working-memory result for the turn, or None when the message
    concerns no task."""
    text = message.content or ""
    if (message.metadata or {}).get("memory_command"):
        return None  # "forget that ..." is said to memory, never a value for the task
    zh = language_of(text) == "zh"
    seen = routing_inputs(tenant=tenant, session=session, lock=True)
    task_types, current, offered = seen.task_types, seen.current, seen.offered
    if not task_types and seen.found is None:
        return None
    if prepared is not None and prepared.seen_key == seen.key() and task_involved(seen, text):
        route = prepared.route
    else:  # rules only: no remote call while the rows above are locked
        route = OfflineRouter().route(
            text=text, current=current, task_types=task_types, offered=offered, same_session=current is not None
        )
    wants_another = bool(ANOTHER.search(text)) and not CONTINUE.search(text)
    if route.kind == "resume" and wants_another and route.task_type is not None:
        route = Route("new_task", route.task_type, route.values, route.source)  # "a new plan", not the old one

    turn = _Turn(tenant=tenant, session=session, message=message, zh=zh, policy=policy)
    if route.kind == "cancel":
        return _cancel(turn, route, current=current, earlier=seen.earlier)
    if route.kind == "new_task" and route.task_type is not None:
        return _route_new_task(turn, route, task_type=route.task_type, seen=seen, wants_another=wants_another)
    if route.kind == "resume":
        return _route_resume(turn, route, seen=seen)
    return _route_in_task(turn, route, seen=seen)


def _route_new_task(
    turn: _Turn, route: Route, *, task_type: TaskType, seen: RoutingInputs, wants_another: bool
) -> dict | None:
    """A message that starts a task of `task_type`. An earlier, unfinished task of the same type is resumed
    rather than started twice when it is this conversation's; from another conversation it is offered as a
    question; "another/a new plan" starts anew. The task in progress here, and one in progress in another
    conversation, are paused (one task in progress per user)."""
    current, earlier, offered_id = seen.current, seen.earlier, seen.offered_id
    session = turn.session
    paused_note = ""
    existing = None if wants_another else _resumable(turn, task_type)
    if existing is not None and existing.session_id != session.pk and existing.pk != offered_id:
        scratch_put(tenant=turn.tenant, session=session, key=OFFER_KEY, value=existing.pk, policy=turn.policy)
        return _result(existing, "offer", hint_offer(existing, turn.zh, or_new=True))
    if current is not None and (existing is None or existing.pk != current.pk):
        paused_note = _pause(turn, current, reason=f"new task: {task_type.name}")
    if earlier is not None and earlier.state in OPEN_STATES and earlier.pk != getattr(existing, "pk", None):
        # one task in progress per user: the other conversation's is kept, paused, and can be resumed
        note = _pause(turn, earlier, reason=f"new task: {task_type.name}")
        paused_note = paused_note or note
    if existing is not None and existing.session_id == session.pk:
        return _resume(turn, existing, route, prefix=paused_note)
    return _start_and_fill(turn, route, task_type=task_type, prefix=paused_note)


def _pause(turn: _Turn, state: TaskState, *, reason: str) -> str:
    """Pause `state` (kept, resumable: one task in progress per user) and return the hint that says so."""
    paused = task_state_transition(
        tenant=turn.tenant, state=state, to=TaskState.State.PAUSED, message=turn.message, reason=reason
    )
    return hint_paused(paused, turn.zh)


def _fill(turn: _Turn, state: TaskState, route: Route) -> TaskState:
    """`state` with the values the route read from the message."""
    return task_state_fill(
        tenant=turn.tenant,
        state=state,
        values=route.values,
        message=turn.message,
        session=turn.session,
        policy=turn.policy,
    )


def _start_and_fill(turn: _Turn, route: Route, *, task_type: TaskType, prefix: str = "") -> dict:
    """Start a task of `task_type` (the route's) in this session, filled with the values the message already gave."""
    state = task_state_start(
        tenant=turn.tenant, session=turn.session, task_type=task_type, message=turn.message, policy=turn.policy
    )
    state = _fill(turn, state, route)
    return _result(state, "new_task", prefix + hint_start(state, turn.zh, list(route.values)))


def _route_resume(turn: _Turn, route: Route, *, seen: RoutingInputs) -> dict | None:
    """A message that resumes a task: this session's current one when it matches, else the user's resumable one
    of that type (started afresh when there is none and the type is known). A different current task is paused."""
    current = seen.current
    target = (
        current
        if current is not None and (route.task_type is None or current.task_type_id == route.task_type.pk)
        else None
    )
    if target is None:
        target = _resumable(turn, route.task_type)
    if target is None:
        if route.task_type is None:
            return None
        return _start_and_fill(turn, route, task_type=route.task_type)
    prefix = ""
    if current is not None and current.pk != target.pk:
        prefix = _pause(turn, current, reason=f"resumed: {target.task_name}")
    return _resume(turn, target, route, prefix=prefix)


def _resumable(turn: _Turn, task_type: TaskType | None) -> TaskState | None:
    """The user's unfinished task of `task_type` with this assistant, in any conversation, locked."""
    session = turn.session
    return task_state_resumable(
        tenant=turn.tenant, end_user=session.end_user, assistant=session.assistant, task_type=task_type, lock=True
    )


def _route_in_task(turn: _Turn, route: Route, *, seen: RoutingInputs) -> dict | None:
    """Any other message: a confirmation or the next values of the current task, or a side question. Without a
    current task, an unfinished one from another conversation is offered, once."""
    current, earlier, offered_id = seen.current, seen.earlier, seen.offered_id
    tenant, session, zh = turn.tenant, turn.session, turn.zh
    if current is None:
        if earlier is not None and offered_id != earlier.pk:
            scratch_put(tenant=tenant, session=session, key=OFFER_KEY, value=earlier.pk, policy=turn.policy)
            return _result(earlier, "offer", hint_offer(earlier, zh))
        return None

    if route.kind == "confirm" and current.state == TaskState.State.WAITING_CONFIRM:
        state = task_state_transition(tenant=tenant, state=current, to=TaskState.State.COMPLETED, message=turn.message)
        return _result(state, "confirm", hint_confirmed(state, zh))

    if route.kind == "continue":
        if current.session_id != session.pk:
            current = task_state_save(
                tenant=tenant,
                task=current,
                steps=[{"action": "moved_to_session", "session_id": session.pk, "at": now_iso()}],
                session=session,
            )
        state = _fill(turn, current, route)
        return _result(state, "continue", hint_progress(state, zh, list(route.values)))

    # A side question: the task is not written at all; it stays in context so the reply knows about it. In a new
    # session the first message also offers to continue it, once.
    if earlier is not None and offered_id != earlier.pk:
        scratch_put(tenant=tenant, session=session, key=OFFER_KEY, value=earlier.pk, policy=turn.policy)
        return _result(current, "offer", hint_offer(current, zh))
    return _result(current, "side_question", None)


def _cancel(turn: _Turn, route: Route, *, current, earlier) -> dict | None:
    """ "Cancel the project plan" / "取消" / "stop the plan": the named (or current, or offered) task is cancelled,
    whichever conversation it was started in."""

    def fits(state):
        return state is not None and (route.task_type is None or state.task_type_id == route.task_type.pk)

    target = current if fits(current) else earlier if fits(earlier) else None
    if target is None and route.task_type is not None:
        target = _resumable(turn, route.task_type)
    if target is None:
        if route.task_type is None:
            return None
        return {
            "section": "task",
            "data": None,
            "reply_hint": hint_nothing_to_cancel(route.task_type.name, turn.zh),
        }
    state = task_state_transition(tenant=turn.tenant, state=target, to=TaskState.State.CANCELLED, message=turn.message)
    return _result(state, "cancel", hint_cancelled(state, turn.zh))


def _resume(turn: _Turn, state: TaskState, route: Route, *, prefix: str = "") -> dict:
    steps = [{"action": "resume", "message_id": turn.message.pk, "session_id": turn.session.pk, "at": now_iso()}]
    changes = {
        "session": turn.session,
        "expires_at": timezone.now() + task_state_ttl(policy=turn.policy),
    }
    if state.state == TaskState.State.PAUSED:
        changes["state"] = state_after_resume(state)
    state = task_state_save(tenant=turn.tenant, task=state, steps=steps, **changes)
    filled = list(route.values)
    state = _fill(turn, state, route)
    hint = hint_progress(state, turn.zh, filled) if filled else hint_resume(state, turn.zh, filled)
    if filled and state.collected and state.state != TaskState.State.WAITING_CONFIRM:
        earlier = [n for n in state.collected if n not in filled]
        if earlier:
            hint = hint_continue_told(state, turn.zh, earlier) + hint
    return _result(state, "resume", prefix + hint)
