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

from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.exceptions import Conflict, InvalidInput
from core.policy import memory_policy_for
from memory.services.pii import pii_redact_value
from tasks.models import TaskState, TaskType
from tasks.selectors import (
    FINAL_STATES,
    OPEN_STATES,
    RESUMABLE_STATES,
    task_state_as_context,
    task_state_progress,
    task_state_resumable,
)
from tasks.services.field_extraction import Extracted, language_of
from tasks.services.routing import (
    ANOTHER,
    CONTINUE,
    OfflineRouter,
    PreparedRoute,
    Route,
    router_for,
    routing_inputs,
    task_involved,
)
from tasks.services.routing import OFFER_KEY as ROUTING_OFFER_KEY
from tasks.services.scratch import scratch_get_or_compute, scratch_put
from webhooks.services import webhook_event_emit

OFFER_KEY = ROUTING_OFFER_KEY  # kept here too: callers read it from working memory

_ALLOWED = {
    TaskState.State.COLLECTING_INFO: {"planning", "waiting_confirm", "paused", "cancelled", "expired"},
    TaskState.State.PLANNING: {"waiting_confirm", "collecting_info", "paused", "cancelled", "expired"},
    TaskState.State.WAITING_CONFIRM: {"completed", "collecting_info", "planning", "paused", "cancelled", "expired"},
    TaskState.State.PAUSED: {"collecting_info", "planning", "waiting_confirm", "cancelled", "expired"},
}


# --- state changes (every write goes through _save: final states refused, compare-and-set on version) -------------
def _now_iso() -> str:
    return timezone.now().isoformat()


def _ttl(*, tenant, assistant, policy=None) -> timedelta:
    """task_ttl_days of `policy` (the turn's), else of `assistant`'s policy."""
    return timedelta(days=(policy or memory_policy_for(tenant=tenant, assistant=assistant)).task_ttl_days)


def _save(*, tenant, task: TaskState, steps: list[dict], **changes) -> TaskState:
    if task.state in FINAL_STATES:
        raise Conflict(f"The task '{task.task_name}' is {task.state} and can no longer be changed.")
    new_state = changes.get("state", task.state)
    if new_state != task.state and new_state not in _ALLOWED.get(task.state, set()):
        raise InvalidInput(f"A task cannot go from {task.state} to {new_state}.")
    changes["step_history"] = list(task.step_history) + steps
    now = timezone.now()
    updated = (
        TaskState.objects.for_tenant(tenant)
        .filter(pk=task.pk, version=task.version)
        .exclude(state__in=FINAL_STATES)
        .update(version=F("version") + 1, updated_at=now, **changes)
    )
    if updated != 1:
        raise Conflict(f"The task '{task.task_name}' changed meanwhile; send the message again.")
    for name, value in changes.items():
        setattr(task, name, value)
    task.version += 1
    task.updated_at = now
    if changes.get("state") == TaskState.State.COMPLETED:
        webhook_event_emit(
            tenant=tenant,
            event="task.completed",
            data={
                "task": task.pk,
                "task_name": task.task_name,
                "task_type": task.task_type_id,
                "session": task.session_id,
                "user_id": task.end_user_id,
            },
        )
    return task


def task_state_start(*, tenant, session, task_type: TaskType, message, policy=None) -> TaskState:
    """A new task of `task_type` for the session's user, collecting its required fields."""
    if task_type.tenant_id != tenant.pk or session.tenant_id != tenant.pk:
        raise InvalidInput("The task type belongs to another tenant.")
    fields = [dict(f) for f in task_type.required_fields]
    return TaskState.objects.for_tenant(tenant).create(
        tenant=tenant,
        end_user_id=session.end_user_id,
        session=session,
        task_type=task_type,
        task_name=task_type.name,
        state=TaskState.State.COLLECTING_INFO,
        required_fields=fields,
        collected={},
        pending_fields=[f["name"] for f in fields],
        step_history=[{"action": "start", "message_id": message.pk if message else None, "at": _now_iso()}],
        expires_at=timezone.now() + _ttl(tenant=tenant, assistant=session.assistant, policy=policy),
    )


