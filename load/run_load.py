"""`make load`: start `make run`'s platform (web + worker + beat, offline model), create a tenant, run locust
(50 users chatting through the REST API for 60 s), then measure how long the job backlog takes to drain.

Prints one JSON report and writes it to load/results/latest.json. Exit code 1 when any request failed, any
reply leaked another user's data, or the backlog did not drain within LOAD_DRAIN_TIMEOUT seconds.
Settings (environment): LOAD_PORT (8097), LOAD_USERS (50), LOAD_SECONDS (60), LOAD_SPAWN_RATE (10/s),
LOAD_DRAIN_TIMEOUT (600), LOAD_EXTERNAL=1 to use an already running server at LOAD_HOST with LOAD_API_KEY.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "load" / "results"
PY = sys.executable


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def wait_healthy(base: str, proc: subprocess.Popen | None, timeout: float = 240) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            sys.exit(f"the platform exited with code {proc.returncode} before it was healthy")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=3) as resp:
                if resp.status == 200:
                    return
        except Exception:  # noqa: BLE001 - not up yet
            pass
        time.sleep(1)
    sys.exit(f"{base}/healthz was not ok after {timeout:.0f} s")


def django_setup():
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    import django

    django.setup()


def create_tenant(slug: str) -> str:
    out = subprocess.run(
        [PY, "manage.py", "create_tenant", slug, "--name", "Load test"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.strip().splitlines()[-1].strip()


def backlog(tenant_slug: str) -> dict:
    """Messages still waiting in the broker queue, and the tenant's ledger rows not finished yet."""
    from django.conf import settings

    from config.celery import app
    from core.models import JobRecord
    from tenancy.models import Tenant

    with app.connection_for_write() as conn:
        try:
            # kombu-stubs' StdChannel omits queue_declare, which every transport's channel has (a stubs gap)
            channel = conn.default_channel
            waiting = channel.queue_declare(settings.CELERY_TASK_DEFAULT_QUEUE, passive=True).message_count  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a queue that was never declared holds nothing
            waiting = 0
    tenant = Tenant.objects.get(slug=tenant_slug)
    open_jobs = JobRecord.objects.filter(tenant=tenant, status__in=["queued", "running"]).count()
    undelivered = JobRecord.objects.filter(kind="dispatch", status="queued").count()
    return {"broker_queue": waiting, "open_ledger_jobs": open_jobs, "undelivered": undelivered}


def ledger_summary(tenant_slug: str) -> dict:
    from django.db.models import Count

    from core.models import JobRecord
    from memory.models import MemoryNote
    from tenancy.models import Message, Tenant

    tenant = Tenant.objects.get(slug=tenant_slug)
    rows = JobRecord.objects.filter(tenant=tenant).values("kind", "status").annotate(n=Count("id"))
    jobs: dict = {}
    for row in rows:
        jobs.setdefault(row["kind"], {})[row["status"]] = row["n"]
    return {
        "jobs": jobs,
        "messages": Message.objects.for_tenant(tenant).count(),
        "notes": MemoryNote.objects.for_tenant(tenant).count(),
    }


