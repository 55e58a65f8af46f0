"""Deleting a chat session (API, web chat)."""
from __future__ import annotations

from django.db import transaction

from assistants.models import ChatSession
from core.exceptions import NotFound


@transaction.atomic
def session_delete(*, tenant, session: ChatSession) -> dict:
    """Delete the session with its messages and their feedback. Long-term notes learnt from it stay (they are
    about the user, not the conversation) but lose their link to it. Returns counts per table."""
    if session.tenant_id != tenant.pk:
        raise NotFound("That session does not exist.")
    _total, counts = ChatSession.objects.for_tenant(tenant).filter(pk=session.pk).delete()
    return counts
