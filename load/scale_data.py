"""Extreme but legal data for one user: many sessions, many notes. Used by load/scale_check.py (full size) and
tests/reliability/test_scale.py (CI size). Rows are bulk-inserted; notes get real offline embeddings."""

from __future__ import annotations

import json
import random
import time
import tracemalloc

from django.contrib.auth import get_user_model
from django.test import Client

from assistants.services.tenants import api_key_create, end_user_create_with_login
from memory.models import MemoryNote
from memory.services.vectors.embeddings import OFFLINE_MODEL, hash_vector, text_features
from tenancy.models import ChatSession, Message

CITIES = ["成都", "杭州", "西安", "深圳", "Wuhan", "Xiamen", "Chongqing", "Nanjing"]
THINGS = ["咖啡", "火锅", "面条", "tea", "bread", "books", "flowers", "bikes"]


def bulk_sessions(*, tenant, end_user, assistant, count: int, batch: int = 2000) -> None:
    for start in range(0, count, batch):
        n = min(batch, count - start)
        sessions = ChatSession.objects.unscoped().bulk_create(
            [
                ChatSession(tenant=tenant, end_user=end_user, assistant=assistant, title=f"会话 {start + i}")
                for i in range(n)
            ]
        )
        Message.objects.unscoped().bulk_create(
            [
                Message(tenant=tenant, session=s, end_user=end_user, role=Message.Role.USER, content=f"第{s.pk}次聊天")
                for s in sessions
            ]
        )


def bulk_notes(*, tenant, end_user, count: int, batch: int = 2000, seed: int = 7) -> None:
    rng = random.Random(seed)
    for start in range(0, count, batch):
        rows = []
        for i in range(start, min(count, start + batch)):
            content = f"用户喜欢{rng.choice(THINGS)}，考虑在{rng.choice(CITIES)}开店，第{i}条笔记"
            rows.append(
                MemoryNote(
                    tenant=tenant,
                    end_user=end_user,
                    kind=MemoryNote.Kind.PREFERENCE,
                    key=f"k{i}",
                    content=content,
                    source=MemoryNote.Source.USER_STATED,
                    confidence=0.8,
                    embedding=hash_vector(content),
                    embedding_model=OFFLINE_MODEL,
                    search_text=" ".join(text_features(content)),
                )
            )
        MemoryNote.objects.unscoped().bulk_create(rows)


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
        return self.client.post(
            "/api/v1/chat/",
            data=json.dumps({"user": user, "message": message}, ensure_ascii=False),
            content_type="application/json",
        )


def web_client(username: str) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.get(username=username))
    return client


def admin_client(tenant) -> Client:
    admin, _ = get_user_model().objects.get_or_create(
        username=f"scale-admin-{tenant.pk}", defaults={"is_staff": True, "is_superuser": True}
    )
    client = Client()
    client.force_login(admin)
    return client


def _measure_pages(tenant, check, *, sessions_user: str, notes_user: str) -> None:
    """The pages a person and an operator open on the big users: the web chat and memory pages, the admin's lists
    filtered to one user, and the erasure preview (which counts everything the user has)."""
    from tenancy.models import EndUser

    web_sessions, web_notes = web_client(f"{tenant.slug}-{sessions_user}"), web_client(f"{tenant.slug}-{notes_user}")
    check("web_chat_page", lambda: web_sessions.get("/", follow=True))
    check("web_memory_page", lambda: web_notes.get("/memory/"))
    check("web_memory_last_page", lambda: web_notes.get("/memory/", {"page": "last"}))

    admin = admin_client(tenant)
    for name, model, user in [
        ("admin_sessions", "assistants/chatsession", sessions_user),
        ("admin_notes", "memory/memorynote", notes_user),
    ]:
        end_user = EndUser.objects.for_tenant(tenant).get(external_id=user)
        check(name, lambda: admin.get(f"/admin/{model}/", {"end_user__id__exact": end_user.pk}))  # noqa: B023 - called at once
    check(
        "admin_erase_preview",
        lambda: admin.post(
            "/admin/tenancy/enduser/",
            {
                "action": "erase_users",
                "_selected_action": [EndUser.objects.for_tenant(tenant).get(external_id=notes_user).pk],
            },
        ),
    )


