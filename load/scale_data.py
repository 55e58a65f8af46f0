"""Extreme but legal data for one user: many sessions, many notes. Used by load/scale_check.py (full size) and
tests/reliability/test_scale.py (CI size). Rows are bulk-inserted; notes get real offline embeddings."""
from __future__ import annotations

import json
import random
import time

from django.test import Client

from assistants.models import ChatSession, Message
from assistants.services.tenants import api_key_create, end_user_get_or_create
from memory.models import MemoryNote
from memory.services.embeddings import OFFLINE_MODEL, _offline_vector, text_features

CITIES = ["成都", "杭州", "西安", "深圳", "Wuhan", "Xiamen", "Chongqing", "Nanjing"]
THINGS = ["咖啡", "火锅", "面条", "tea", "bread", "books", "flowers", "bikes"]


def bulk_sessions(*, tenant, end_user, assistant, count: int, batch: int = 2000) -> None:
    for start in range(0, count, batch):
        n = min(batch, count - start)
        sessions = ChatSession.all_tenants.bulk_create([
            ChatSession(tenant=tenant, end_user=end_user, assistant=assistant, title=f"会话 {start + i}")
            for i in range(n)])
        Message.all_tenants.bulk_create([
            Message(tenant=tenant, session=s, end_user=end_user, role=Message.Role.USER, content=f"第{s.pk}次聊天")
            for s in sessions])


def bulk_notes(*, tenant, end_user, count: int, batch: int = 2000, seed: int = 7) -> None:
    rng = random.Random(seed)
    for start in range(0, count, batch):
        rows = []
        for i in range(start, min(count, start + batch)):
            content = f"用户喜欢{rng.choice(THINGS)}，考虑在{rng.choice(CITIES)}开店，第{i}条笔记"
            rows.append(MemoryNote(
                tenant=tenant, end_user=end_user, kind=MemoryNote.Kind.PREFERENCE, key=f"k{i}", content=content,
                source=MemoryNote.Source.USER_STATED, confidence=0.8, embedding=_offline_vector(content, 384),
                embedding_model=OFFLINE_MODEL, search_text=" ".join(text_features(content))))
        MemoryNote.all_tenants.bulk_create(rows)


def timed(fn):
    t0 = time.perf_counter()
    value = fn()
    return value, round((time.perf_counter() - t0) * 1000, 1)


class ApiClient:
    def __init__(self, tenant):
        _, key = api_key_create(tenant=tenant, name="scale")
        self.client = Client(HTTP_AUTHORIZATION=f"Bearer {key}")

    def get(self, path, params=None):
        return self.client.get(path, params or {})

    def chat(self, user, message):
        return self.client.post("/api/v1/chat/", data=json.dumps({"user": user, "message": message},
                                                                 ensure_ascii=False),
                                content_type="application/json")


def measure(*, tenant, sessions_user: str, notes_user: str) -> dict:
    """Latency of what a person does, with the big data in place (ms)."""
    api = ApiClient(tenant)
    out = {}
    resp, out["list_sessions_ms"] = timed(lambda: api.get(f"/api/v1/users/{sessions_user}/sessions/"))
    out["list_sessions_status"] = resp.status_code
    out["list_sessions_page"] = len(resp.json().get("results", [])) if resp.status_code == 200 else None
    resp, out["turn_many_sessions_ms"] = timed(lambda: api.chat(sessions_user, "我想开一家咖啡馆，预算30万。"))
    out["turn_many_sessions_status"] = resp.status_code
    resp, out["list_notes_ms"] = timed(lambda: api.get(f"/api/v1/users/{notes_user}/memories/"))
    out["list_notes_status"] = resp.status_code
    resp, out["recall_ms"] = timed(lambda: api.get(f"/api/v1/users/{notes_user}/recall/", {"q": "成都 火锅 开店"}))
    out["recall_status"] = resp.status_code
    out["recall_items"] = len(resp.json().get("results", resp.json().get("items", []))) if resp.status_code == 200 else None
    resp, out["turn_many_notes_ms"] = timed(lambda: api.chat(notes_user, "我在成都开火锅店合适吗？"))
    out["turn_many_notes_status"] = resp.status_code
    if resp.status_code == 200:
        out["turn_many_notes_memories"] = len(resp.json().get("context", {}).get("memories", []))
    return out


def build(*, tenant, assistant, sessions: int, notes: int) -> dict:
    many_sessions = end_user_get_or_create(tenant=tenant, external_id="many-sessions")
    many_notes = end_user_get_or_create(tenant=tenant, external_id="many-notes")
    _, sessions_ms = timed(lambda: bulk_sessions(tenant=tenant, end_user=many_sessions, assistant=assistant,
                                                 count=sessions))
    _, notes_ms = timed(lambda: bulk_notes(tenant=tenant, end_user=many_notes, count=notes))
    return {"sessions": sessions, "notes": notes, "insert_sessions_ms": sessions_ms, "insert_notes_ms": notes_ms}
