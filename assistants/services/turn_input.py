"""What a chat message must be before a turn writes anything: the door's checks, the same for every door (the
web chat, the API, the MCP tool, an edited message)."""

from __future__ import annotations

from django.conf import settings
from django.utils import timezone

from core.exceptions import InvalidInput, NotFound
from tenancy.models import ChatSession, Tenant


def turn_session_live_check(*, tenant: Tenant, session: ChatSession) -> None:
    """NotFound for another tenant's session (the same answer as a missing one) or a temporary one past its
    expiry (its deletion is queued): no turn, regeneration or edit goes to either."""
    if session.tenant_id != tenant.pk:
        raise NotFound("That session does not exist.")
    if session.expires_at is not None and session.expires_at <= timezone.now():
        raise NotFound("That temporary conversation has expired and is being deleted.")


def turn_input_check(*, tenant: Tenant, session: ChatSession, text: str) -> None:
    """Raise NotFound for another tenant's or an expired session, InvalidInput for a message that cannot be
    stored (empty, a NUL character, over MAX_MESSAGE_CHARS); before anything is written."""
    turn_session_live_check(tenant=tenant, session=session)
    if not text or not text.strip():
        raise InvalidInput("The message is empty: write something to send.")
    if "\x00" in text:
        raise InvalidInput(
            "The message contains a NUL character (\\0), which cannot be stored: remove it and send again.",
            code="nul_character",
        )
    limit = settings.MAX_MESSAGE_CHARS
    if len(text) > limit:
        raise InvalidInput(
            f"The message is {len(text):,} characters long; the limit is {limit:,} characters: "
            f"shorten it or send it in parts.",
            code="message_too_long",
            details={"length": len(text), "limit": limit},
        )
