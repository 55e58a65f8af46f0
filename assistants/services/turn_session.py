"""Which conversation a chat turn goes to, and so which assistant answers it: decided here once for every door (the
REST API's POST /chat/, the MCP chat tool, the web chat's new conversation).

- A turn that names a session continues it: the session must be the user's (another user's or tenant's answers
  404, the same as a missing one), and what the request says of it must agree with it (its assistant; a
  temporary chat cannot be made of an existing one).
- A turn that names none starts one, with the assistant asked for (404 when the tenant has no such assistant) or
  the tenant's first (chat_session_start).

Each door keeps what is its own: how it finds the user (and when it creates one), and how it answers.
"""

from __future__ import annotations

from assistants.services.chat import chat_session_start
from core.exceptions import InvalidInput, NotFound
from tenancy.models import Assistant, ChatSession, EndUser, Tenant


def turn_assistant_get(*, tenant: Tenant, assistant_id: int | None) -> Assistant | None:
    """The assistant a new session asks for, or None for the tenant's first (chat_session_start picks it)."""
    if assistant_id is None:
        return None
    assistant = Assistant.objects.for_tenant(tenant).filter(pk=assistant_id).first()
    if assistant is None:
        raise NotFound(f"Assistant {assistant_id} does not exist.")
    return assistant


def turn_session_check(
    session: ChatSession, *, assistant_id: int | None = None, temporary: bool = False
) -> ChatSession:
    """`session`, if what the turn asks of it agrees with it: InvalidInput otherwise."""
    if assistant_id is not None and session.assistant_id != assistant_id:
        raise InvalidInput("That session belongs to another assistant; leave 'assistant' out.")
    if temporary and not session.temporary:
        raise InvalidInput(
            "That session is not temporary, and an existing session cannot become one: "
            "leave 'session' out to start a temporary chat."
        )
    return session


def turn_session_get(
    *, tenant: Tenant, end_user: EndUser, session_id: int, assistant_id: int | None = None, temporary: bool = False
) -> ChatSession:
    """The user's session `session_id` for a turn that continues it (NotFound when it is not theirs)."""
    session = (
        ChatSession.objects.for_tenant(tenant)
        .filter(end_user=end_user, pk=session_id)
        .select_related("assistant")
        .first()
    )
    if session is None:
        raise NotFound(f"Session {session_id} does not exist for this user.")
    return turn_session_check(session, assistant_id=assistant_id, temporary=temporary)


def turn_session_open(
    *,
    tenant: Tenant,
    end_user: EndUser,
    session_id: int | None = None,
    assistant_id: int | None = None,
    temporary: bool = False,
    title: str = "",
) -> ChatSession:
    """The session a turn goes to: `session_id` continued, or a new one (titled `title`). Writes the new session:
    call it in the transaction that must take it back if the turn is refused."""
    if session_id is not None:
        return turn_session_get(
            tenant=tenant, end_user=end_user, session_id=session_id, assistant_id=assistant_id, temporary=temporary
        )
    assistant = turn_assistant_get(tenant=tenant, assistant_id=assistant_id)
    return chat_session_start(tenant=tenant, end_user=end_user, assistant=assistant, title=title, temporary=temporary)
