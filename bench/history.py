"""Workload: returning users with a long history, imported as an integrator would, then recalled and chatted with.

Each user holds N past turns (quick: 600; full: 600 and 6,000), taken from LoCoMo's conversations in order (every
turn a user message, as the LoCoMo workload imports them) and imported through the REST import endpoint one LoCoMo
session per call, with the sessions' own dates; past the 5,882 turns of all ten conversations the turns start
again, dated a year later. After the import's jobs have run (keyword terms, vectors, extraction), LoCoMo's
questions about those conversations are asked, interleaved:
- over HTTP, `GET /api/v1/users/<id>/recall/?q=&k=10` against the uvicorn server the harness started, beside the
  HTTP floor of the same run (`GET /api/v1/assistants/`, no recall), as `../shared/peers/` measures it;
- in this process, `memory_recall(k=10)` with the query's embedding included (the embedder's cache emptied first);
- the chat turn's context assembly: `chat_turn_stream` until its ("context", ...) event, in a new conversation.
Import and processing seconds are reported per user. Figures are milliseconds, p50/p95/p99 (bench.common).
"""

from __future__ import annotations

import time
from datetime import timedelta
from urllib.parse import quote

from bench.common import ApiClient, BenchContext, bench_tenant, percentiles, timed_ms

ALL_TURNS_AGAIN_AFTER = timedelta(days=365)


def history_of(conversations: list[dict], turns: int) -> tuple[list[list[dict]], list[str]]:
    """`turns` LoCoMo turns as import sessions (each [{role, content, created_at}], one per LoCoMo session, in
    order) and the questions about the conversations they come from."""
    sessions: list[list[dict]] = []
    questions: list[str] = []
    taken, lap = 0, 0
    while taken < turns:
        for conv in conversations:
            if taken >= turns:
                break
            if lap == 0:
                questions += [q["question"] for q in conv["questions"]]
            current: list[dict] = []
            current_key = None
            for turn in conv["turns"]:
                if taken >= turns:
                    break
                key = turn["dia_id"].split(":")[0]
                if key != current_key and current:
                    sessions.append(current)
                    current = []
                current_key = key
                when = turn["created_at"] + lap * ALL_TURNS_AGAIN_AFTER
                current.append({"role": "user", "content": turn["text"], "created_at": when})
                taken += 1
            if current:
                sessions.append(current)
        lap += 1
    return sessions, questions


def run_long_history(
    ctx: BenchContext,
    *,
    sizes: tuple[int, ...] = (600,),
    queries: int = 100,
    assembly_turns: int = 20,
    path=None,
) -> dict:
    from bench import locomo
    from bench.importing import import_conversation

    path = locomo.default_path() if path is None else path
    if not path.exists():
        return {"skipped": f"LoCoMo not found at {path}; pass --locomo PATH"}
    conversations = locomo.load_conversations(path)
    tenant, raw_key = bench_tenant("bench-history")
    client = ApiClient(raw_key, ctx.base_url)
    out: dict = {"queries": queries, "k": 10, "users": {}}
    try:
        for size in sizes:
            sessions, questions = history_of(conversations, size)
            external_id = f"history-{size}"
            started = time.monotonic()
            for i, messages in enumerate(sessions):
                import_conversation(
                    client=client, tenant=tenant, external_id=external_id, messages=messages, title=f"session {i + 1}"
                )
            import_s = time.monotonic() - started
            processing_s = ctx.wait_idle(timeout=3600)
            ctx.log(f"long history: {size} turns in {len(sessions)} sessions imported in {import_s:.1f} s")
            asked = [questions[i % len(questions)] for i in range(queries)]
            figures = _measure(ctx, client, tenant, external_id, asked, assembly_turns)
            out["users"][f"{size} turns"] = {
                "turns": size,
                "sessions": len(sessions),
                "import_seconds": round(import_s, 1),
                "processing_seconds": round(processing_s, 1),
                **figures,
            }
    finally:
        client.close()
    largest = max(sizes)
    out["targets"] = {
        f"recall p95 <= 40 ms at {largest} turns (over HTTP)": {
            "p95": out["users"][f"{largest} turns"]["recall_http_ms"]["p95"],
            "met": (out["users"][f"{largest} turns"]["recall_http_ms"]["p95"] or 1e9) <= 40,
        }
    }
    return out


def _measure(ctx, client, tenant, external_id: str, asked: list[str], assembly_turns: int) -> dict:
    from assistants.services.chat import chat_session_start, chat_turn_stream
    from core.db import connection_pooled
    from core.policy import memory_policy_for
    from memory.services.recall.recall import memory_recall
    from memory.services.vectors.embeddings import recent_vectors_clear
    from tenancy.models import EndUser

    end_user = EndUser.objects.for_tenant(tenant).get(external_id=external_id)
    warm = min(10, len(asked) // 10)
    http, floor, local, empty = [], [], [], 0
    policy = memory_policy_for(tenant=tenant)  # as the recall endpoint resolves it
    for i, question in enumerate(asked):
        ms_floor, _ = timed_ms(client.get, "/api/v1/assistants/")
        recent_vectors_clear()  # a new question: its embedding is part of the recall, as in a turn
        ms_http, (status, body) = timed_ms(
            client.get, f"/api/v1/users/{quote(external_id)}/recall/?q={quote(question)}&k=10"
        )
        if status != 200:
            raise RuntimeError(f"recall failed with HTTP {status}: {str(body)[:200]}")
        recent_vectors_clear()
        ms_local, items = timed_ms(
            memory_recall, tenant=tenant, end_user=end_user, query=question, policy=policy, k=10, touch=False
        )
        empty += not items
        if i >= warm:
            http.append(ms_http)
            floor.append(ms_floor)
            local.append(ms_local)
    session = chat_session_start(tenant=tenant, end_user=end_user)
    assembly = []
    with connection_pooled():  # as the web server has it: the turn starts its recall early only with a pool
        for i, question in enumerate(asked[: assembly_turns + 3]):
            start = time.perf_counter()
            context_at = None
            for event, _payload in chat_turn_stream(tenant=tenant, session=session, text=question):
                if event == "context" and context_at is None:
                    context_at = time.perf_counter()
            if context_at is None:
                raise RuntimeError("The turn sent no context event.")
            if i >= 3:  # warm-up turns
                assembly.append((context_at - start) * 1000)
    ctx.wait_idle()
    return {
        "recall_http_ms": percentiles(http),
        "http_floor_ms": percentiles(floor),
        "recall_in_process_ms": percentiles(local),
        "assembly_ms": percentiles(assembly),
        "empty_results": empty,
    }
