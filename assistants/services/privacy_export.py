"""Export of everything held about one user (assistants.services.privacy): sessions, messages, notes, task
states, feedback and the experiences only they contributed, as one JSON document written in bounded batches."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.exceptions import NotFound
from memory.models import Experience, ExperienceContribution, MemoryNote, PiiRejection
from tasks.models import SessionScratch, TaskState
from tenancy.models import ChatSession, Feedback, Message

NOT_EXPORTED = ("tenant", "embedding", "search_text", "search_vector")  # derived from what is exported, or ours


def _without_derived(queryset):
    """Do not even read vectors and search terms: parsing 100,000 embeddings was most of a big export's time."""
    names = {f.name for f in queryset.model._meta.concrete_fields}
    return queryset.defer(*[name for name in NOT_EXPORTED if name in names and name != "tenant"])


def _row(obj, exclude=NOT_EXPORTED) -> dict:
    data = {}
    for f in obj._meta.concrete_fields:
        if f.name in exclude:
            continue
        data[f.attname if isinstance(f, models.ForeignKey) else f.name] = getattr(obj, f.attname)
    return data


EXPORT_BATCH = 500  # rows per query while exporting: memory and query count stay bounded for any user


def _json(value) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False)


def _keyset_batches(queryset, size: int = EXPORT_BATCH):
    """The queryset's rows in id order, `size` at a time, each batch one query (no OFFSET, so no slowdown)."""
    last = 0
    while True:
        batch = list(_without_derived(queryset).filter(pk__gt=last).order_by("pk")[:size])
        if not batch:
            return
        yield batch
        last = batch[-1].pk


def _write_array(write, rows) -> None:
    write("[")
    for i, row in enumerate(rows):
        write(("," if i else "") + _json(row))
    write("]")


def _by_session(queryset, session_ids):
    """{session id: [row dicts]} for one batch of sessions, read with a server-side cursor."""
    grouped: dict[int, list] = {}
    rows = _without_derived(queryset).filter(session_id__in=session_ids).order_by("session_id", "id")
    for obj in rows.iterator(chunk_size=2000):
        grouped.setdefault(obj.session_id, []).append(_row(obj))
    return grouped


def _export_sessions(scoped, end_user):
    for sessions in _keyset_batches(scoped(ChatSession).filter(end_user=end_user)):
        ids = [s.pk for s in sessions]
        messages = _by_session(scoped(Message), ids)
        scratch = _by_session(scoped(SessionScratch), ids)
        for session in sessions:
            yield {**_row(session), "messages": messages.get(session.pk, []), "scratch": scratch.get(session.pk, [])}


def _export_notes(scoped, end_user):
    through = MemoryNote.source_messages.through
    for notes in _keyset_batches(scoped(MemoryNote).filter(end_user=end_user)):
        sources: dict[int, list] = {}
        for note_id, message_id in (
            through.objects.filter(memorynote_id__in=[n.pk for n in notes])
            .order_by("message_id")
            .values_list("memorynote_id", "message_id")
        ):
            sources.setdefault(note_id, []).append(message_id)
        for note in notes:
            yield {**_row(note), "source_message_ids": sources.get(note.pk, [])}


def _rows(queryset):
    for batch in _keyset_batches(queryset):
        yield from (_row(obj) for obj in batch)


def _experience_rows(scoped, end_user):
    """Experiences the user confirmed: the generalised procedure only. Who else confirmed it, the first
    contributor and the source reply are other users' business and stay out of this user's export."""
    mine = scoped(ExperienceContribution).filter(end_user=end_user).values("experience_id")
    queryset = scoped(Experience).filter(Q(contributed_by=end_user) | Q(pk__in=mine))
    for batch in _keyset_batches(queryset):
        for e in batch:
            yield {
                "id": e.pk,
                "assistant_id": e.assistant_id,
                "task_summary": e.task_summary,
                "solution": e.solution,
                "created_at": e.created_at,
            }


def user_export_write(*, tenant, end_user, write: Callable[[str], object]) -> None:
    """Write everything held about one end user as one JSON document, piece by piece, to `write`.

    Rows are read in batches of EXPORT_BATCH by id (a few queries per batch, never one per session or note), so
    a user with 10,000 sessions or 100,000 notes is exported in bounded memory when `write` goes to a file."""
    if end_user.tenant_id != tenant.pk:
        raise NotFound("That user does not exist.")
    scoped = lambda model: model.objects.for_tenant(tenant)  # noqa: E731 - shorthand for the lines below
    login = end_user.user
    head = {
        "format": "assistant-platform user export v1",
        "exported_at": timezone.now(),
        "tenant": tenant.slug,
        "profile": {
            **_row(end_user, exclude=("tenant", "user")),
            "web_login": {"username": login.get_username(), "email": login.email} if login else None,
        },
    }
    write(_json(head)[:-1])  # the object stays open: the lists follow
    lists = [
        ("sessions", _export_sessions(scoped, end_user)),
        ("memory_notes", _export_notes(scoped, end_user)),
        ("task_states", _rows(scoped(TaskState).filter(end_user=end_user))),
        ("feedback", _rows(scoped(Feedback).filter(end_user=end_user))),
        ("experiences_contributed", _experience_rows(scoped, end_user)),
        ("pii_rejections", _rows(scoped(PiiRejection).filter(end_user=end_user))),
    ]
    for name, rows in lists:
        write(f", {_json(name)}: ")
        _write_array(write, rows)
    write("}")


def user_export_file(*, tenant, end_user, memory_bytes: int | None = None):
    """The export as UTF-8 JSON in a temporary file, rewound: in memory up to `memory_bytes`
    (EXPORT_MEMORY_BYTES), on disk beyond. The caller closes it."""
    limit = memory_bytes if memory_bytes is not None else settings.EXPORT_MEMORY_BYTES
    out = tempfile.SpooledTemporaryFile(max_size=limit, mode="w+b")
    try:
        user_export_write(tenant=tenant, end_user=end_user, write=lambda text: out.write(text.encode("utf-8")))
    except BaseException:
        out.close()
        raise
    out.seek(0)
    return out


def user_export(*, tenant, end_user) -> dict:
    """Everything held about one end user, as one JSON-serialisable document (for small users and tests; the
    download endpoints stream `user_export_file` instead)."""
    parts: list[str] = []
    user_export_write(tenant=tenant, end_user=end_user, write=parts.append)
    return json.loads("".join(parts))
