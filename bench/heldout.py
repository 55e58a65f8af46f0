"""Workload: recall on a held-out set written apart from the code (bench/data/recall_heldout_README.md).

48 users (24 Chinese, 24 English), each with 50-57 short first-person statements over about a year, of which a
few answer one of the user's five questions (person, event, item, place, preference, time, update) and the rest
are other facts of the same life, near-topic ones included. Each user's statements are imported through the REST
import endpoint as one conversation (each statement at its date, answered by a short reply, as a chat would
have it), the import's jobs run (keyword terms, vectors, extraction), then each question is asked through
`GET /api/v1/users/<id>/recall/?q=&k=10`. An item counts for the statements it was learnt from (a note's source
messages, a message itself); R@k = every evidence statement among the statements of the first k items (an `update`
question's older, superseded statement is not evidence). BM25 ranks the same statements for the same questions.

Halves: odd-numbered users are the development half, even-numbered users the test half, which is scored once per
round (`--heldout-half test`). Figures in percent, overall, per language and per question type.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

from bench.common import ApiClient, BenchContext, bench_tenant

DATA = Path(__file__).resolve().parent / "data"
KS = (5, 10)
ACK = {"zh": "好的，记下了。", "en": "Got it."}


def load_users(half: str) -> list[dict]:
    users = []
    for lang in ("zh", "en"):
        for line in (DATA / f"recall_heldout_{lang}.jsonl").read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            user = json.loads(line)
            number = int(user["user"].rsplit("u", 1)[1])
            if (number % 2 == 1) == (half == "dev"):
                users.append(user)
    return users


def _messages(user: dict) -> list[dict]:
    out = []
    for i, statement in enumerate(user["statements"]):
        day = datetime.fromisoformat(statement["date"]).replace(hour=20, tzinfo=UTC) + timedelta(minutes=i)
        out.append({"role": "user", "content": statement["text"], "created_at": day})
        out.append({"role": "assistant", "content": ACK[user["lang"]], "created_at": day + timedelta(seconds=30)})
    return out


def _statements_of(items: list[dict], statement_by_message: dict[int, str]) -> list[str]:
    ranked: list[str] = []
    for item in items:
        for mid in item.get("message_ids") or ([item["id"]] if item["type"] == "message" else []):
            sid = statement_by_message.get(mid)
            if sid and sid not in ranked:
                ranked.append(sid)
    return ranked


def _hits(ranked_by_k: dict[int, list[str]], evidence: list[str]) -> dict[str, float]:
    return {f"R@{k}": float(set(evidence) <= set(ranked_by_k[k])) for k in KS}


def _summary(rows: list[dict]) -> dict:
    def mean(subset, key):
        return round(100 * sum(r[key] for r in subset) / len(subset), 1) if subset else None

    out: dict = {"n": len(rows)}
    for system in (s for s in ("platform", "bm25") if rows and all(s in r for r in rows)):
        groups: dict[str, list[dict]] = defaultdict(list)
        for row in rows:
            groups["overall"].append(row[system])
            groups[f"lang:{row['lang']}"].append(row[system])
            groups[f"type:{row['type']}"].append(row[system])
        out[system] = {name: {f"R@{k}": mean(g, f"R@{k}") for k in KS} for name, g in sorted(groups.items())}
    return out


def run_heldout_recall(ctx: BenchContext, *, half: str = "dev", limit_users: int | None = None) -> dict:
    from bench import baselines
    from bench.importing import import_conversation

    users = load_users(half)[:limit_users] if limit_users else load_users(half)
    tenant, raw_key = bench_tenant("bench-heldout")
    client = ApiClient(raw_key, ctx.base_url)
    bm25 = baselines.make("bm25")
    rows: list[dict] = []
    started = time.monotonic()
    maps = {}
    try:
        for user in users:
            messages = _messages(user)
            imported = import_conversation(
                client=client, tenant=tenant, external_id=user["user"], messages=messages, title=user["user"]
            )
            user_ids = imported["message_ids"][0::2]
            maps[user["user"]] = {mid: s["id"] for mid, s in zip(user_ids, user["statements"], strict=True)}
        import_s = time.monotonic() - started
        processing_s = ctx.wait_idle(timeout=3600)
        for user in users:
            texts = [s["text"] for s in user["statements"]]
            questions = user["questions"]
            bm25_ranked = bm25.rank(texts, [q["text"] for q in questions], max(KS)) if bm25 else None
            for qi, question in enumerate(questions):
                status, body = client.get(
                    f"/api/v1/users/{quote(user['user'])}/recall/?q={quote(question['text'])}&k={max(KS)}"
                )
                if status != 200:
                    raise RuntimeError(f"recall failed with HTTP {status}: {str(body)[:200]}")
                items = body["results"]
                ours = {k: _statements_of(items[:k], maps[user["user"]]) for k in KS}
                row = {"lang": user["lang"], "type": question["type"], "platform": _hits(ours, question["evidence"])}
                if bm25_ranked is not None:
                    ids = [user["statements"][i]["id"] for i in bm25_ranked[qi]]
                    row["bm25"] = _hits({k: ids[:k] for k in KS}, question["evidence"])
                rows.append(row)
    finally:
        client.close()
    return {
        "half": half,
        "users": len(users),
        "import_seconds": round(import_s, 1),
        "processing_seconds": round(processing_s, 1),
        **_summary(rows),
    }
