"""Importing a conversation from elsewhere (an integrator moving its chat history in).

`session_import` stores the session and its messages with their original timestamps in one transaction and
queues one job; `session_import_process` (the job body) then does what chatting would have done: extraction of
long-term notes from every user message, in order, and compaction of the session into its rolling summary, with
progress in the job ledger, after embedding the user messages for episodic recall. A note written from an
imported message keeps that message's time as `observed_at` (recall's time decay and "when did I say this" see
the conversation when it happened), while its lifetime counts from when it was learnt.
"""
from __future__ import annotations

from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from assistants.models import Assistant, ChatSession, EndUser, Message, Tenant
from core.dispatch import enqueue_on_commit
from core.exceptions import Conflict, InvalidInput, NotFound
from memory.services.pii import pii_safe_title
from tasks.models import JobRecord
from tasks.services.ledger import job_progress_update, job_record_create
from webhooks.services import webhook_event_emit

IMPORT_ROLES = (Message.Role.USER, Message.Role.ASSISTANT)
MESSAGE_VECTOR_BATCH = 512  # user messages embedded per step of the import job
COMPACTION_PASSES_MAX = 1000  # a bound, not a target: each pass summarises what left the window


def _message_terms(text: str) -> str:
    """The keyword terms recall searches past messages by (the same function the chat turn's messages get)."""
    from memory.services.extraction import message_search_text

    return message_search_text(text)


@transaction.atomic
def session_import(*, tenant: Tenant, end_user: EndUser, messages: list[dict], title: str = "",
                   assistant: Assistant | None = None, requested_by: str = "") -> tuple[ChatSession, list[int], JobRecord]:
    """Store `messages` ([{role, content, created_at}], oldest first) as a new session of `end_user`.

    Returns the session, the message ids in the given order, and the queued processing job."""
    if end_user.tenant_id != tenant.pk:
        raise NotFound("That user does not exist.")
    if end_user.erasure_requested_at is not None:
        raise Conflict("That user's data is being erased; nothing new is accepted.", code="user_being_erased")
    if not messages:
        raise InvalidInput("There are no messages to import.")
    previous: datetime | None = None
    for index, item in enumerate(messages):
        if item["role"] not in IMPORT_ROLES:
            raise InvalidInput(f"messages[{index}]: the role must be 'user' or 'assistant'.")
        if not (item.get("content") or "").strip():
            raise InvalidInput(f"messages[{index}]: the content is empty.")
        if previous is not None and item["created_at"] < previous:
            raise InvalidInput(f"messages[{index}]: the messages must be in chronological order (oldest first).")
        if item["created_at"] > timezone.now() + timedelta(minutes=5):
            raise InvalidInput(f"messages[{index}]: created_at is in the future.")
        previous = item["created_at"]
    if assistant is None:
        assistant = Assistant.objects.for_tenant(tenant).order_by("id").first()
        if assistant is None:
            raise InvalidInput("This tenant has no assistant yet: create one first.")
    elif assistant.tenant_id != tenant.pk:
        raise NotFound("That assistant does not exist.")

    title = pii_safe_title(title or "Imported conversation", 200)  # the integrator's title may quote the user
    session = ChatSession.objects.for_tenant(tenant).create(tenant=tenant, end_user=end_user, assistant=assistant,
                                                            title=title)
    rows = Message.objects.for_tenant(tenant).bulk_create([
        Message(tenant=tenant, session=session, end_user=end_user, role=item["role"], content=item["content"],
                search_vector=_message_terms(item["content"]), metadata={"imported": True})
        for item in messages
    ], batch_size=1000)
    # created_at is auto_now_add, so the original times are written afterwards, in one statement (bulk_update's
    # CASE WHEN per row took seconds for thousands of messages). Raw SQL: it carries the tenant filter itself.
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Message._meta.db_table} AS m SET created_at = v.ts "
            "FROM unnest(%s::bigint[], %s::timestamptz[]) AS v(id, ts) WHERE m.id = v.id AND m.tenant_id = %s",
            [[row.pk for row in rows], [item["created_at"] for item in messages], tenant.pk])
    for row, item in zip(rows, messages):
        row.created_at = item["created_at"]
    ChatSession.objects.for_tenant(tenant).filter(pk=session.pk).update(
        created_at=messages[0]["created_at"], last_activity_at=messages[-1]["created_at"])
    session.refresh_from_db()

    job = job_record_create(kind="session_import", tenant_id=tenant.pk, end_user_id=end_user.pk,
                            idempotency_key=f"import:{session.pk}",
                            progress={"stage": "queued", "done": 0,
                                      "total": sum(1 for m in messages if m["role"] == Message.Role.USER)})
    from assistants.jobs import session_import as session_import_job

    enqueue_on_commit(session_import_job, tenant.pk, session.pk, job.pk)
    return session, [row.pk for row in rows], job


