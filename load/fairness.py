"""Fairness between tenants under a bulk backlog (docs/reliability.md "Interactive and bulk queues").

Starts `make run`'s platform (web, the interactive and the bulk worker, beat; offline model; default broker) on
FAIR_PORT, creates tenants A and B, then:
1. idle: B chats FAIR_IDLE_TURNS turns, one after another (the idle chat latency);
2. A imports FAIR_IMPORTS conversations of FAIR_MESSAGES messages (half user, half assistant; Chinese and English
   small talk, questions and facts that accumulate and change) through the REST import endpoint, while B keeps
   chatting, a turn every FAIR_CHAT_INTERVAL seconds, until every import is fully processed (FAIR_TIMEOUT);
3. reports B's chat latency idle and under load, B's turn-extraction delay (ledger `finished_at` of the turn's
   extraction minus the message's `created_at`), each import's total processing time (its ledger row), every
   import step's duration (its outbox row) and the longest compaction step, with the load average of the machine
   at each phase (the development machine is shared).
Prints one JSON report and writes load/results/fairness.json (and every turn of B, with its time, in
fairness-turns.json). Exit code 1 when a request failed or an import did not finish."""

from __future__ import annotations

import json
import os
import random
import statistics
import sys
import threading
import time
import urllib.request
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from load.run_load import (
    RESULTS,
    create_tenant,
    django_setup,
    env_int,
    platform_start,
    platform_stop,
    wait_healthy,
)

ZH_PLACES = ["成都", "杭州", "深圳", "厦门", "西安", "重庆", "南京", "武汉"]
EN_PLACES = ["Leeds", "Austin", "Berlin", "Toronto", "Lisbon", "Osaka", "Denver", "Madrid"]
ZH_SHOPS = ["火锅店", "咖啡馆", "面馆", "烘焙店", "书店", "花店"]
EN_SHOPS = ["bakery", "tea shop", "bookstore", "bike shop", "cafe", "noodle bar"]


def user_line(rng: random.Random, i: int) -> str:
    """One user message: two in five state a fact (a budget, a place, a size, a like), the rest ask or chat."""
    zh = (i // 3) % 2 == 0
    kind = rng.random()
    if kind < 0.1:
        return (
            f"我的预算大概{rng.randint(10, 90)}万。" if zh else f"My budget is about {rng.randint(10, 90)}0,000 yuan."
        )
    if kind < 0.2:
        return (
            f"我打算在{rng.choice(ZH_PLACES)}开一家{rng.choice(ZH_SHOPS)}。"
            if zh
            else f"I plan to open a {rng.choice(EN_SHOPS)} in {rng.choice(EN_PLACES)}."
        )
    if kind < 0.3:
        return (
            f"店面大概{rng.randint(40, 200)}平米。"
            if zh
            else f"The space is about {rng.randint(400, 2000)} square feet."
        )
    if kind < 0.4:
        return (
            f"我喜欢{rng.choice(['安静的街区', '川菜', '早起', '简短的回答', '有机咖啡'])}。"
            if zh
            else f"I prefer {rng.choice(['quiet streets', 'Thai food', 'early mornings', 'short answers', 'oat milk'])}."
        )
    from bench.corpus import chat_line

    return chat_line(rng, "zh" if zh else "en")


def conversation(seed: int, messages: int) -> list[dict]:
    rng = random.Random(seed)
    start = datetime.now(UTC) - timedelta(days=60)
    out = []
    for i in range(messages):
        user = i % 2 == 0
        text = user_line(rng, i // 2) if user else ("好的，我记下了。" if (i // 6) % 2 == 0 else "Noted, thanks.")
        out.append(
            {
                "role": "user" if user else "assistant",
                "content": text,
                "created_at": (start + timedelta(seconds=60 * i)).isoformat(),
            }
        )
    return out


def call(base: str, key: str, path: str, body: dict, timeout: float = 120) -> tuple[int, dict, float]:
    request = urllib.request.Request(
        f"{base}{path}",
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read() or b"{}"), time.perf_counter() - started
    except urllib.error.HTTPError as exc:
        return exc.code, {"error": exc.read()[:300].decode(errors="replace")}, time.perf_counter() - started


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))], 3)


