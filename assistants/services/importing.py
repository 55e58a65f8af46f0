"""Importing a conversation from elsewhere (an integrator moving its chat history in).

`session_import` stores the session and its messages with their original timestamps in one transaction and
queues its job; `session_import_process` (the job body) then does what chatting would have done, in bounded
steps that are each their own job: embedding the user messages for episodic recall and extraction of long-term
notes from each, in order, then compaction of the session into its rolling summary, with progress in the job
ledger. A note written from an
imported message keeps that message's time as `observed_at` (recall's time decay and "when did I say this" see
the conversation when it happened), while its lifetime counts from when it was learnt.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from assistants.services.sessions import session_assistant_choose, session_title
from core.dispatch import enqueue_on_commit
from core.erasure import end_user_being_erased, end_user_erasure_refuse
from core.exceptions import InvalidInput, NotFound
from core.ledger import job_progress_update, job_record_create
from core.models import JobRecord
from core.priority import bulk_job_yield
from tenancy.models import Assistant, ChatSession, EndUser, Message, Tenant
from webhooks.services import webhook_event_emit

IMPORT_ROLES = (Message.Role.USER, Message.Role.ASSISTANT)
# An imported message's time must fall in this range: a year-1 or far-future date is a client's bug (a zero date,
# seconds read as milliseconds), and would sort the history and date the notes learnt from it wrongly.
IMPORT_EARLIEST = datetime(1990, 1, 1, tzinfo=UTC)
IMPORT_FUTURE_SLACK = timedelta(minutes=5)  # covers clocks that disagree by seconds
IMPORT_STEP_MESSAGES = (
    250  # user messages per step (one job); 500 measured 13-52 s a step under load (docs/reliability.md)
)
COMPACTION_PASSES_PER_STEP = 20  # compaction passes per step, so that one job's time stays bounded
COMPACTION_STEP_SECONDS = 20.0  # and no new pass starts after this long (a pass is bounded: COMPACTION_PASS_*)
COMPACTION_PASSES_MAX = 1000  # a bound, not a target: each pass summarises at most COMPACTION_PASS_MESSAGES


def _message_terms(text: str) -> str:
    """The keyword terms recall searches past messages by (the same function the chat turn's messages get)."""
    from memory.services.writing.extraction import message_search_text

    return message_search_text(text)


def _check_imported_message(index: int, item: dict, previous: datetime | None) -> None:
    """Refuse (InvalidInput, naming the message) a message that cannot be imported as it is."""
    if item["role"] not in IMPORT_ROLES:
        raise InvalidInput(f"messages[{index}]: the role must be 'user' or 'assistant'.")
    if not (item.get("content") or "").strip():
        raise InvalidInput(f"messages[{index}]: the content is empty.")
    if previous is not None and item["created_at"] < previous:
        raise InvalidInput(f"messages[{index}]: the messages must be in chronological order (oldest first).")
    if item["created_at"] < IMPORT_EARLIEST:
        raise InvalidInput(
            f"messages[{index}]: created_at {item['created_at'].isoformat()} is before 1990; send the time "
            "the message was written."
        )
    if item["created_at"] > timezone.now() + IMPORT_FUTURE_SLACK:
        raise InvalidInput(
            f"messages[{index}]: created_at {item['created_at'].isoformat()} is in the future; send the time "
            "the message was written."
        )


def _import_check(*, tenant: Tenant, end_user: EndUser, messages: list[dict]) -> None:
    """Refuse the whole import before anything is written: another tenant's user (404), a user being erased, no
    messages, or any one message that cannot be imported as it is (InvalidInput naming it)."""
    if end_user.tenant_id != tenant.pk:
        raise NotFound("That user does not exist.")
    end_user_erasure_refuse(end_user, message="That user's data is being erased; nothing new is accepted.")
    if not messages:
        raise InvalidInput("There are no messages to import.")
    previous: datetime | None = None
    for index, item in enumerate(messages):
        _check_imported_message(index, item, previous)
        previous = item["created_at"]


def _imported_messages_create(
    *, tenant: Tenant, session: ChatSession, end_user: EndUser, messages: list[dict]
) -> list[Message]:
    """The messages stored in `session` with the times they were written (not the time of the import), in the
    given order; the rows come back with those times set."""
    rows = Message.objects.for_tenant(tenant).bulk_create(
        [
            Message(
                tenant=tenant,
                session=session,
                end_user=end_user,
                role=item["role"],
                content=item["content"],
                search_vector=_message_terms(item["content"]),
                metadata={"imported": True},
            )
            for item in messages
        ],
        batch_size=1000,
    )
    # created_at is auto_now_add, so the original times are written afterwards, in one statement (bulk_update's
    # CASE WHEN per row took seconds for thousands of messages). Raw SQL: it carries the tenant filter itself.
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Message._meta.db_table} AS m SET created_at = v.ts "
            "FROM unnest(%s::bigint[], %s::timestamptz[]) AS v(id, ts) WHERE m.id = v.id AND m.tenant_id = %s",
            [[row.pk for row in rows], [item["created_at"] for item in messages], tenant.pk],
        )
    for row, item in zip(rows, messages, strict=True):
        row.created_at = item["created_at"]
    return rows


