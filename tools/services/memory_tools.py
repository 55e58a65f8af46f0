"""The built-in tools a connected model may call on the user's memory, each scoped to the turn's tenant and end
user exactly as the turn is:

- search_memory: the turn's own recall (memory.services.recall.recall), same ranking and scoping;
- save_note: memory_fact_remember, the write rules and identifier guard of extraction; a fact that only a tool's
  result said is refused (tool results are untrusted: never a fact about the user);
- forget_note: one of the user's own notes, by id;
- get_task_state / update_task_state: the task in progress (working memory).

Writes are listed in the turn's memory events (memory.services.notes.events), so Undo works as for extraction's.
A tool's `label` is stored in English (the reply's metadata, the API); the web chat shows it in the page's
language from the catalogue (web.templatetags.web_extras.tool_label)."""

from __future__ import annotations

import re

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from core.erasure import end_user_lock_for_write
from core.exceptions import InvalidInput
from memory.models import MemoryNote
from memory.services.notes.events import forget_event, memory_events_record, note_event
from memory.services.notes.notes import memory_note_forget
from memory.services.recall.recall import memory_recall
from memory.services.writing.remember import memory_fact_remember
from tasks.models import TaskState
from tasks.selectors import task_state_as_context, task_state_open_or_resumable
from tasks.services.task_states import task_state_save
from tools.types import ToolContext, ToolSpec


class ToolRefused(InvalidInput):
    """The tool will not do this (a sentence for the model); the toolbox reports it as status "refused"."""


def search_memory(ctx: ToolContext, *, query: str, limit: int = 5) -> dict:
    items = memory_recall(
        tenant=ctx.tenant,
        end_user=ctx.session.end_user,
        query=query,
        k=max(1, min(int(limit), 10)),
        exclude_session_id=ctx.session.pk,
        policy=ctx.policy,
        touch=False,
    )
    return {"results": [{"type": i.type, "id": i.id, "kind": i.kind, "content": i.content} for i in items]}


def _said_by_a_tool(ctx: ToolContext, fact: str) -> bool:
    """The fact appears in a tool's result of this turn (and not in the user's message): it came from outside."""

    def squash(text: str) -> str:
        return re.sub(r"\W+", "", text.casefold())

    needle = squash(fact)
    return (
        bool(needle)
        and needle not in squash(ctx.user_message.content)
        and any(needle in squash(text) for text in ctx.untrusted)
    )


def save_note(ctx: ToolContext, *, fact: str) -> dict:
    if _said_by_a_tool(ctx, fact):
        raise ToolRefused("That fact comes from a tool's result, not from the user: it is not saved.")
    started = timezone.now()
    result = memory_fact_remember(
        tenant=ctx.tenant, end_user=ctx.session.end_user, text=fact, assistant=ctx.session.assistant
    )
    events = []
    for note in result.notes:
        if note.created_at < started:
            continue  # refreshed, not written: nothing to undo
        before = note.supersedes if note.supersedes_id else None
        events.append(note_event(action="superseded" if before else "written", note=note, before=before))
    if events:
        _record(ctx, events)
    return {
        "saved": [{"id": n.pk, "kind": n.kind, "content": n.content} for n in result.notes],
        "outcomes": result.outcomes,
        "dropped": result.dropped,
    }


def forget_note(ctx: ToolContext, *, note_id: int) -> dict:
    with transaction.atomic():
        user = end_user_lock_for_write(tenant_id=ctx.tenant.pk, end_user_id=ctx.session.end_user_id)
        note = (
            MemoryNote.objects.for_tenant(ctx.tenant)
            .filter(pk=note_id, end_user_id=ctx.session.end_user_id)
            .filter(status__in=[MemoryNote.Status.ACTIVE, MemoryNote.Status.PENDING_REVIEW])
            .first()
        )
        if user is None or note is None:  # another user's note reads exactly as a missing one
            raise ToolRefused(f"The user has no note {note_id}.")
        forgotten = [{"kind": note.kind, "key": note.key}]
        memory_note_forget(tenant=ctx.tenant, note=note, actor="assistant tool")
        _record(ctx, [forget_event(forgotten=forgotten, places=["notes"])])
    return {"forgotten": note_id}


def _record(ctx: ToolContext, events: list[dict]) -> None:
    with transaction.atomic():
        memory_events_record(tenant=ctx.tenant, message=ctx.user_message, events=events)
    ctx.events.extend(events)


def _task(ctx: ToolContext, *, lock: bool = False) -> TaskState | None:
    return task_state_open_or_resumable(
        tenant=ctx.tenant, end_user=ctx.session.end_user, assistant=ctx.session.assistant, lock=lock
    )


def get_task_state(ctx: ToolContext) -> dict:
    task = _task(ctx)
    return {"task": task_state_as_context(task) if task else None}


def update_task_state(ctx: ToolContext, *, field: str, value: str) -> dict:
    with transaction.atomic():
        task = _task(ctx, lock=True)
        if task is None:
            raise ToolRefused("There is no task in progress.")
        names = [f["name"] for f in task.required_fields]
        if field not in names:
            raise ToolRefused(f"The task has no field '{field}': its fields are {', '.join(names)}.")
        collected = {**task.collected, field: {"value": value, "message_id": ctx.user_message.pk, "source": "tool"}}
        pending = [name for name in task.pending_fields if name != field]
        step = {"at": timezone.now().isoformat(), "action": "tool_update", "field": field}
        task = task_state_save(tenant=ctx.tenant, task=task, steps=[step], collected=collected, pending_fields=pending)
    return {"task": task_state_as_context(task)}


def _object(properties: dict, required: list[str]) -> dict:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


MEMORY_TOOLS = (
    ToolSpec(
        name="search_memory",
        description="Search what you remember about the user (their notes and earlier conversations).",
        parameters=_object(
            {
                "query": {"type": "string", "minLength": 1, "maxLength": 500, "description": "What to look for."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 10},
            },
            ["query"],
        ),
        kind="memory",
        label=gettext_noop("Looked up your notes"),
        run=search_memory,
    ),
    ToolSpec(
        name="save_note",
        description="Remember a durable fact the user stated about themselves, as one sentence.",
        parameters=_object({"fact": {"type": "string", "minLength": 1, "maxLength": 2000}}, ["fact"]),
        kind="memory",
        label=gettext_noop("Saved a note"),
        run=save_note,
    ),
    ToolSpec(
        name="forget_note",
        description="Forget one of the user's notes by its id (from search_memory).",
        parameters=_object({"note_id": {"type": "integer", "minimum": 1}}, ["note_id"]),
        kind="memory",
        label=gettext_noop("Forgot a note"),
        run=forget_note,
    ),
    ToolSpec(
        name="get_task_state",
        description="Read the task in progress: what is collected and what is still missing.",
        parameters=_object({}, []),
        kind="memory",
        label=gettext_noop("Read the task in progress"),
        run=get_task_state,
    ),
    ToolSpec(
        name="update_task_state",
        description="Set one field of the task in progress to a value the user gave.",
        parameters=_object(
            {"field": {"type": "string", "minLength": 1}, "value": {"type": "string", "maxLength": 2000}},
            ["field", "value"],
        ),
        kind="memory",
        label=gettext_noop("Updated the task"),
        run=update_task_state,
    ),
)
LONG_TERM_TOOLS = {"search_memory", "save_note", "forget_note"}
