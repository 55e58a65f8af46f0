"""Reads the web chat makes across a person's own conversations."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from assistants.models import ChatSession, Message

SEARCH_MAX_QUERY = 200
SEARCH_LIMIT = 50
SNIPPET_CHARS = 60


@dataclass
class SearchHit:
    session: ChatSession
    message: Message | None  # None: the conversation's title matched
    before: str
    match: str
    after: str


def _snippet(text: str, query: str) -> tuple[str, str, str]:
    """The text around the first match, as (before, match, after), so the template can mark the match."""
    flat = " ".join(text.split())
    at = flat.casefold().find(query.casefold())
    if at < 0:
        return flat[: SNIPPET_CHARS * 2], "", ""
    start = max(0, at - SNIPPET_CHARS)
    end = min(len(flat), at + len(query) + SNIPPET_CHARS)
    return (
        ("…" if start else "") + flat[start:at],
        flat[at : at + len(query)],
        flat[at + len(query) : end] + ("…" if end < len(flat) else ""),
    )


def conversation_search(*, tenant, end_user, query: str, limit: int = SEARCH_LIMIT) -> list[SearchHit]:
    """The person's conversations whose title or messages contain `query` (case-insensitive substring, so
    Chinese works without word segmentation), newest first. Only this person's sessions in this tenant; temporary
    chats whose time is up are left out, as in the conversation list."""
    query = " ".join((query or "").split())[:SEARCH_MAX_QUERY]
    if not query:
        return []
    sessions = (
        ChatSession.objects.for_tenant(tenant)
        .filter(end_user=end_user)
        .exclude(temporary=True, expires_at__lte=timezone.now())
    )
    hits: list[SearchHit] = []
    for session in sessions.filter(title__icontains=query).order_by("-last_activity_at", "-id")[:limit]:
        hits.append(SearchHit(session, None, *_snippet(session.title, query)))
    messages = (
        Message.objects.for_tenant(tenant)
        .filter(
            end_user=end_user,
            session__in=sessions,
            content__icontains=query,
            role__in=[Message.Role.USER, Message.Role.ASSISTANT],
        )
        .select_related("session")
        .order_by("-created_at", "-id")[:limit]
    )
    for message in messages:
        hits.append(SearchHit(message.session, message, *_snippet(message.content, query)))
    return hits[:limit]