@transaction.atomic
def session_import(
    *,
    tenant: Tenant,
    end_user: EndUser,
    messages: list[dict],
    title: str = "",
    assistant: Assistant | None = None,
    requested_by: str = "",
) -> tuple[ChatSession, list[int], JobRecord]:
    """Store `messages` ([{role, content, created_at}], oldest first) as a new session of `end_user`.

    Returns the session, the message ids in the given order, and the queued processing job."""
    _import_check(tenant=tenant, end_user=end_user, messages=messages)
    assistant = session_assistant_choose(tenant=tenant, assistant=assistant)
    title = session_title(title or "Imported conversation")  # the integrator's title may quote the user
    session = ChatSession.objects.for_tenant(tenant).create(
        tenant=tenant, end_user=end_user, assistant=assistant, title=title
    )
    rows = _imported_messages_create(tenant=tenant, session=session, end_user=end_user, messages=messages)
    ChatSession.objects.for_tenant(tenant).filter(pk=session.pk).update(
        created_at=messages[0]["created_at"], last_activity_at=messages[-1]["created_at"]
    )
    session.refresh_from_db()

    job = job_record_create(
        kind="session_import",
        tenant_id=tenant.pk,
        end_user_id=end_user.pk,
        idempotency_key=f"import:{session.pk}",
        progress={"stage": "queued", "done": 0, "total": sum(1 for m in messages if m["role"] == Message.Role.USER)},
    )
    enqueue_on_commit("assistants.jobs.session_import", tenant.pk, session.pk, job.pk)
    return session, [row.pk for row in rows], job


def _align_note_times(*, tenant_id: int, message: Message, since: datetime) -> int:
    """Notes written (since `since`) from `message` keep its time as `observed_at` (when the user said it: time
    decay and "when did I say this" read it). Their lifetime is left alone: it counts from when the note was learnt
    (created_at, expires_at) or last confirmed, so a durable fact said long ago and never contradicted is alive
    after the import (docs/memory.md "Imported history")."""
    from memory.models import MemoryNote

    return (
        MemoryNote.objects.for_tenant(tenant_id)
        .filter(source_messages=message, created_at__gte=since)
        .filter(Q(observed_at__isnull=True) | Q(observed_at__gt=message.created_at))
        .update(observed_at=message.created_at)
    )


def session_import_process(*, tenant_id: int, session_id: int, job_id: int | None = None) -> dict:
    """The import job, in bounded steps: each step embeds and extracts the next IMPORT_STEP_MESSAGES
    user messages or, once all are extracted, runs compaction passes (each bounded by COMPACTION_PASS_MESSAGES)
    until COMPACTION_PASSES_PER_STEP of them or COMPACTION_STEP_SECONDS, whichever comes first. With a
    ledger row, a step records where it got to (progress "done"; the counts so far in "result") and queues the
    next step as its own job in the same transaction, returning {"continued": True}; without one, every step runs
    here. A step killed half-way is sent again by the outbox and resumes from the recorded position: extraction is
    idempotent per message and compaction is guarded by the session's summary version. Between two steps the
    worker takes other tenants' jobs."""
    progress: dict[str, Any] = {}
    counts: dict[str, Any] = {}
    if job_id:
        row = JobRecord.objects.filter(pk=job_id).values("progress", "result").first()
        if row is not None:
            progress, counts = dict(row["progress"] or {}), dict(row["result"] or {})
    while True:
        finished, progress = _import_step(
            tenant_id=tenant_id, session_id=session_id, progress=progress, counts=counts, job_id=job_id
        )
        if finished is not None:
            return finished
        if job_id:
            with transaction.atomic():  # the position and the next step together: a crash loses neither
                JobRecord.objects.filter(pk=job_id).update(progress=progress, result=counts, updated_at=timezone.now())
                enqueue_on_commit("assistants.jobs.session_import", tenant_id, session_id, job_id)
            return {"continued": True}