def summary(values: list[float]) -> dict:
    return {
        "n": len(values),
        "p50": pct(values, 0.5),
        "p95": pct(values, 0.95),
        "max": pct(values, 1.0),
        "mean": round(statistics.fmean(values), 3) if values else None,
    }


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class Chatter(threading.Thread):
    """Tenant B: one person chatting, a turn every `interval` seconds, until stopped."""

    LINES = [
        "我在杭州开了一家花店，预算二十万。",
        "What should I put in the window display?",
        "我喜欢安静的街区。",
        "Do you remember my budget?",
        "周末客人多，要不要多招一个人？",
        "I prefer short answers.",
    ]

    def __init__(self, base: str, key: str, interval: float):
        super().__init__(daemon=True)
        self.base, self.key, self.interval = base, key, interval
        self.stop_event = threading.Event()
        self.turns: list[dict] = []
        self.session = None

    def turn(self) -> None:
        body = {"user": "b-person", "message": self.LINES[len(self.turns) % len(self.LINES)]}
        if self.session:
            body["session"] = self.session
        status, data, seconds = call(self.base, self.key, "/api/v1/chat/", body)
        self.session = data.get("session", self.session)
        self.turns.append(
            {
                "status": status,
                "seconds": seconds,
                "user_message_id": data.get("user_message_id"),
                "load": load_average()[0],
                "at": round(time.time(), 2),
            }
        )

    def run(self) -> None:
        while not self.stop_event.is_set():
            self.turn()
            self.stop_event.wait(self.interval)


def extraction_delays(message_ids: list[int]) -> list[float]:
    """Seconds from each message's creation to the end of its extraction job (the ledger)."""
    from core.models import JobRecord
    from tenancy.models import Message

    created = dict(Message.objects.unscoped().filter(pk__in=message_ids).values_list("pk", "created_at"))
    done = {
        int(k.split(":")[1]): f
        for k, f in JobRecord.objects.filter(
            kind="memory_extract", idempotency_key__in=[f"extract:{m}" for m in message_ids], status="succeeded"
        ).values_list("idempotency_key", "finished_at")
    }
    delays = []
    for m in message_ids:
        finished, sent = done.get(m), created.get(m)
        if finished is not None and sent is not None:
            delays.append((finished - sent).total_seconds())
    return delays


def import_steps(tenant_id: int, session_id: int, job_id: int) -> list[float]:
    """Durations of the import's steps, in order (each step is its own outbox row)."""
    from core.models import JobRecord

    rows = JobRecord.objects.filter(
        kind="dispatch",
        progress__job="assistants.jobs.session_import",
        progress__args=[tenant_id, session_id, job_id],
        finished_at__isnull=False,
        started_at__isnull=False,
    ).order_by("started_at")
    return [round((r.finished_at - r.started_at).total_seconds(), 2) for r in rows if r.finished_at and r.started_at]


def idle_phase(base: str, key: str, report: dict):
    """B alone: a warm-up turn (the web process's first request imports and connects: not counted), then
    FAIR_IDLE_TURNS turns half a second apart, the baseline the loaded figures are compared with. Returns B."""
    idle = Chatter(base, key, 0)
    idle.turn()
    idle.turns.clear()
    report["load_before"] = load_average()
    for _ in range(env_int("FAIR_IDLE_TURNS", 20)):
        idle.turn()
        time.sleep(0.5)
    time.sleep(5)
    report["b_idle"] = {
        "chat_latency_s": summary([t["seconds"] for t in idle.turns]),
        "extraction_delay_s": summary(
            extraction_delays([t["user_message_id"] for t in idle.turns if t["user_message_id"]])
        ),
        "load": load_average(),
    }
    return idle


def imports_send(base: str, key: str, bodies: list[dict]) -> tuple[list[int], list[int], list[float]]:
    """A's imports, one request each: (their job ids, their session ids, the seconds each took to be stored)."""
    jobs, sessions, stored = [], [], []
    for n, body in enumerate(bodies):
        status, data, seconds = call(base, key, f"/api/v1/users/a-person-{n}/sessions/", body, timeout=300)
        if status not in (200, 201, 202):
            raise RuntimeError(f"import {n} failed: HTTP {status} {data}")
        jobs.append(int(data["job"]))
        sessions.append(int(data["session"]["id"] if isinstance(data["session"], dict) else data["session"]))
        stored.append(round(seconds, 2))
    return jobs, sessions, stored