def _draft(*, tenant, session, state: TaskState, policy=None) -> str:
    """The finished task's result (offline: the structured plan); cached in session scratch per collected values."""
    values = {
        f["name"]: state.collected[f["name"]]["value"] for f in state.required_fields if f["name"] in state.collected
    }
    completion = state.task_type.completion_prompt if state.task_type_id else ""

    def compute() -> str:
        zh = language_of(state.task_name + "".join(values)) == "zh"
        lines = [f"{state.task_name}{'草案' if zh else ' (draft)'}:"]
        lines += [f"- {name}{'：' if zh else ': '}{value}" for name, value in values.items()]
        if completion:
            lines.append(("下一步：" if zh else "Next: ") + completion)
        return "\n".join(lines)

    if session is None:
        return compute()
    return scratch_get_or_compute(
        tenant=tenant,
        session=session,
        call="task_draft",
        args={"task": state.pk, "values": values},
        compute=compute,
        policy=policy,
    )


def task_state_fill(
    *, tenant, state: TaskState, values: dict[str, Extracted], message, session=None, policy=None
) -> TaskState:
    """Record field values (each with the message it came from). When nothing is pending any more the task moves
    through planning to waiting_confirm with its drafted result."""
    if not values:
        return state
    known = {f["name"] for f in state.required_fields}
    collected = dict(state.collected)
    steps = []
    for name, extracted in values.items():
        if name not in known:
            continue
        old = collected.get(name, {}).get("value")
        value = pii_redact_value(extracted.value)[0]  # a task-state value never holds an identifier
        if old == value:
            continue
        collected[name] = {
            "value": value,
            "message_id": message.pk if message else None,
            "normalized": extracted.normalized,
        }
        step = {
            "action": "update_field" if old is not None else "set_field",
            "field": name,
            "value": value,
            "message_id": message.pk if message else None,
            "at": _now_iso(),
        }
        if old is not None:
            step["old_value"] = old
        steps.append(step)
    if not steps:
        return state
    pending = [f["name"] for f in state.required_fields if f["name"] not in collected]
    changes = {"collected": collected, "pending_fields": pending}
    if session is not None and state.state in OPEN_STATES:
        changes["expires_at"] = timezone.now() + _ttl(tenant=tenant, assistant=session.assistant, policy=policy)
    if pending:
        if state.state != TaskState.State.COLLECTING_INFO:
            changes["state"] = TaskState.State.COLLECTING_INFO
            steps.append({"action": "state", "to": "collecting_info", "at": _now_iso()})
        return _save(tenant=tenant, task=state, steps=steps, **changes)
    if state.state == TaskState.State.COLLECTING_INFO:
        state = _save(
            tenant=tenant,
            task=state,
            steps=steps + [{"action": "state", "to": "planning", "at": _now_iso()}],
            state=TaskState.State.PLANNING,
            **changes,
        )
        steps = []
    else:
        state = _save(tenant=tenant, task=state, steps=steps, **changes)
        steps = []
    result = _draft(tenant=tenant, session=session, state=state, policy=policy)
    return _save(
        tenant=tenant,
        task=state,
        steps=[{"action": "state", "to": "waiting_confirm", "at": _now_iso()}],
        state=TaskState.State.WAITING_CONFIRM,
        result=result,
    )


def task_state_transition(*, tenant, state: TaskState, to: str, message=None, reason: str = "") -> TaskState:
    """Move a task to `to` (checked against the state machine); final states are refused."""
    step = {"action": "state", "to": to, "at": _now_iso(), "message_id": message.pk if message else None}
    if reason:
        step["reason"] = reason
    return _save(tenant=tenant, task=state, steps=[step], state=to)


def _state_after_resume(state: TaskState) -> str:
    if state.pending_fields:
        return TaskState.State.COLLECTING_INFO
    return TaskState.State.WAITING_CONFIRM