def _extract_batch(*, tenant_id: int, session: ChatSession, batch: list[Message], counts: dict, started) -> None:
    """The extraction stage for one batch of imported user messages: their message vectors (memory commands
    left out), then the notes of each, dated with the message's time (`started`: when the import began).
    Adds to `counts` in place."""
    from core.policy import memory_policy_for
    from memory.services.forgetting.forget_requests import is_memory_command
    from memory.services.recall.episodes import message_vectors_write
    from memory.services.writing.extraction import memory_extract_for_message

    policy = memory_policy_for(tenant=session.tenant, assistant=session.assistant)
    counts["message_vectors"] = counts.get("message_vectors", 0) + message_vectors_write(
        tenant=session.tenant,
        model=policy.embedding_model,
        messages=[m for m in batch if not is_memory_command(m.content)],
    )
    for message in batch:
        bulk_job_yield()  # a chat turn on this machine goes first
        outcome = memory_extract_for_message(tenant_id=tenant_id, message_id=message.pk, embed_message=False) or {}
        counts["notes_written"] = counts.get("notes_written", 0) + int(outcome.get("written", 0) or 0)
        counts["notes_dated"] = counts.get("notes_dated", 0) + _align_note_times(
            tenant_id=tenant_id, message=message, since=started
        )


def _compaction_passes(*, tenant_id: int, session_id: int, counts: dict) -> bool:
    """The compaction stage for one step: compaction passes while more is pending, within the step's pass and
    time limits and the import's total; counted in counts["compaction_passes"]. True when more is pending."""
    from assistants.services.compaction import session_compact

    passes, compacting, step_started = 0, True, time.monotonic()
    while (
        compacting
        and passes < COMPACTION_PASSES_PER_STEP
        and time.monotonic() - step_started < COMPACTION_STEP_SECONDS
        and counts.get("compaction_passes", 0) + passes < COMPACTION_PASSES_MAX
    ):
        passes += 1
        outcome = session_compact(tenant_id=tenant_id, session_id=session_id) or {}
        compacting = bool(outcome.get("compacted")) and bool(outcome.get("more_pending"))
    counts["compaction_passes"] = counts.get("compaction_passes", 0) + passes
    return compacting


def _import_step(
    *, tenant_id: int, session_id: int, progress: dict, counts: dict, job_id: int | None
) -> tuple[dict | None, dict]:
    """One step. Returns (the job's result, progress) when the import is finished, else (None, the next
    position). Updates `counts` in place."""
    session = (
        ChatSession.objects.for_tenant(tenant_id)
        .select_related("tenant", "assistant", "end_user")
        .filter(pk=session_id)
        .first()
    )
    if session is None:
        return {"skipped": "the session no longer exists"}, progress
    if end_user_being_erased(session.end_user):
        return {"skipped": "user erasure in progress"}, progress
    counts.setdefault("started_at", timezone.now().isoformat())  # notes written since then get the message's time
    started = datetime.fromisoformat(counts["started_at"])
    user_messages = (
        Message.objects.for_tenant(tenant_id)
        .filter(session=session, role=Message.Role.USER)
        .order_by("created_at", "id")
    )
    total = user_messages.count()
    stage = progress.get("stage")
    done = min(int(progress.get("done", 0) or 0), total) if stage in ("extraction", "compaction") else 0
    if stage != "compaction" and done < total:
        batch = list(user_messages[done : done + IMPORT_STEP_MESSAGES])
        _extract_batch(tenant_id=tenant_id, session=session, batch=batch, counts=counts, started=started)
        return None, {"stage": "extraction", "done": done + len(batch), "total": total}
    compacting = _compaction_passes(tenant_id=tenant_id, session_id=session_id, counts=counts)
    if compacting and counts["compaction_passes"] < COMPACTION_PASSES_MAX:
        return None, {"stage": "compaction", "done": total, "total": total}
    final = {"stage": "done", "done": total, "total": total}
    if job_id:
        job_progress_update(job_id=job_id, progress=final)
    written = counts.get("notes_written", 0)
    webhook_event_emit(
        tenant=tenant_id,
        event="import.completed",
        data={
            "job": job_id,
            "session": session_id,
            "user_id": session.end_user_id,
            "user_messages": total,
            "notes_written": written,
        },
    )
    return {
        "user_messages": total,
        "notes_written": written,
        "notes_dated": counts.get("notes_dated", 0),
        "compaction_passes": counts["compaction_passes"],
        "message_vectors": counts.get("message_vectors", 0),
    }, final