def _measure_export(api, out: dict, name: str, user: str) -> None:
    """One user's export: its time, size, status and whether it streamed; then a second, traced run for the most
    Python memory it used (apart, since tracing slows the timed run down)."""
    url = f"/api/v1/users/{user}/export/"
    t0 = time.perf_counter()
    resp = api.get(url)
    size = sum(len(block) for block in resp.streaming_content) if resp.streaming else len(resp.content)
    out[f"{name}_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    out[f"{name}_status"], out[f"{name}_bytes"], out[f"{name}_streamed"] = resp.status_code, size, resp.streaming
    tracemalloc.start()  # again, traced (tracing slows it down): the most Python memory the export used
    resp = api.get(url)
    for _block in resp.streaming_content if resp.streaming else [resp.content]:
        pass
    out[f"{name}_python_peak_mb"] = round(tracemalloc.get_traced_memory()[1] / 1e6, 1)
    tracemalloc.stop()


def measure(*, tenant, sessions_user: str, notes_user: str) -> dict:
    """Latency (ms) of what a person, an integrator and an operator do, with the big data in place."""
    api = ApiClient(tenant)
    out = {}
    api.get("/api/v1/assistants/")  # the process's first request loads code and marks the key used: not timed

    def check(name, fn):
        resp, out[f"{name}_ms"] = timed(fn)
        out[f"{name}_status"] = resp.status_code
        return resp

    resp = check("api_list_sessions", lambda: api.get(f"/api/v1/users/{sessions_user}/sessions/"))
    out["api_list_sessions_page"] = len(resp.json().get("results", [])) if resp.status_code == 200 else None
    out["api_list_sessions_count"] = resp.json().get("count") if resp.status_code == 200 else None
    last_page = (out["api_list_sessions_count"] or 1) // 50
    check(
        "api_list_sessions_last_page", lambda: api.get(f"/api/v1/users/{sessions_user}/sessions/", {"page": last_page})
    )
    check("turn_many_sessions", lambda: api.chat(sessions_user, "我想开一家咖啡馆，预算30万。"))
    check("api_list_notes", lambda: api.get(f"/api/v1/users/{notes_user}/memories/"))
    recalls = []
    for query in ["成都 火锅 开店", "tea shop in Xiamen", "喜欢咖啡", "books Nanjing"]:
        resp, ms = timed(lambda: api.get(f"/api/v1/users/{notes_user}/recall/", {"q": query}))  # noqa: B023 - called at once
        recalls.append(ms)
        out["recall_status"] = resp.status_code
        out["recall_items"] = len(resp.json().get("results", [])) if resp.status_code == 200 else None
    out["recall_ms"] = recalls
    resp = check("turn_many_notes", lambda: api.chat(notes_user, "我在成都开火锅店合适吗？"))
    if resp.status_code == 200:
        out["turn_many_notes_memories"] = len(resp.json().get("context", {}).get("memories", []))

    _measure_pages(tenant, check, sessions_user=sessions_user, notes_user=notes_user)
    for name, user in [("export_many_sessions", sessions_user), ("export_many_notes", notes_user)]:
        _measure_export(api, out, name, user)
    return out


def build(*, tenant, assistant, sessions: int, notes: int) -> dict:
    """Two end users with web logins ("<slug>-many-sessions", "<slug>-many-notes")."""
    users = {
        name: end_user_create_with_login(
            tenant=tenant, external_id=name, username=f"{tenant.slug}-{name}", password="scale-check-pw"
        )
        for name in ("many-sessions", "many-notes")
    }
    _, sessions_ms = timed(
        lambda: bulk_sessions(tenant=tenant, end_user=users["many-sessions"], assistant=assistant, count=sessions)
    )
    _, notes_ms = timed(lambda: bulk_notes(tenant=tenant, end_user=users["many-notes"], count=notes))
    return {"sessions": sessions, "notes": notes, "insert_sessions_ms": sessions_ms, "insert_notes_ms": notes_ms}
