"""Workload 6: background job throughput on one Celery worker (solo pool: one process), offline model.

- Extraction: N user messages are written, `memory_extract` is enqueued for each, and the clock runs from the
  first enqueue until the queue and the ledger are idle.
- Compaction: M sessions of 40 messages each (well past the window) get one `session_compact` each.
- Import: one conversation of `import_messages` messages through the import path; the clock runs from the
  request until every job it caused is done.
"""

from __future__ import annotations

import random
import time
from datetime import timedelta

from bench.common import ApiClient, BenchContext, bench_tenant
from bench.corpus import chat_line


def _messages(rng, n: int, *, start=None) -> list[dict]:
    from django.utils import timezone

    start = start or timezone.now() - timedelta(days=30)
    out = []
    for i in range(n):
        lang = "zh" if (i // 2) % 2 else "en"
        role = "user" if i % 2 == 0 else "assistant"
        text = chat_line(rng, lang) if role == "user" else ("好的，我记下了。" if lang == "zh" else "Noted, thanks.")
        out.append({"role": role, "content": text, "created_at": start + timedelta(seconds=30 * i)})
    return out


def _write_session(tenant, external_id, messages):
    from assistants.services.chat import chat_session_start
    from assistants.services.tenants import end_user_get_or_create
    from tenancy.models import Message

    end_user = end_user_get_or_create(tenant=tenant, external_id=external_id)
    session = chat_session_start(tenant=tenant, end_user=end_user)
    rows = Message.objects.for_tenant(tenant).bulk_create(
        [
            Message(tenant=tenant, session=session, end_user=end_user, role=m["role"], content=m["content"])
            for m in messages
        ],
        batch_size=1000,
    )
    return session, rows


def run_job_throughput(
    ctx: BenchContext,
    *,
    extraction_messages: int = 500,
    compaction_sessions: int = 50,
    import_messages: int = 10_000,
    seed: int = 13,
) -> dict:
    from assistants.jobs import session_compact
    from core.dispatch import enqueue_now
    from memory.jobs import memory_extract
    from memory.models import MemoryNote
    from tenancy.models import ChatSession

    rng = random.Random(seed)
    tenant, raw_key = bench_tenant("bench-jobs")
    out = {}
    ctx.wait_idle()

    _session, rows = _write_session(tenant, "extract-user", _messages(rng, extraction_messages * 2))
    user_rows = [r for r in rows if r.role == "user"]
    start = time.monotonic()
    for row in user_rows:
        enqueue_now(memory_extract, tenant.pk, row.pk)
    ctx.wait_idle()
    elapsed = time.monotonic() - start
    notes = MemoryNote.objects.for_tenant(tenant).count()
    out["extraction"] = {
        "jobs": len(user_rows),
        "seconds": round(elapsed, 2),
        "jobs_per_s": round(len(user_rows) / elapsed, 1),
        "notes_written": notes,
    }
    ctx.log(f"jobs: extraction {out['extraction']}")

    sessions = [_write_session(tenant, f"compact-user-{i}", _messages(rng, 40))[0] for i in range(compaction_sessions)]
    start = time.monotonic()
    for session in sessions:
        enqueue_now(session_compact, tenant.pk, session.pk)
    ctx.wait_idle()
    elapsed = time.monotonic() - start
    compacted = (
        ChatSession.objects.for_tenant(tenant).filter(pk__in=[s.pk for s in sessions]).exclude(summary="").count()
    )
    out["compaction"] = {
        "jobs": len(sessions),
        "seconds": round(elapsed, 2),
        "jobs_per_s": round(len(sessions) / elapsed, 1),
        "sessions_with_summary": compacted,
    }
    ctx.log(f"jobs: compaction {out['compaction']}")

    from bench.importing import import_conversation

    client = ApiClient(raw_key, ctx.base_url)
    messages = _messages(rng, import_messages)
    start = time.monotonic()
    imported = import_conversation(
        client=client, tenant=tenant, external_id="import-user", messages=messages, title="bench import"
    )
    accepted = time.monotonic() - start
    ctx.wait_idle(timeout=3600)
    elapsed = time.monotonic() - start
    client.close()
    session = ChatSession.objects.for_tenant(tenant).get(pk=imported["session_id"]) if imported["session_id"] else None
    out["import"] = {
        "messages": import_messages,
        "path": imported["path"],
        "accepted_seconds": round(accepted, 2),
        "fully_processed_seconds": round(elapsed, 1),
        "messages_per_s": round(import_messages / elapsed, 1),
        "summary_chars": len(session.summary) if session else None,
    }
    ctx.log(f"jobs: import {out['import']}")
    return out
