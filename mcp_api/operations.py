"""What each MCP tool does, as plain synchronous functions over the platform's services.

Each takes the tenant (resolved once per request from the API key, or given to the stdio command) and the end
user's external_id, and answers the JSON the REST API answers for the same operation (the REST serializers are
reused), so a client sees one shape whichever door it used. Tenant and user scoping is the REST API's: users are
looked up within the tenant, ids within the user, and another tenant's or user's object is "not found", exactly
like a missing one. Errors are the platform's ApplicationError family.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.db import transaction

from api.views.chat import chat_body
from api.views.memories import NoteSerializer
from api.views.users import TaskStateSerializer
from assistants.services.chat import chat_turn, tool_choice_check
from assistants.services.privacy import user_export_file
from assistants.services.tenants import end_user_get_or_create
from assistants.services.turn_session import turn_session_open
from core.erasure import end_user_erasure_refuse
from core.exceptions import InvalidInput, NotFound
from core.policy import memory_policy_for
from memory.models import MemoryNote
from memory.services.notes.notes import memory_forget_matching, memory_note_forget
from memory.services.recall.recall import memory_recall
from memory.services.recall.recall_types import nothing_relevant
from memory.services.writing.remember import memory_fact_remember
from tasks.models import TaskState
from tenancy.identifiers import external_id_addressable, external_id_problem
from tenancy.models import EndUser

MAX_PAGE = 100


def _text(value, *, what: str, limit: int) -> str:
    """A text argument as the REST API's Text fields accept it: a non-empty string within `limit`, no NUL."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"The {what} is empty.")
    if "\x00" in value:
        raise InvalidInput(
            f"The {what} contains a NUL character (\\0), which cannot be stored: remove it.", code="nul_character"
        )
    if len(value) > limit:
        raise InvalidInput(
            f"The {what} is {len(value):,} characters; the limit is {limit:,}.",
            code="message_too_long" if what == "message" else "invalid",
        )
    return value


def _end_user(*, tenant, external_id: str, create: bool = False) -> EndUser:
    """The tenant's user with this external_id, as the REST API finds it: reads of an unknown id are not found;
    writes create the user (call them inside the operation's transaction, so that a refused write leaves no new
    user behind); a user being erased accepts nothing new."""
    external_id = external_id.strip() if isinstance(external_id, str) else external_id
    user = None
    if external_id_addressable(external_id):  # an existing user keeps working whatever their id
        user = EndUser.objects.for_tenant(tenant).filter(external_id=external_id).first()
    if not create:
        if user is None:
            raise NotFound(f"There is no user '{str(external_id)[:200]}'.", code="user_not_found")
        return user
    if user is None:
        problem = external_id_problem(external_id)  # only a new id must follow today's rule
        if problem:
            raise InvalidInput(problem, details={"user": str(external_id)[:200]})
        user = end_user_get_or_create(tenant=tenant, external_id=external_id)
    end_user_erasure_refuse(user)
    return user


def mcp_remember(*, tenant, actor: str, user: str, fact: str, kind: str | None = None, key: str = "") -> dict:
    fact = _text(fact, what="fact", limit=2000)
    with transaction.atomic():  # a fact the write rules refuse leaves no new user behind
        end_user = _end_user(tenant=tenant, external_id=user, create=True)
        result = memory_fact_remember(tenant=tenant, end_user=end_user, text=fact, kind=kind or None, key=key or "")
    return {
        "stored": bool(result.notes),
        "outcomes": result.outcomes,
        "dropped": result.dropped,
        "notes": NoteSerializer(result.notes, many=True).data,
    }


def mcp_recall(*, tenant, actor: str, user: str, query: str, k: int = 10) -> dict:
    query = _text(query, what="query", limit=2000)
    if not 1 <= k <= 100:
        raise InvalidInput("k must be between 1 and 100.")
    end_user = _end_user(tenant=tenant, external_id=user)
    policy = memory_policy_for(tenant=tenant)
    items = memory_recall(tenant=tenant, end_user=end_user, query=query, policy=policy, k=k, touch=False)
    items = items[:k]
    return {"query": query, "results": [item.as_dict() for item in items], "nothing_relevant": nothing_relevant(items)}