# --- the reply hints (the user's language) ------------------------------------------------------------------------
def _join(names: list[str], zh: bool) -> str:
    if zh:
        return "、".join(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _label(state: TaskState, zh: bool) -> str:
    name = state.task_name
    return name if zh or not name[:1].isupper() or not name.isascii() else name[0].lower() + name[1:]


def _recap(state: TaskState, zh: bool, names: list[str] | None = None) -> str:
    names = names if names is not None else [f["name"] for f in state.required_fields if f["name"] in state.collected]
    sep = "：" if zh else ": "
    return ("；" if zh else "; ").join(f"{n}{sep}{state.collected[n]['value']}" for n in names)


def _ask(state: TaskState, zh: bool) -> str:
    pending = list(state.pending_fields)
    if zh:
        return f"还需要你告诉我{_join(pending, True)}。"
    return f"I still need the {_join(pending, False)}."


def _next_step(state: TaskState, zh: bool) -> str:
    completion = (state.task_type.completion_prompt if state.task_type_id else "").strip()
    if not completion:
        return ""
    return f"下一步：{completion.rstrip('。')}。" if zh else f"Next: {completion.rstrip('.')}. "


def _hint_finished(state: TaskState, zh: bool) -> str:
    """One line (hints are lines of the context): the collected values, what will be produced, and the question."""
    if zh:
        return (
            f"{_label(state, zh)}的信息已齐全（{task_state_progress(state)}）：{_recap(state, zh)}。"
            f"{_next_step(state, zh)}请确认是否就按这个来，或告诉我要修改的地方。"
        )
    return (
        f"I have everything for the {_label(state, zh)} ({task_state_progress(state)}): {_recap(state, zh)}. "
        f"{_next_step(state, zh)}Please confirm, or tell me what to change."
    )


def _hint_progress(state: TaskState, zh: bool, filled: list[str]) -> str:
    if state.state == TaskState.State.WAITING_CONFIRM:
        prefix = (
            (f"已记下{_recap(state, zh, filled)}。" if zh else f"Noted {_recap(state, zh, filled)}. ") if filled else ""
        )
        return prefix + _hint_finished(state, zh)
    progress = task_state_progress(state)
    if zh:
        head = f"已记下{_recap(state, zh, filled)}（进度 {progress}）。" if filled else ""
        return head + f"接下来请告诉我{state.pending_fields[0]}。"
    head = f"Noted {_recap(state, zh, filled)} (progress {progress}). " if filled else ""
    return head + f"Next, what is the {state.pending_fields[0]}?"


def _hint_start(state: TaskState, zh: bool, filled: list[str]) -> str:
    if state.state == TaskState.State.WAITING_CONFIRM:
        return _hint_finished(state, zh)
    required = [f["name"] for f in state.required_fields]
    if zh:
        head = f"好的，我们来做{_label(state, zh)}，需要：{_join(required, True)}。"
    else:
        head = f"Sure, let's work on the {_label(state, zh)}. I need the {_join(required, False)}. "
    if filled:
        return head + _hint_progress(state, zh, filled)
    return head + (f"请先告诉我{state.pending_fields[0]}。" if zh else f"First, what is the {state.pending_fields[0]}?")


def _hint_resume(state: TaskState, zh: bool, filled: list[str]) -> str:
    if state.state == TaskState.State.WAITING_CONFIRM:
        return (
            f"好的，继续{_label(state, zh)}。" if zh else f"Sure, back to the {_label(state, zh)}. "
        ) + _hint_finished(state, zh)
    progress = task_state_progress(state)
    if zh:
        head = f"好的，继续{_label(state, zh)}（进度 {progress}）。"
        told = f"你之前告诉了我：{_recap(state, zh)}。" if state.collected else ""
    else:
        head = f"Sure, let's continue the {_label(state, zh)} (progress {progress}). "
        told = f"So far you told me: {_recap(state, zh)}. " if state.collected else ""
    return head + told + _ask(state, zh)


def _hint_offer(state: TaskState, zh: bool, or_new: bool = False) -> str:
    """The question that offers a task from another conversation: it is never continued without a yes."""
    new_zh = "还是新建一个？" if or_new else ""
    new_en = " Or shall I start a new one?" if or_new else ""  # the question without it is a contract (tests)
    if state.pending_fields:
        if zh:
            return f"你之前的{_label(state, zh)}还差{_join(list(state.pending_fields), True)}，要继续吗？{new_zh}"
        return (
            f"Your earlier {_label(state, zh)} still needs the {_join(list(state.pending_fields), False)}. "
            f"Shall we continue?{new_en}"
        )
    if zh:
        return f"你之前的{_label(state, zh)}信息已齐全，还等你确认，要继续吗？{new_zh}"
    return f"Your earlier {_label(state, zh)} is complete and waiting for your confirmation. Shall we continue?{new_en}"


def _hint_paused(paused: TaskState, zh: bool) -> str:
    if zh:
        return f"（{paused.task_name}已暂停保存，进度 {task_state_progress(paused)}，随时说“继续{paused.task_name}”就能回来。）"
    return (
        f'(I paused the {_label(paused, zh)} at {task_state_progress(paused)}; say "continue the '
        f'{_label(paused, zh)}" any time.) '
    )


# --- the hook -----------------------------------------------------------------------------------------------------
def _result(state: TaskState, route: str, hint: str | None) -> dict:
    return {"section": "task", "data": task_state_as_context(state, route=route), "reply_hint": hint}


def task_route_prepare(*, tenant, session, text: str, policy) -> PreparedRoute | None:
    """Ask the chat model how to route `text`, before the turn locks the user's rows (the hook's `prepare`, see
    assistants.services.hooks): a model that takes seconds then holds up nobody else's work. Reads only, without
    locks. None when the model is not needed (no task involved, an offline model, a forget request)."""
    from memory.services.forget_requests import forget_target

    if forget_target(text):
        return None  # "forget ..." is said to memory, never routed (task_route_message returns None for it)
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


def task_route_message(*, tenant, session, message, policy=None, prepared=_NOT_PREPARED) -> dict | None:
    """A pre-turn hook (assistants.services.hooks): route one user message (continue the task / side question /
    new task), update the task state, and return {"section": "task", "data": <state for context section 4>,
    "reply_hint": ...}, or None when no task is active.

    The model is never asked while the task rows are locked: the chat turn hands over `prepared` (what
    task_route_prepare asked before the turn locked anything) and it is used if the tasks are still as the model
    saw them; otherwise (another turn changed them meanwhile, or the model was not asked) the offline rules
    decide. Called on its own, without `prepared`, it asks the model first and then locks."""
    policy = policy or memory_policy_for(tenant=tenant, assistant=session.assistant)
    if prepared is _NOT_PREPARED:
        prepared = task_route_prepare(tenant=tenant, session=session, text=message.content or "", policy=policy)
    # The turn runs hooks in a savepoint each (assistants.services.hooks); a second one here would only add round
    # trips. Called on its own, this still opens a transaction.
    with transaction.atomic(savepoint=False):
        return _route_message(tenant=tenant, session=session, message=message, policy=policy, prepared=prepared)


task_route_message.prepare = task_route_prepare  # type: ignore[attr-defined]


def _route_message(*, tenant, session, message, policy, prepared: PreparedRoute | None) -> dict | None:
    assistant = session.assistant
    end_user = session.end_user
    text = message.content or ""
    if (message.metadata or {}).get("memory_command"):
        return None  # "forget that ..." is said to memory, never a value for the task
    zh = language_of(text) == "zh"
    seen = routing_inputs(tenant=tenant, session=session, lock=True)
    task_types, current, earlier, offered_id, offered = (
        seen.task_types,
        seen.current,
        seen.earlier,
        seen.offered_id,
        seen.offered,
    )
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

    if route.kind == "cancel":
        return _cancel(
            tenant=tenant, session=session, message=message, route=route, current=current, earlier=earlier, zh=zh
        )

    if route.kind == "new_task" and route.task_type is not None:
        paused_note = ""
        # An earlier, unfinished task of the same type is resumed rather than started twice when it is this
        # conversation's; from another conversation it is offered as a question; "another/a new plan" starts anew.
        existing = (
            None
            if wants_another
            else task_state_resumable(
                tenant=tenant, end_user=end_user, assistant=assistant, task_type=route.task_type, lock=True
            )
        )
        if existing is not None and existing.session_id != session.pk and existing.pk != offered_id:
            scratch_put(tenant=tenant, session=session, key=OFFER_KEY, value=existing.pk, policy=policy)
            return _result(existing, "offer", _hint_offer(existing, zh, or_new=True))
        if current is not None and (existing is None or existing.pk != current.pk):
            current = task_state_transition(
                tenant=tenant,
                state=current,
                to=TaskState.State.PAUSED,
                message=message,
                reason=f"new task: {route.task_type.name}",
            )
            paused_note = _hint_paused(current, zh)
        if earlier is not None and earlier.state in OPEN_STATES and earlier.pk != getattr(existing, "pk", None):
            # one task in progress per user: the other conversation's is kept, paused, and can be resumed
            earlier = task_state_transition(
                tenant=tenant,
                state=earlier,
                to=TaskState.State.PAUSED,
                message=message,
                reason=f"new task: {route.task_type.name}",
            )
            paused_note = paused_note or _hint_paused(earlier, zh)
        if existing is not None and existing.session_id == session.pk:
            return _resume(
                tenant=tenant,
                session=session,
                message=message,
                state=existing,
                route=route,
                zh=zh,
                prefix=paused_note,
                policy=policy,
            )
        state = task_state_start(
            tenant=tenant, session=session, task_type=route.task_type, message=message, policy=policy
        )
        state = task_state_fill(
            tenant=tenant, state=state, values=route.values, message=message, session=session, policy=policy
        )
        return _result(state, "new_task", paused_note + _hint_start(state, zh, list(route.values)))

    if route.kind == "resume":
        target = (
            current
            if current is not None and (route.task_type is None or current.task_type_id == route.task_type.pk)
            else None
        )
        if target is None:
            target = task_state_resumable(
                tenant=tenant, end_user=end_user, assistant=assistant, task_type=route.task_type, lock=True
            )
        if target is None:
            if route.task_type is None:
                return None
            state = task_state_start(
                tenant=tenant, session=session, task_type=route.task_type, message=message, policy=policy
            )
            state = task_state_fill(
                tenant=tenant, state=state, values=route.values, message=message, session=session, policy=policy
            )
            return _result(state, "new_task", _hint_start(state, zh, list(route.values)))
        prefix = ""
        if current is not None and current.pk != target.pk:
            current = task_state_transition(
                tenant=tenant,
                state=current,
                to=TaskState.State.PAUSED,
                message=message,
                reason=f"resumed: {target.task_name}",
            )
            prefix = _hint_paused(current, zh)
        return _resume(
            tenant=tenant,
            session=session,
            message=message,
            state=target,
            route=route,
            zh=zh,
            prefix=prefix,
            policy=policy,
        )

    if current is None:
        if earlier is not None and offered_id != earlier.pk:
            scratch_put(tenant=tenant, session=session, key=OFFER_KEY, value=earlier.pk, policy=policy)
            return _result(earlier, "offer", _hint_offer(earlier, zh))
        return None

    if route.kind == "confirm" and current.state == TaskState.State.WAITING_CONFIRM:
        state = task_state_transition(tenant=tenant, state=current, to=TaskState.State.COMPLETED, message=message)
        hint = (
            f"好的，{state.task_name}已确认完成：{_recap(state, zh)}。"
            if zh
            else f"Done: the {_label(state, zh)} is confirmed ({_recap(state, zh)})."
        )
        return _result(state, "confirm", hint)

    if route.kind == "continue":
        if current.session_id != session.pk:
            current = _save(
                tenant=tenant,
                task=current,
                steps=[{"action": "moved_to_session", "session_id": session.pk, "at": _now_iso()}],
                session=session,
            )
        state = task_state_fill(
            tenant=tenant, state=current, values=route.values, message=message, session=session, policy=policy
        )
        return _result(state, "continue", _hint_progress(state, zh, list(route.values)))

    # A side question: the task is not written at all; it stays in context so the reply knows about it. In a new
    # session the first message also offers to continue it, once.
    if earlier is not None and offered_id != earlier.pk:
        scratch_put(tenant=tenant, session=session, key=OFFER_KEY, value=earlier.pk, policy=policy)
        return _result(current, "offer", _hint_offer(current, zh))
    return _result(current, "side_question", None)


def _cancel(*, tenant, session, message, route: Route, current, earlier, zh: bool) -> dict | None:
    """ "Cancel the project plan" / "取消" / "stop the plan": the named (or current, or offered) task is cancelled,
    whichever conversation it was started in."""

    def fits(state):
        return state is not None and (route.task_type is None or state.task_type_id == route.task_type.pk)

    target = current if fits(current) else earlier if fits(earlier) else None
    if target is None and route.task_type is not None:
        target = task_state_resumable(
            tenant=tenant, end_user=session.end_user, assistant=session.assistant, task_type=route.task_type, lock=True
        )
    if target is None:
        if route.task_type is None:
            return None
        return {
            "section": "task",
            "data": None,
            "reply_hint": f"没有进行中的{route.task_type.name}，不需要取消。"
            if zh
            else f"There is no {route.task_type.name.lower()} in progress, so there is nothing to cancel.",
        }
    state = task_state_transition(tenant=tenant, state=target, to=TaskState.State.CANCELLED, message=message)
    return _result(
        state, "cancel", f"好的，已取消{state.task_name}。" if zh else f"OK, I cancelled the {_label(state, zh)}."
    )


def _resume(
    *, tenant, session, message, state: TaskState, route: Route, zh: bool, prefix: str = "", policy=None
) -> dict:
    steps = [{"action": "resume", "message_id": message.pk, "session_id": session.pk, "at": _now_iso()}]
    changes = {
        "session": session,
        "expires_at": timezone.now() + _ttl(tenant=tenant, assistant=session.assistant, policy=policy),
    }
    if state.state == TaskState.State.PAUSED:
        changes["state"] = _state_after_resume(state)
    state = _save(tenant=tenant, task=state, steps=steps, **changes)
    filled = list(route.values)
    state = task_state_fill(
        tenant=tenant, state=state, values=route.values, message=message, session=session, policy=policy
    )
    hint = _hint_progress(state, zh, filled) if filled else _hint_resume(state, zh, filled)
    if filled and state.collected and state.state != TaskState.State.WAITING_CONFIRM:
        earlier = [n for n in state.collected if n not in filled]
        if earlier:
            hint = (
                f"好的，继续{state.task_name}。你之前告诉了我：{_recap(state, zh, earlier)}。"
                if zh
                else f"Sure, let's continue the {_label(state, zh)}. So far you told me: {_recap(state, zh, earlier)}. "
            ) + hint
    return _result(state, "resume", prefix + hint)


# --- expiry (the periodic job) ----------------------------------------------------------------------------------
def task_states_expire(*, now=None, batch: int = 500) -> dict:
    """Expire every open or paused task past its TTL (all tenants), and drop expired session scratch."""
    from tasks.services.scratch import scratch_expire

    now = now or timezone.now()
    expired = 0
    while True:
        with transaction.atomic():
            rows = list(
                TaskState.objects.unscoped()
                .select_for_update(skip_locked=True)
                .filter(state__in=RESUMABLE_STATES, expires_at__lte=now)
                .order_by("id")[:batch]
            )
            for row in rows:
                TaskState.objects.unscoped().filter(pk=row.pk).update(
                    state=TaskState.State.EXPIRED,
                    version=F("version") + 1,
                    updated_at=timezone.now(),
                    step_history=list(row.step_history)
                    + [{"action": "state", "to": "expired", "reason": "ttl", "at": now.isoformat()}],
                )
            expired += len(rows)
        if len(rows) < batch:
            break
    return {"expired_tasks": expired, "expired_scratch": scratch_expire(now=now)}


# --- forgetting (a user's "forget …" reaches task state too) ---------------------------------------------
def task_states_forget(*, tenant, end_user, found_in) -> int:
    """Remove from the user's task states every collected value that holds what the user asked to forget
    (`found_in(text)` says so): the field is pending again, its steps in the history lose the value, and a drafted
    result that quoted it is dropped. Final tasks are scrubbed too (forgetting overrides immutability: the value
    must not survive anywhere). Returns how many values were removed."""
    removed = 0
    for state in TaskState.objects.for_tenant(tenant).select_for_update().filter(end_user=end_user):
        names = [name for name, entry in (state.collected or {}).items() if found_in(str(entry.get("value", "")))]
        result_hit = bool(state.result) and found_in(state.result)
        if not names and not result_hit:
            continue
        collected = {n: e for n, e in state.collected.items() if n not in names}
        history = []
        for step in state.step_history:
            step = dict(step)
            if step.get("field") in names or found_in(str(step.get("value", ""))):
                step.pop("value", None)
                step.pop("old_value", None)
                step["forgotten"] = True
            history.append(step)
        history.append({"action": "forget", "fields": names, "at": _now_iso()})
        changes = {
            "collected": collected,
            "step_history": history,
            "version": F("version") + 1,
            "updated_at": timezone.now(),
        }
        if names:
            changes["pending_fields"] = [f["name"] for f in state.required_fields if f["name"] not in collected]
        if names or result_hit:
            changes["result"] = ""
        if state.state not in FINAL_STATES and names and state.state != TaskState.State.PAUSED:
            changes["state"] = TaskState.State.COLLECTING_INFO
        TaskState.objects.for_tenant(tenant).filter(pk=state.pk).update(**changes)
        removed += len(names) or 1
    return removed
