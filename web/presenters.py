"""Turn stored turn context (Message.metadata["context"], TurnContext.as_dict()) into what the page shows."""

from __future__ import annotations

from django.utils.translation import gettext as _

# Only an open task gets the strip; a finished or parked one does not.
HIDDEN_STATES = {"completed", "cancelled", "expired", "paused"}


def _label(field) -> str:
    if isinstance(field, dict):
        return str(field.get("label") or field.get("name") or field.get("field") or "")
    return str(field)


def task_progress(task: dict | None) -> dict | None:
    """{"name", "done", "total", "missing": [labels], "state"} for the progress strip ("项目计划 3/4 还差预算"),
    or None. Reads the working-memory layer's context shape (tasks.selectors.task_state_as_context: task, state,
    progress "3/4", required, collected, pending) and, tolerantly, TaskState's own field names."""
    if not task or not isinstance(task, dict):
        return None
    state = str(task.get("state") or "")
    if state in HIDDEN_STATES:
        return None
    name = task.get("task") or task.get("task_name") or task.get("name") or _("Task")
    required = [_label(f) for f in (task.get("required") or task.get("required_fields") or [])]
    collected = task.get("collected") or {}
    pending = task.get("pending", task.get("pending_fields"))
    if pending is None:
        pending = [f for f in required if f not in collected]
    missing = [_label(f) for f in pending if _label(f)]
    total = len(required) or (len(collected) + len(missing))
    done = total - len(missing) if required else len(collected)
    progress = str(task.get("progress") or "")
    if "/" in progress:
        left, _sep, right = progress.partition("/")
        if left.strip().isdigit() and right.strip().isdigit():
            done, total = int(left), int(right)
    if total <= 0:
        return None
    return {"name": str(name), "done": max(int(done), 0), "total": int(total), "missing": missing, "state": state}


def reply_context(metadata: dict | None) -> dict:
    """What one reply was built from: the memories used, the summary, pinned facts and the task state."""
    context = (metadata or {}).get("context") or {}
    memories = [m for m in context.get("memories") or [] if isinstance(m, dict)]
    notes = [m for m in memories if m.get("type", "note") == "note"]
    messages = [m for m in memories if m.get("type") == "message"]
    pinned = context.get("pinned_facts") or {}
    pinned_items = []
    for key, fact in pinned.items():
        value = fact.get("value") if isinstance(fact, dict) else fact
        pinned_items.append({"key": key, "value": value})
    return {
        "count": len(memories),
        "notes": notes,
        "messages": messages,
        "summary": context.get("summary") or "",
        "pinned": pinned_items,
        "task": task_progress(context.get("task")),
        "hints": context.get("hints") or [],
        "has_any": bool(memories or context.get("summary") or pinned_items or context.get("task")),
    }