def stats_for(csv_prefix: Path, name: str) -> dict:
    with open(f"{csv_prefix}_stats.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            if row["Name"] == name:
                return {
                    "requests": int(row["Request Count"]),
                    "failures": int(row["Failure Count"]),
                    "p50_ms": float(row["50%"]),
                    "p95_ms": float(row["95%"]),
                    "p99_ms": float(row["99%"]),
                    "max_ms": float(row["Max Response Time"]),
                    "rps": float(row["Requests/s"]),
                }
    return {"requests": 0, "failures": 0}


def platform_start(port: int, log_name: str, *, throttle_rate: str) -> subprocess.Popen:
    """`make run`'s platform on `port`, in its own process group (stopped as one), its output in RESULTS/log_name.
    The throttle is generous: the simulated people share one integrator key."""
    env = dict(os.environ, PORT=str(port), API_THROTTLE_RATE=throttle_rate, API_TENANT_THROTTLE_RATE=throttle_rate)
    return subprocess.Popen(
        [PY, "manage.py", "runplatform", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=open(RESULTS / log_name, "wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def platform_stop(platform: subprocess.Popen | None) -> None:
    """Stop the platform as Ctrl-C does (it stops its own processes); killed when it has not within a minute."""
    if platform is not None and platform.poll() is None:
        os.killpg(platform.pid, signal.SIGINT)
        try:
            platform.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(platform.pid, signal.SIGKILL)


def locust_run(*, host: str, users: int, seconds: int, api_key: str, prefix: Path) -> subprocess.CompletedProcess:
    """Locust, headless, against `host`: its statistics in `prefix`_*.csv, its output in RESULTS/locust.log.
    Failed requests are counted in the report, not turned into locust's exit code."""
    run = subprocess.run(
        [
            PY,
            "-m",
            "locust",
            "-f",
            str(ROOT / "load" / "locustfile.py"),
            "--headless",
            "--only-summary",
            "-u",
            str(users),
            "-r",
            os.environ.get("LOAD_SPAWN_RATE", "10"),
            "-t",
            f"{seconds}s",
            "--host",
            host,
            "--csv",
            str(prefix),
            "--stop-timeout",
            "30",
            "--exit-code-on-error",
            "0",
        ],
        cwd=ROOT,
        env=dict(os.environ, LOAD_API_KEY=api_key),
        capture_output=True,
        text=True,
    )
    (RESULTS / "locust.log").write_text(run.stdout + run.stderr)
    return run


def drained_at(slug: str, load_end: float, timeout: int) -> float | None:
    """When the backlog (broker queue, open ledger jobs, undelivered outbox rows) emptied for good: the first of
    three empty readings a second apart; None when it did not within `timeout` seconds of the load's end."""
    drained, stable = None, 0
    while time.time() - load_end < timeout:
        state = backlog(slug)
        if not any(state.values()):
            stable += 1
            drained = drained or time.time()
            if stable >= 3:
                break
        else:
            stable, drained = 0, None
        time.sleep(1)
    return drained


def main() -> int:
    users, seconds = env_int("LOAD_USERS", 50), env_int("LOAD_SECONDS", 60)
    port = env_int("LOAD_PORT", 8097)
    host = os.environ.get("LOAD_HOST", f"http://127.0.0.1:{port}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    platform = None
    if os.environ.get("LOAD_EXTERNAL") != "1":
        rate = os.environ.get("API_THROTTLE_RATE", "100000/min")
        platform = platform_start(port, "platform.log", throttle_rate=rate)
    try:
        wait_healthy(host, platform)
        django_setup()
        slug = os.environ.get("LOAD_TENANT", f"load-{int(time.time())}")
        api_key = os.environ.get("LOAD_API_KEY") or create_tenant(slug)
        prefix = RESULTS / "locust"
        run = locust_run(host=host, users=users, seconds=seconds, api_key=api_key, prefix=prefix)
        load_end = time.time()
        leaks = next(
            (json.loads(line) for line in run.stdout.splitlines() if line.startswith('{"cross_user_leaks"')),
            {"cross_user_leaks": None},
        )
        turn = stats_for(prefix, "chat turn")
        drained = drained_at(slug, load_end, env_int("LOAD_DRAIN_TIMEOUT", 600))
        report = {
            "users": users,
            "seconds": seconds,
            "turns": turn.get("requests", 0),
            "errors": turn.get("failures", 0),
            "cross_user_leaks": leaks.get("cross_user_leaks"),
            "leak_examples": leaks.get("leak_examples", []),
            "turn_latency_ms": {k: turn.get(k) for k in ("p50_ms", "p95_ms", "p99_ms", "max_ms")},
            "turns_per_second": turn.get("rps"),
            "backlog_drain_seconds": round(drained - load_end, 1) if drained else None,
            "backlog_at_end": backlog(slug),
            "ledger": ledger_summary(slug),
            "tenant": slug,
        }
    finally:
        platform_stop(platform)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    (RESULTS / "latest.json").write_text(json.dumps(report, indent=2, ensure_ascii=False))
    ok = (
        report["turns"] > 0
        and report["errors"] == 0
        and report["cross_user_leaks"] == 0
        and report["backlog_drain_seconds"] is not None
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
