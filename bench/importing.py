"""Moving an existing conversation in: through the REST import endpoint when it is there.

`POST /api/v1/users/<external_id>/sessions/ {"messages": [{"role", "content", "created_at", "metadata"}], "title"}`
returns the session and its message ids in order, and schedules extraction and compaction as if chatted. Until
that endpoint exists the harness falls back to writing the same rows itself and enqueueing the same jobs, and
says so in the results (`import_path`)."""

from __future__ import annotations

from datetime import datetime

from django.urls import Resolver404, resolve


def import_endpoint_available(external_id: str = "probe") -> bool:
    try:
        resolve(f"/api/v1/users/{external_id}/sessions/")
    except Resolver404:
        return False
    return True


def import_conversation(*, client, tenant, external_id: str, messages: list[dict], title: str = "") -> dict:
    """Import `messages` for one end user. Returns {"session_id", "message_ids" (in order), "path"}."""
    if import_endpoint_available(external_id):
        status, body = client.post(
            f"/api/v1/users/{external_id}/sessions/", {"title": title, "messages": [_wire(m) for m in messages]}
        )
        if status not in (200, 201, 202):
            raise RuntimeError(f"import failed with HTTP {status}: {str(body)[:300]}")
        ids = _message_ids(body)
        _store_metadata(tenant, ids, messages)
        return {
            "session_id": _find(body, "session_id", "session", "id"),
            "message_ids": ids,
            "path": "api (POST /api/v1/users/<id>/sessions/)",
        }
    return _import_direct(tenant=tenant, external_id=external_id, messages=messages, title=title)


def _wire(message: dict) -> dict:
    out = {"role": message["role"], "content": message["content"]}
    if message.get("created_at"):
        out["created_at"] = message["created_at"].isoformat()
    return out  # the endpoint takes role, content and created_at only (metadata is added below)


def _store_metadata(tenant, ids: list[int], messages: list[dict]) -> None:
    """Merge each message's bench metadata (e.g. LoCoMo's dia_id) into the imported rows."""
    from tenancy.models import Message

    wanted = {mid: m["metadata"] for mid, m in zip(ids, messages, strict=True) if m.get("metadata")}
    if not wanted:
        return
    rows = list(Message.objects.for_tenant(tenant).filter(pk__in=list(wanted)))
    for row in rows:
        row.metadata = {**(row.metadata or {}), **wanted[row.pk]}
    Message.objects.for_tenant(tenant).bulk_update(rows, ["metadata"], batch_size=1000)


def _find(body, *names):
    if isinstance(body, dict):
        for name in names:
            value = body.get(name)
            if isinstance(value, int):
                return value
            if isinstance(value, dict):
                found = _find(value, "id")
                if found is not None:
                    return found
    return None


def _message_ids(body) -> list[int]:
    if isinstance(body, dict):
        for name in ("message_ids", "messages"):
            value = body.get(name)
            if isinstance(value, list) and value:
                return [v["id"] if isinstance(v, dict) else int(v) for v in value]
        for value in body.values():
            if isinstance(value, dict):
                ids = _message_ids(value)
                if ids:
                    return ids
    raise RuntimeError(f"the import response carries no message ids: {str(body)[:300]}")


def _import_direct(*, tenant, external_id: str, messages: list[dict], title: str) -> dict:
    from django.db import transaction

    from assistants.services.chat import chat_session_start
    from assistants.services.tenants import end_user_get_or_create
    from tenancy.models import Message

    end_user = end_user_get_or_create(tenant=tenant, external_id=external_id)
    with transaction.atomic():
        session = chat_session_start(tenant=tenant, end_user=end_user, title=title)
        rows = Message.objects.for_tenant(tenant).bulk_create(
            [
                Message(
                    tenant=tenant,
                    session=session,
                    end_user=end_user,
                    role=m["role"],
                    content=m["content"],
                    metadata=m.get("metadata") or {},
                )
                for m in messages
            ],
            batch_size=1000,
        )
        dated = []
        for row, m in zip(rows, messages, strict=True):
            if isinstance(m.get("created_at"), datetime):
                row.created_at = m["created_at"]
                dated.append(row)
        Message.objects.for_tenant(tenant).bulk_update(dated, ["created_at"], batch_size=1000)
        user_ids = [r.pk for r in rows if r.role == Message.Role.USER]
        transaction.on_commit(lambda: _enqueue(tenant.pk, session.pk, user_ids))
    return {"session_id": session.pk, "message_ids": [r.pk for r in rows], "path": "fallback (no import endpoint)"}


def _enqueue(tenant_id: int, session_id: int, user_message_ids: list[int]) -> None:
    from assistants.jobs import session_compact
    from core.dispatch import enqueue_now
    from memory.jobs import memory_extract

    for message_id in user_message_ids:
        enqueue_now(memory_extract, tenant_id, message_id)
    enqueue_now(session_compact, tenant_id, session_id)
