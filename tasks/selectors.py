"""Reads of working memory. Every selector takes the tenant and looks rows up within it."""

from __future__ import annotations

from django.db.models import Case, Q, QuerySet, Value, When
from django.utils import timezone

from tasks.models import TaskState, TaskType

OPEN_STATES = (TaskState.State.COLLECTING_INFO, TaskState.State.PLANNING, TaskState.State.WAITING_CONFIRM)
RESUMABLE_STATES = OPEN_STATES + (TaskState.State.PAUSED,)
FINAL_STATES = (TaskState.State.COMPLETED, TaskState.State.CANCELLED, TaskState.State.EXPIRED)


def task_types_for(*, tenant, assistant) -> list[TaskType]:
    return list(TaskType.objects.for_tenant(tenant).filter(assistant=assistant).order_by("id"))


def _live(qs: QuerySet) -> QuerySet:
    return qs.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now()))


def task_states_of(*, tenant, end_user, assistant) -> QuerySet:
    """One user's task states with one assistant (task states follow the user across sessions)."""
    return (
        TaskState.objects.for_tenant(tenant)
        .filter(end_user=end_user)
        .filter(Q(task_type__assistant=assistant) | Q(task_type__isnull=True, session__assistant=assistant))
    )


def task_state_open_or_resumable(*, tenant, end_user, assistant, lock: bool = False) -> TaskState | None:
    """In one query, the task in progress if there is one (open and within its TTL), else the most recent
    paused one (what task_state_resumable returns then): the two reads a turn's routing starts with."""
    qs = _live(
        task_states_of(tenant=tenant, end_user=end_user, assistant=assistant).filter(state__in=RESUMABLE_STATES)
    ).select_related("task_type")
    if lock:
        qs = qs.select_for_update(of=("self",))
    open_first = Case(When(state__in=OPEN_STATES, then=Value(0)), default=Value(1))
    return qs.order_by(open_first, "-updated_at", "-id").first()


def task_state_resumable(
    *, tenant, end_user, assistant, task_type: TaskType | None = None, lock: bool = False
) -> TaskState | None:
    """The most recent open or paused task (of `task_type`, when given) that is still within its TTL."""
    qs = _live(task_states_of(tenant=tenant, end_user=end_user, assistant=assistant).filter(state__in=RESUMABLE_STATES))
    if task_type is not None:
        qs = qs.filter(task_type=task_type)
    if lock:
        qs = qs.select_for_update(of=("self",))
    return qs.order_by("-updated_at", "-id").first()


def task_state_as_context(state: TaskState, *, route: str | None = None) -> dict:
    """The task as shown in context section 4 (TurnContext.task) and by the API."""
    required = [f["name"] for f in state.required_fields]
    return {
        "id": state.pk,
        "task": state.task_name,
        "state": state.state,
        "progress": task_state_progress(state),
        "required": required,
        "collected": {name: state.collected[name]["value"] for name in required if name in state.collected},
        "sources": {name: state.collected[name].get("message_id") for name in required if name in state.collected},
        "pending": list(state.pending_fields),
        "result": state.result,
        "version": state.version,
        "expires_at": state.expires_at.isoformat() if state.expires_at else None,
        "route": route,
    }


def task_state_completion_prompt(state: TaskState) -> str:
    """What the task's type says to produce once every field is collected; "" for a task without a type."""
    task_type = state.task_type  # None, without a query, when the task has no type
    return task_type.completion_prompt if task_type is not None else ""


def task_state_progress(state: TaskState) -> str:
    total = len(state.required_fields)
    done = sum(1 for f in state.required_fields if f["name"] in state.collected)
    return f"{done}/{total}"