def imports_wait(jobs: list[int], timeout: int) -> list[float]:
    """Wait (at most `timeout` s) until every import job has finished; the machine's load average every 5 s."""
    from core.models import JobRecord

    started = time.time()
    loads = []
    while time.time() - started < timeout:
        rows = list(JobRecord.objects.filter(pk__in=jobs).values("status"))
        loads.append(load_average()[0])
        if all(r["status"] in ("succeeded", "failed") for r in rows):
            break
        time.sleep(5)
    return loads


def imports_detail(tenant_id: int, jobs: list[int], sessions: list[int]) -> list[dict]:
    """Each import's outcome: status, total processing time, and its steps' durations, extraction steps (250
    user messages each) apart from the compaction steps after them."""
    from core.models import JobRecord

    finished = {r.pk: r for r in JobRecord.objects.filter(pk__in=jobs)}
    per_import = []
    for job_id, session_id in zip(jobs, sessions, strict=True):
        row = finished[job_id]
        steps = import_steps(tenant_id, session_id, job_id)
        user_messages = (row.progress or {}).get("total") or 0
        extraction_steps = -(-user_messages // 250)
        per_import.append(
            {
                "job": job_id,
                "status": row.status,
                "result": row.result,
                "processing_s": round((row.finished_at - row.created_at).total_seconds(), 1)
                if row.finished_at
                else None,
                "steps": len(steps),
                "extraction_steps_s": steps[:extraction_steps],
                "compaction_steps_s": steps[extraction_steps:],
                "longest_step_s": max(steps) if steps else None,
            }
        )
    return per_import


def under_load_report(turns: list[dict], idle_p95) -> dict:
    """B's turns while A's imports ran: errors, latency, extraction delay, and the p95 latency against idle."""
    report = {
        "turns": len(turns),
        "errors": sum(t["status"] != 200 for t in turns),
        "chat_latency_s": summary([t["seconds"] for t in turns]),
        "extraction_delay_s": summary(extraction_delays([t["user_message_id"] for t in turns if t["user_message_id"]])),
    }
    if idle_p95:
        report["chat_latency_p95_vs_idle"] = round(report["chat_latency_s"]["p95"] / idle_p95, 2)
    return report


def main() -> int:
    port, imports, size = env_int("FAIR_PORT", 8098), env_int("FAIR_IMPORTS", 1), env_int("FAIR_MESSAGES", 10_000)
    interval, timeout = float(os.environ.get("FAIR_CHAT_INTERVAL", "3")), env_int("FAIR_TIMEOUT", 1800)
    base = f"http://127.0.0.1:{port}"
    RESULTS.mkdir(parents=True, exist_ok=True)
    platform = platform_start(port, "fairness-platform.log", throttle_rate="100000/min")
    turns_seen: dict = {}
    report: dict = {"imports": imports, "messages_per_import": size, "chat_interval_s": interval}
    ok = False
    try:
        wait_healthy(base, platform)
        django_setup()
        from tenancy.models import Tenant

        stamp = int(time.time())
        key_a, key_b = create_tenant(f"fair-a-{stamp}"), create_tenant(f"fair-b-{stamp}")
        tenant_a = Tenant.objects.get(slug=f"fair-a-{stamp}")
        idle = idle_phase(base, key_b, report)

        bodies = [{"title": f"import {n}", "messages": conversation(n, size)} for n in range(imports)]
        chatter = Chatter(base, key_b, interval)
        chatter.session = idle.session
        chatter.start()
        jobs, sessions, report["import_stored_s"] = imports_send(base, key_a, bodies)
        loads = imports_wait(jobs, timeout)
        chatter.stop_event.set()
        chatter.join(130)
        time.sleep(10)  # B's last extractions
        per_import = imports_detail(tenant_a.pk, jobs, sessions)
        turns_seen.update(idle=idle.turns, under_load=chatter.turns)
        report["b_under_load"] = under_load_report(chatter.turns, report["b_idle"]["chat_latency_s"]["p95"])
        report["imports_detail"] = per_import
        report["load_during"] = {"min": min(loads), "max": max(loads), "mean": round(statistics.fmean(loads), 2)}
        report["load_after"] = load_average()
        ok = report["b_under_load"]["errors"] == 0 and all(p["status"] == "succeeded" for p in per_import)
    finally:
        platform_stop(platform)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    (RESULTS / "fairness.json").write_text(json.dumps(report, indent=2, ensure_ascii=False))
    if turns_seen:  # every turn of B (status, seconds, time), to see which ones were slow and when
        (RESULTS / "fairness-turns.json").write_text(json.dumps(turns_seen, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
