"""Turn stored turn context (Message.metadata["context"], TurnContext.as_dict()) into what the page shows."""
from __future__ import annotations

from django.utils.translation import gettext as _

DONE_STATES = {"completed", "cancelled", "expired"}


def _label(field) -> str:
    if isinstance(field, dict):
        return str(field.get("label") or field.get("name") or field.get("field") or "")
    return str(field)


def task_progress(task: dict | None) -> dict | None:
    """{"name", "done", "total", "missing": [labels], "state"} for the progress strip, or None.

    Tolerant of the task layer's shape: required_fields / collected / pending_fields (TaskState), or explicit
    done/total/missing numbers if the layer supplies them."""
    if not task or not isinstance(task, dict):
        return None
    state = str(task.get("state") or "")
    if state in DONE_STATES:
        return None
    name = task.get("task_name") or task.get("name") or task.get("title") or _("Task")
    required = task.get("required_fields") or []
    collected = task.get("collected") or {}
    pending = task.get("pending_fields")
    if pending is None:
        pending = [f for f in required if _label(f) not in collected]
    total = task.get("total", len(required) or (len(collected) + len(pending)))
    done = task.get("done", max(total - len(pending), 0) if required else len(collected))
    missing = task.get("missing") or [_label(f) for f in pending]
    labels = task.get("field_labels") or {}
    missing = [str(labels.get(m, m)) for m in missing if m]
    return {"name": str(name), "done": int(done), "total": int(total), "missing": missing, "state": state}


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
