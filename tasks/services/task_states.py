"""Task states' writes (working memory, tasks.services.working_memory): the state machine's transitions, filling
fields, the drafted result, and the periodic expiry and the user's "forget" of task values.

    collecting_info -> planning -> waiting_confirm -> completed
    any open state  -> paused (another task started) -> back where it was (resume)
    any open/paused -> cancelled | expired (TTL, by the periodic job)

Every write goes through task_state_save: a final state is never changed again, and each write is a compare-and-set
on `version`, so two tabs sending at once never lose a field.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from core.exceptions import Conflict, InvalidInput
from core.i18n import user_language
from core.policy import MemoryPolicy
from memory.services.identifiers.pii import pii_redact_value
from tasks.models import TaskState, TaskType
from tasks.selectors import (
    FINAL_STATES,
    OPEN_STATES,
    RESUMABLE_STATES,
    task_state_completion_prompt,
)
from tasks.services.field_extraction import Extracted, language_of
from tasks.services.scratch import scratch_get_or_compute
from webhooks.services import webhook_event_emit

_ALLOWED: dict[str, set[str]] = {
    TaskState.State.COLLECTING_INFO: {"planning", "waiting_confirm", "paused", "cancelled", "expired"},
    TaskState.State.PLANNING: {"waiting_confirm", "collecting_info", "paused", "cancelled", "expired"},
    TaskState.State.WAITING_CONFIRM: {"completed", "collecting_info", "planning", "paused", "cancelled", "expired"},
    TaskState.State.PAUSED: {"collecting_info", "planning", "waiting_confirm", "cancelled", "expired"},
}


# --- state changes (every write goes through task_state_save: final states refused, compare-and-set on version) -------------
def now_iso() -> str:
    return timezone.now().isoformat()


def task_state_ttl(*, policy: MemoryPolicy) -> timedelta:
    """How long an open task lives: task_ttl_days of `policy`, the turn's."""
    return timedelta(days=policy.task_ttl_days)


def task_state_save(*, tenant, task: TaskState, steps: list[dict], **changes) -> TaskState:
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


def task_webhook_content(tenant_id: int, task_id: int) -> tuple[dict, int] | None:
    """A webhook delivery's content for a task (webhooks.content, registered in tasks.apps): what it collected."""
    task = TaskState.objects.for_tenant(tenant_id).filter(pk=task_id).first()
    if task is None:
        return None
    collected = {k: v.get("value") if isinstance(v, dict) else v for k, v in (task.collected or {}).items()}
    return {"collected": collected}, task.end_user_id


def task_state_start(*, tenant, session, task_type: TaskType, message, policy: MemoryPolicy) -> TaskState:
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
        step_history=[{"action": "start", "message_id": message.pk if message else None, "at": now_iso()}],
        expires_at=timezone.now() + task_state_ttl(policy=policy),
    )


def _draft(*, tenant, session, state: TaskState, policy: MemoryPolicy) -> str:
    """The finished task's result (offline: the structured plan); cached in session scratch per collected values."""
    values = {
        f["name"]: state.collected[f["name"]]["value"] for f in state.required_fields if f["name"] in state.collected
    }
    completion = task_state_completion_prompt(state)

    def compute() -> str:
        with user_language(language_of(state.task_name + "".join(values)) == "zh"):
            lines = [_("%(task)s (draft):") % {"task": state.task_name}]
            lines += [_("- %(field)s: %(value)s") % {"field": name, "value": value} for name, value in values.items()]
            if completion:
                lines.append(_("Next: %(step)s") % {"step": completion})
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
    *, tenant, state: TaskState, values: dict[str, Extracted], message, policy: MemoryPolicy, session=None
) -> TaskState:
    """Record field values (each with the message it came from). When nothing is pending any more the task moves
    through planning to waiting_confirm with its drafted result."""
    if not values:
        return state
    collected, steps = _fields_collected(state, values, message)
    if not steps:
        return state
    pending = [f["name"] for f in state.required_fields if f["name"] not in collected]
    changes: dict[str, Any] = {"collected": collected, "pending_fields": pending}
    if session is not None and state.state in OPEN_STATES:
        changes["expires_at"] = timezone.now() + task_state_ttl(policy=policy)
    if pending:
        if state.state != TaskState.State.COLLECTING_INFO:
            changes["state"] = TaskState.State.COLLECTING_INFO
            steps.append({"action": "state", "to": "collecting_info", "at": now_iso()})
        return task_state_save(tenant=tenant, task=state, steps=steps, **changes)
    return _task_state_complete(
        tenant=tenant, state=state, steps=steps, changes=changes, session=session, policy=policy
    )


def _fields_collected(state: TaskState, values: dict[str, Extracted], message) -> tuple[dict, list[dict]]:
    """(the collected fields with `values` applied, one history step per field that changed). A value the task
    does not ask for, or one equal to what it holds, changes nothing and leaves no step; each value is redacted
    first, since a task state never holds an identifier."""
    known = {f["name"] for f in state.required_fields}
    collected = dict(state.collected)
    steps = []
    for name, extracted in values.items():
        if name not in known:
            continue
        old = collected.get(name, {}).get("value")
        value = pii_redact_value(extracted.value)[0]
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
            "at": now_iso(),
        }
        if old is not None:
            step["old_value"] = old
        steps.append(step)
    return collected, steps


def _task_state_complete(*, tenant, state: TaskState, steps: list[dict], changes: dict, session, policy) -> TaskState:
    """Every field collected: save them (a task still collecting moves to planning with them), then draft the
    result from the saved state and wait for the user's confirmation."""
    if state.state == TaskState.State.COLLECTING_INFO:
        steps = steps + [{"action": "state", "to": "planning", "at": now_iso()}]
        state = task_state_save(tenant=tenant, task=state, steps=steps, state=TaskState.State.PLANNING, **changes)
    else:
        state = task_state_save(tenant=tenant, task=state, steps=steps, **changes)
    result = _draft(tenant=tenant, session=session, state=state, policy=policy)
    return task_state_save(
        tenant=tenant,
        task=state,
        steps=[{"action": "state", "to": "waiting_confirm", "at": now_iso()}],
        state=TaskState.State.WAITING_CONFIRM,
        result=result,
    )


def task_state_transition(*, tenant, state: TaskState, to: str, message=None, reason: str = "") -> TaskState:
    """Move a task to `to` (checked against the state machine); final states are refused."""
    step = {"action": "state", "to": to, "at": now_iso(), "message_id": message.pk if message else None}
    if reason:
        step["reason"] = reason
    return task_state_save(tenant=tenant, task=state, steps=[step], state=to)


def state_after_resume(state: TaskState) -> str:
    if state.pending_fields:
        return TaskState.State.COLLECTING_INFO
    return TaskState.State.WAITING_CONFIRM


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
        history.append({"action": "forget", "fields": names, "at": now_iso()})
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
