"""Benchmarks of the integration doors, against a running platform (`make run`), through its public interfaces only.

    PORT=8310 make run &                      # or any running platform whose settings allow a loopback receiver
    .venv/bin/python bench/integrations.py --base http://127.0.0.1:8310 --key "$(cat .run/demo-api-key)"
    .venv/bin/python bench/integrations.py ... --outage 60     # the receiver is down for 60 s (default 60)

1. MCP `recall` vs REST `GET /users/<id>/recall/` on the same data: one user with --notes notes (added through
   the REST API, Chinese and English), --queries queries each way, interleaved, sequential; p50/p95 in ms. The MCP
   side is the official SDK's client over streamable HTTP (one connection, JSON answers).
2. Webhook latency: an endpoint on a receiver on 127.0.0.1; --events notes are added one at a time and the time
   from the write's answer to the signed delivery's arrival is measured (p50/p95/max), each signature verified.
3. Receiver outage: the receiver is stopped, --events notes are written, the receiver comes back after --outage
   seconds; counts deliveries lost (expected 0) and duplicated, and the time to drain.
Prints one JSON document with every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a file, bench/ would come first on the path and its platform.py would hide the standard library's.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT / "sdk" / "python" / "src"))
sys.path.insert(0, str(ROOT))

from memory_platform import Client  # noqa: E402 - after the sys.path set-up above
from memory_platform.webhooks import verify_signature  # noqa: E402 - the same
from tests.integrations.webhook_receiver import Receiver  # noqa: E402 - the same

FACTS_ZH = ["用户喜欢喝{}。", "用户的店在{}。", "用户每周{}去健身。", "用户对{}过敏。", "用户打算下个月去{}。"]
FACTS_EN = [
    "The user likes {}.",
    "The user's shop is in {}.",
    "The user trains on {}.",
    "The user is allergic to {}.",
    "The user plans a trip to {}.",
]
WORDS_ZH = ["美式", "拿铁", "杭州", "成都", "周三", "周五", "花生", "海鲜", "大理", "青岛", "乌龙茶", "深圳"]
WORDS_EN = ["americano", "latte", "Lisbon", "Porto", "Mondays", "Fridays", "peanuts", "shellfish", "Kyoto", "Oslo"]


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))], 2)


def seed(client: Client, user: str, notes: int) -> None:
    rng = random.Random(21)
    for n in range(notes):
        if n % 2:
            content = rng.choice(FACTS_ZH).format(rng.choice(WORDS_ZH)) + f"（第{n}条）"
        else:
            content = rng.choice(FACTS_EN).format(rng.choice(WORDS_EN)) + f" (#{n})"
        client.add_memory(user, kind="profile", content=content)


async def mcp_recall_times(base: str, key: str, user: str, queries: list[str]) -> list[float]:
    import httpx2
    from mcp import Client as McpClient
    from mcp.client.streamable_http import streamable_http_client

    times = []
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        async with McpClient(streamable_http_client(f"{base}/mcp/", http_client=http)) as client:
            await client.call_tool("recall", {"user": user, "query": queries[0], "k": 10})  # warm
            for query in queries:
                started = time.perf_counter()
                result = await client.call_tool("recall", {"user": user, "query": query, "k": 10})
                times.append((time.perf_counter() - started) * 1000)
                assert not result.is_error, result
    return times


def recall_bench(client: Client, base: str, key: str, notes: int, queries: int) -> dict:
    user = f"bench-mcp-{int(time.time())}"
    seed(client, user, notes)
    rng = random.Random(7)
    qs = [rng.choice(WORDS_ZH + WORDS_EN) for _ in range(queries)]
    client.recall(user, qs[0])  # warm
    rest = []
    for query in qs:
        started = time.perf_counter()
        client.recall(user, query, k=10)
        rest.append((time.perf_counter() - started) * 1000)
    mcp = asyncio.run(mcp_recall_times(base, key, user, qs))
    client.erase_user(user)
    return {
        "notes": notes,
        "queries": queries,
        "rest_ms": {"p50": pct(rest, 50), "p95": pct(rest, 95)},
        "mcp_ms": {"p50": pct(mcp, 50), "p95": pct(mcp, 95)},
        "p95_ratio": round(pct(mcp, 95) / pct(rest, 95), 2),
    }


def webhook_bench(client: Client, events: int, outage: float) -> dict:
    receiver = Receiver().start()
    hook = client.create_webhook(receiver.url, ["memory.created"], description="bench/integrations.py")
    user = f"bench-hook-{int(time.time())}"
    try:
        latencies = []
        for n in range(events):
            before = len(receiver.received)
            client.add_memory(user, kind="profile", content=f"The user owns {n + 2} bicycles.")
            written = time.time()
            receiver.wait_for(before + 1, timeout=30)
            latencies.append((receiver.received[-1]["at"] - written) * 1000)
        verified = all(
            verify_signature(hook["secret"], r["headers"]["x-timestamp"], r["body"], r["headers"]["x-signature"])
            for r in receiver.received
        )
        receiver.stop()
        receiver.received.clear()
        ids = [client.add_memory(user, kind="profile", content=f"用户有 {n + 3} 只猫。")["id"] for n in range(events)]
        time.sleep(outage)
        receiver.start()
        back = time.time()
        try:
            receiver.wait_for(len(ids), timeout=900)
        except AssertionError:
            pass
        drained = time.time() - back
        time.sleep(2)
        got = [r["json"]["data"]["note"] for r in receiver.received]
        return {
            "events": events,
            "latency_ms": {"p50": pct(latencies, 50), "p95": pct(latencies, 95), "max": round(max(latencies), 1)},
            "signatures_verified": verified,
            "outage_seconds": outage,
            "outage_lost": len(set(ids) - set(got)),
            "outage_duplicates": len(got) - len(set(got)),
            "outage_drain_seconds": round(drained, 1),
        }
    finally:
        receiver.stop()
        client.delete_webhook(hook["id"])
        client.erase_user(user)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="http://127.0.0.1:8000")
    parser.add_argument("--key", required=True)
    parser.add_argument("--notes", type=int, default=500)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--events", type=int, default=30)
    parser.add_argument("--outage", type=float, default=60.0)
    args = parser.parse_args()
    with Client(args.base, args.key) as client:
        result = {
            "recall": recall_bench(client, args.base, args.key, args.notes, args.queries),
            "webhooks": webhook_bench(client, args.events, args.outage),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
