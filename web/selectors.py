"""Reads the web chat makes across a person's own conversations."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils import timezone

from tenancy.models import ChatSession, Message

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
        .order_by("-role", "-created_at", "-id")[:limit]  # "user" before "assistant": what the person said first
    )
    for message in messages:
        hits.append(SearchHit(message.session, message, *_snippet(message.content, query)))
    return hits[:limit]


SEARCH_HITS_PER_CONVERSATION = 3


@dataclass
class SearchGroup:
    """One conversation's matches: its title (when it matched) and its messages, the person's own first."""

    session: ChatSession
    title: SearchHit | None = None
    hits: list[SearchHit] = field(default_factory=list)
    more: int = 0  # matching messages not shown (the conversation opens at the first one shown)


def conversation_search_grouped(
    *, tenant, end_user, query: str, per_conversation: int = SEARCH_HITS_PER_CONVERSATION
) -> list[SearchGroup]:
    """conversation_search, one entry per conversation (the one with the newest match first): what the person
    said comes before the assistant's replies, which often only repeat it ("vegetarian" in nine replies)."""
    groups: dict[int, SearchGroup] = {}
    for hit in conversation_search(tenant=tenant, end_user=end_user, query=query):
        group = groups.setdefault(hit.session.pk, SearchGroup(hit.session))
        if hit.message is None:
            group.title = hit
        else:
            group.hits.append(hit)
    for group in groups.values():
        mine = [h for h in group.hits if h.message and h.message.role == Message.Role.USER]
        replies = [h for h in group.hits if h.message and h.message.role != Message.Role.USER]
        ordered = mine + replies
        group.hits, group.more = ordered[:per_conversation], max(0, len(ordered) - per_conversation)
    return list(groups.values())


def memory_events_as_said(*, tenant, end_user, turns: list[tuple[str, list[dict]]]) -> list[list[dict]]:
    """The memory events of each turn, (the user's message, its events), with amounts as the user wrote them
    (web.memory_labels.event_in_users_words): a replaced note's words are read from its quote, in one statement
    for all turns, and only among `end_user`'s own notes."""
    from memory.models import MemoryNote
    from web.memory_labels import event_in_users_words

    before_ids = {(e.get("before") or {}).get("note_id") for _said, events in turns for e in events}
    before_ids.discard(None)
    quotes = (
        dict(
            MemoryNote.objects.for_tenant(tenant)
            .filter(end_user=end_user, pk__in=before_ids)
            .values_list("pk", "quote")
        )
        if before_ids
        else {}
    )
    return [
        [
            event_in_users_words(e, said=said, said_before=quotes.get((e.get("before") or {}).get("note_id"), ""))
            for e in events
        ]
        for said, events in turns
    ]
