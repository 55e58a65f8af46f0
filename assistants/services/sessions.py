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


def sessions_temporary_purge(*, tenant, now=None) -> int:
    """Delete the tenant's temporary chats whose time is up (ChatSession.expires_at), with their messages and
    feedback. Idempotent: run again, it finds nothing. Returns how many sessions went."""
    from django.utils import timezone

    now = now or timezone.now()
    expired = ChatSession.objects.for_tenant(tenant).filter(temporary=True, expires_at__lte=now)
    count = 0
    for session_id in list(expired.values_list("pk", flat=True)[:1000]):
        with transaction.atomic():
            deleted, _ = ChatSession.objects.for_tenant(tenant).filter(pk=session_id).delete()
        count += 1 if deleted else 0
    return count