def _align_note_times(*, tenant_id: int, message: Message, since: datetime) -> int:
    """Notes written (since `since`) from `message` keep its time as `observed_at` (when the user said it: time
    decay and "when did I say this" read it). Their lifetime is left alone: it counts from when the note was learnt
    (created_at, expires_at) or last confirmed, so a durable fact said long ago and never contradicted is alive
    after the import (docs/memory.md "Imported history")."""
    from memory.models import MemoryNote

    return MemoryNote.objects.for_tenant(tenant_id).filter(source_messages=message, created_at__gte=since).filter(
        Q(observed_at__isnull=True) | Q(observed_at__gt=message.created_at)).update(observed_at=message.created_at)


def session_import_process(*, tenant_id: int, session_id: int, job_id: int | None = None) -> dict:
    """The import job: extraction for every user message in order, then compaction. Safe to run again:
    extraction is idempotent per message and compaction is guarded by the session's summary version."""
    from assistants.services.compaction import session_compact
    from assistants.services.policy import memory_policy_for
    from memory.services.commands import is_memory_command
    from memory.services.episodes import message_vectors_write
    from memory.services.extraction import memory_extract_for_message

    session = ChatSession.objects.for_tenant(tenant_id).select_related("tenant", "assistant", "end_user") \
        .filter(pk=session_id).first()
    if session is None:
        return {"skipped": "the session no longer exists"}
    if session.end_user.erasure_requested_at is not None:
        return {"skipped": "user erasure in progress"}
    started = timezone.now()
    user_messages = list(Message.objects.for_tenant(tenant_id).filter(session=session, role=Message.Role.USER)
                         .order_by("created_at", "id"))
    total, aligned, written = len(user_messages), 0, 0
    policy = memory_policy_for(tenant=session.tenant, assistant=session.assistant)
    vectors = 0
    for start in range(0, total, MESSAGE_VECTOR_BATCH):  # episodic recall by meaning: embedded in batches
        vectors += message_vectors_write(tenant=session.tenant, model=policy.embedding_model,
                                         messages=[m for m in user_messages[start:start + MESSAGE_VECTOR_BATCH]
                                                   if not is_memory_command(m.content)])
        if job_id:
            job_progress_update(job_id=job_id, progress={"stage": "message_vectors", "done": 0, "total": total,
                                                         "embedded": min(total, start + MESSAGE_VECTOR_BATCH)})
    for done, message in enumerate(user_messages, 1):
        outcome = memory_extract_for_message(tenant_id=tenant_id, message_id=message.pk, embed_message=False) or {}
        written += int(outcome.get("written", 0) or 0)
        aligned += _align_note_times(tenant_id=tenant_id, message=message, since=started)
        if job_id and (done % 10 == 0 or done == total):
            job_progress_update(job_id=job_id, progress={"stage": "extraction", "done": done, "total": total})
    passes = 0
    while passes < COMPACTION_PASSES_MAX:
        passes += 1
        if not (session_compact(tenant_id=tenant_id, session_id=session_id) or {}).get("compacted"):
            break
    if job_id:
        job_progress_update(job_id=job_id, progress={"stage": "done", "done": total, "total": total})
    webhook_event_emit(tenant=tenant_id, event="import.completed", data={
        "job": job_id, "session": session_id, "user_id": session.end_user_id, "user_messages": total,
        "notes_written": written})
    return {"user_messages": total, "notes_written": written, "notes_dated": aligned, "compaction_passes": passes,
            "message_vectors": vectors}