def mcp_list_memories(
    *, tenant, actor: str, user: str, kind: str | None = None, status: str = "active", limit: int = 50, offset: int = 0
) -> dict:
    if kind and kind not in MemoryNote.Kind.values:
        raise InvalidInput(f"'{kind}' is not a note kind: use one of {', '.join(MemoryNote.Kind.values)}.")
    if status not in [*MemoryNote.Status.values, "all"]:
        raise InvalidInput(f"'{status}' is not a status: use one of {', '.join(MemoryNote.Status.values)} or all.")
    if not 1 <= limit <= MAX_PAGE or offset < 0:
        raise InvalidInput(f"limit must be between 1 and {MAX_PAGE}, offset 0 or more.")
    end_user = _end_user(tenant=tenant, external_id=user)
    notes = (
        MemoryNote.objects.for_tenant(tenant)
        .filter(end_user=end_user)
        .select_related("end_user")
        .prefetch_related("superseded_by", "source_messages")
    )
    if kind:
        notes = notes.filter(kind=kind)
    if status != "all":
        notes = notes.filter(status=status)
    count = notes.count()
    page = list(notes.order_by("-created_at", "-id")[offset : offset + limit])
    following = offset + limit if offset + limit < count else None
    return {"count": count, "next_offset": following, "results": NoteSerializer(page, many=True).data}


def mcp_forget(*, tenant, actor: str, user: str, id: int | None = None, query: str | None = None) -> dict:
    if (id is None) == (not query):
        raise InvalidInput("Give either the note's id or a query saying what to forget, not both.")
    end_user = _end_user(tenant=tenant, external_id=user)
    if id is not None:
        note = MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user, pk=id).first()
        if note is None:
            raise NotFound("That note does not exist.")
        if note.status != MemoryNote.Status.FORGOTTEN:
            memory_note_forget(tenant=tenant, note=note, actor=actor)
        return {"forgotten": [{"id": note.pk, "kind": note.kind}]}
    query = _text(query, what="query", limit=2000)
    forgotten = memory_forget_matching(tenant=tenant, end_user=end_user, query=query, actor=actor)
    return {
        "forgotten": [{"id": f["id"], "kind": f.get("kind", ""), "content": f.get("content", "")} for f in forgotten]
    }


def mcp_chat(
    *,
    tenant,
    actor: str,
    user: str,
    message: str,
    session: int | None = None,
    assistant: int | None = None,
    tool_choice: str = "auto",
) -> dict:
    """One chat turn; the answer is the REST chat answer, `tool_calls` included."""
    message = _text(message, what="message", limit=settings.MAX_MESSAGE_CHARS)
    with transaction.atomic():  # a refused session or assistant leaves no new user or session behind
        end_user = _end_user(tenant=tenant, external_id=user, create=True)
        chat = turn_session_open(
            tenant=tenant,
            end_user=end_user,
            session_id=session,
            assistant_id=assistant,
            title=" ".join(message.split())[:60],
        )
        tool_choice_check(tenant=tenant, session=chat, tool_choice=tool_choice)  # refused: the new rows go back
    # The turn commits the user's message in its own transactions (a model failure must not lose it).
    return chat_body(chat_turn(tenant=tenant, session=chat, text=message, tool_choice=tool_choice))


def mcp_get_task_state(*, tenant, actor: str, user: str, session: int | None = None, state: str | None = None) -> dict:
    if state and state not in TaskState.State.values:
        raise InvalidInput(f"'{state}' is not a task state: use one of {', '.join(TaskState.State.values)}.")
    end_user = _end_user(tenant=tenant, external_id=user)
    tasks = TaskState.objects.for_tenant(tenant).filter(end_user=end_user)
    if session is not None:
        tasks = tasks.filter(session_id=session)
    if state:
        tasks = tasks.filter(state=state)
    return {"results": TaskStateSerializer(tasks.order_by("-updated_at", "-id")[:MAX_PAGE], many=True).data}


def mcp_export_user(*, tenant, actor: str, user: str) -> dict:
    end_user = _end_user(tenant=tenant, external_id=user)
    document = user_export_file(tenant=tenant, end_user=end_user)
    try:
        size = document.seek(0, 2)
        if size > settings.MCP_EXPORT_MAX_BYTES:
            raise InvalidInput(
                f"This user's export is {size:,} bytes, more than an MCP answer carries "
                f"({settings.MCP_EXPORT_MAX_BYTES:,}); download it from "
                f"GET /api/v1/users/<id>/export/ instead.",
                code="export_too_large",
            )
        document.seek(0)
        return json.loads(document.read().decode("utf-8"))
    finally:
        document.close()
