"""Workload 2: the chat turn's own cost (everything but the model), and turns per second through the API.

- Context assembly: time from calling `chat_turn_stream` to its ("context", ...) event: storing the message,
  the pre-turn hooks, recall, summary, pinned facts, window, token budget. Whole turn: `chat_turn` with the
  offline model. Measured for a typical user and for the heavy user of the recall workload's store, so the
  figures are at that store's size (100k notes in the quick profile).
- API throughput: N concurrent clients (each its own end user and session) POST /api/v1/chat/ for a fixed time
  against the uvicorn server the harness started (one web worker, one Celery worker). Turns/s counts 2xx only.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from bench.common import BenchContext, bench_tenant, percentiles
from bench.corpus import chat_line


def run_turn_overhead(ctx: BenchContext, *, store=None, turns: int = 60, seed: int = 11) -> dict:
    """The turns run in this process with a connection pool, as the web server has it (config/asgi.py): the turn
    starts its recall early only with one (assistants.services.recall_early)."""
    from core.db import connection_pooled

    with connection_pooled():
        return _turn_overhead(ctx, store=store, turns=turns, seed=seed)


def _turn_overhead(ctx: BenchContext, *, store, turns: int, seed: int) -> dict:
    from assistants.services.chat import chat_session_start, chat_turn, chat_turn_stream
    from assistants.services.tenants import end_user_get_or_create

    rng = random.Random(seed)
    if store is None:
        tenant, _ = bench_tenant("bench-turn")
        users = {"fresh user": end_user_get_or_create(tenant=tenant, external_id="turn-user")}
        notes = 0
    else:
        tenant = store.tenant
        users = {"typical user": store.typical[0], "heavy user": store.heavy}
        notes = store.total
    out: dict[str, Any] = {"store_notes": notes}
    for label, end_user in users.items():
        session = chat_session_start(tenant=tenant, end_user=end_user)
        assembly, whole = [], []
        for i in range(turns):
            text = chat_line(rng, "zh" if i % 2 else "en")
            start = time.perf_counter()
            context_at = None
            for event, _payload in chat_turn_stream(tenant=tenant, session=session, text=text):
                if event == "context" and context_at is None:
                    context_at = time.perf_counter()
            end = time.perf_counter()
            if context_at is None:
                raise RuntimeError("The turn sent no context event.")
            if i >= 3:  # warm-up turns
                assembly.append((context_at - start) * 1000)
                whole.append((end - start) * 1000)
            if i % 10 == 9:
                ctx.wait_idle()  # keep the job backlog from one user's turns out of the next measurement
        # one non-streaming turn through the public entry point, to prove it is the same path
        chat_turn(tenant=tenant, session=session, text=chat_line(rng, "en"))
        out[label] = {"assembly_ms": percentiles(assembly), "turn_ms": percentiles(whole)}
    ctx.wait_idle()
    worst = max(v["assembly_ms"]["p95"] or 0 for k, v in out.items() if isinstance(v, dict))
    out["targets"] = {"assembly p95 <= 40 ms at 100k notes": {"notes": notes, "p95": worst, "met": worst <= 40}}
    return out


async def _client_loop(base_url, key, user, deadline, stats, rng):
    import httpx

    session_id = None
    async with httpx.AsyncClient(base_url=base_url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        while time.monotonic() < deadline:
            payload = {"user": user, "message": chat_line(rng, rng.choice(["en", "zh"]))}
            if session_id:
                payload["session"] = session_id
            start = time.perf_counter()
            try:
                resp = await http.post("/api/v1/chat/", json=payload)
            except httpx.HTTPError as exc:
                stats["errors"][type(exc).__name__] = stats["errors"].get(type(exc).__name__, 0) + 1
                continue
            ms = (time.perf_counter() - start) * 1000
            if resp.is_success:
                stats["ok"] += 1
                stats["latency"].append(ms)
                body = resp.json()
                session_id = (
                    body.get("session")
                    if isinstance(body.get("session"), int)
                    else (body.get("session") or {}).get("id", session_id)
                )
            else:
                stats["errors"][str(resp.status_code)] = stats["errors"].get(str(resp.status_code), 0) + 1
                if resp.status_code == 429:
                    await asyncio.sleep(float(resp.headers.get("Retry-After", "1") or 1))


def run_api_throughput(ctx: BenchContext, *, concurrency=(1, 8, 32), seconds: float = 15.0, seed: int = 5) -> dict:
    from django.urls import Resolver404, resolve

    if not ctx.base_url:
        return {"skipped": "no API server in this run"}
    try:
        resolve("/api/v1/chat/")
    except Resolver404:
        return {"skipped": "POST /api/v1/chat/ is not there"}
    tenant, key = bench_tenant("bench-api")
    rng = random.Random(seed)
    levels = {}
    for n in concurrency:
        stats: dict[str, Any] = {"ok": 0, "latency": [], "errors": {}}
        deadline = time.monotonic() + seconds

        async def main(n: int, deadline: float, stats: dict) -> None:
            await asyncio.gather(
                *[
                    _client_loop(ctx.base_url, key, f"load-{n}-{i}", deadline, stats, random.Random(rng.random()))
                    for i in range(n)
                ]
            )

        start = time.monotonic()
        asyncio.run(main(n, deadline, stats))
        elapsed = time.monotonic() - start
        levels[str(n)] = {
            "clients": n,
            "seconds": round(elapsed, 1),
            "turns": stats["ok"],
            "turns_per_s": round(stats["ok"] / elapsed, 1),
            "latency_ms": percentiles(stats["latency"]),
            "errors": stats["errors"],
        }
        ctx.log(f"api throughput: {n} clients -> {levels[str(n)]['turns_per_s']} turns/s, errors {stats['errors']}")
        try:
            levels[str(n)]["job_drain_seconds"] = round(ctx.wait_idle(timeout=300), 1)
        except TimeoutError:
            levels[str(n)]["job_drain_seconds"] = "over 300"
    top = levels.get("32") or levels[str(max(concurrency))]  # the target's level; 64 shows what saturation does
    return {
        "levels": levels,
        "targets": {
            ">= 100 turns/s at 32 clients": {
                "turns_per_s": top["turns_per_s"],
                "met": top["turns_per_s"] >= 100 and top["clients"] >= 32,
            }
        },
    }
