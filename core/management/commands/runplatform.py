"""`make run`: migrate, seed the demo, then run the web server, the Celery workers and beat until Ctrl-C.

The terminal shows one block (addresses, logins, the API key, where the logs are) and any error that stops the
platform, in one sentence; each process writes its own output to RUN_DIR/logs/<name>.log (`make logs`)."""

import io
import os
import signal
import subprocess
import sys
import time
import urllib.request

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from core.platform_processes import (
    die_with_parent,
    log_last_line,
    log_open,
    log_path,
    port_taken_sentence,
    record_remove,
    record_write,
    shown_path,
)

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # Ctrl-C, kill/systemd/containers, a closed terminal


def web_concurrency() -> str:
    """uvicorn worker processes (WEB_CONCURRENCY, default 1; the benchmark starts the same number). Each holds at
    most DATABASE_POOL_MAX_SIZE connections. On the 2-core development machine, shared with the worker and the
    database, a second process measured no more turns/s at 32 clients and a slower turn at 1 client; on a
    machine with spare cores, raise it."""
    return os.environ.get("WEB_CONCURRENCY") or "1"


def uvicorn_proxy_options(trusted_proxies: list[str]) -> list[str]:
    """uvicorn's forwarded-header options from TRUSTED_PROXIES: with none named, uvicorn believes no
    X-Forwarded-For (its own default trusts 127.0.0.1, so anything on this machine could pick its address);
    otherwise only the named proxies' headers count (core/client_address.py reads them the same way)."""
    trusted = [entry.strip() for entry in trusted_proxies if entry.strip()]
    if not trusted:
        return ["--no-proxy-headers"]
    return ["--proxy-headers", "--forwarded-allow-ips", ",".join(trusted)]


def worker_commands(python: str) -> dict:
    """The Celery workers of `make run`: CELERY_CONCURRENCY slots (default 2) split so that interactive work never
    waits behind bulk work. One slot serves only the interactive queue (a turn's extraction, message vectors,
    compaction); the others serve the bulk queue and, when it is empty, interactive jobs too. A tenant's three big
    imports then occupy at most the bulk slots, and a chat turn's extraction starts within seconds."""
    interactive, bulk = settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_BULK_QUEUE
    shared = max(1, int(os.environ.get("CELERY_CONCURRENCY", "2")) - 1)

    def worker(name: str, queues: str, concurrency: int) -> list[str]:
        return [
            python,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--loglevel=INFO",
            "-Q",
            queues,
            "--concurrency",
            str(concurrency),
            "-n",
            f"{name}@%h",
        ]

    return {
        "worker-interactive": worker("interactive", interactive, 1),
        "worker-bulk": worker("bulk", f"{bulk},{interactive}", shared),
    }


def process_commands(python: str, *, host: str, port: int) -> dict:
    """The command line of every process `make run` starts, by name: the web server, the workers, beat."""
    return {
        "web": [
            python,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            host,
            "--port",
            str(port),
            "--workers",
            web_concurrency(),
            *uvicorn_proxy_options(settings.TRUSTED_PROXIES),
        ],
        **worker_commands(python),
        "beat": [
            python,
            "-m",
            "celery",
            "-A",
            "config",
            "beat",
            "--loglevel=INFO",
            "--schedule",
            str(settings.RUN_DIR / "celerybeat-schedule"),
        ],
    }


def process_environment(name: str) -> dict:
    """The environment of one process `make run` starts. The web server runs with DEBUG off unless
    DJANGO_DEBUG says otherwise: people trying the product see its own 404 and 500 pages, never Django's debug
    pages with settings and tracebacks (static files are collected first and served by WhiteNoise either way)."""
    env = dict(os.environ)
    if name == "web":
        env.setdefault("DJANGO_DEBUG", "False")
    return env


class Command(BaseCommand):
    help = "Run web (uvicorn, ASGI), the Celery workers (interactive, bulk) and Celery beat together on this machine."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
        parser.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))

    def handle(self, *args, port, host, **options):
        taken = port_taken_sentence(host, port, settings.RUN_DIR)
        if taken:
            raise CommandError(taken)
        stopping = False

        def stop(*_):
            nonlocal stopping
            stopping = True

        # Before any child starts: a stop signal from here on is always seen, and ends every process started.
        for number in STOP_SIGNALS:
            signal.signal(number, stop)
        reembed_note = self._prepare()
        commands = process_commands(sys.executable, host=host, port=port)
        if stopping:
            return
        procs: dict[str, subprocess.Popen] = {}
        try:
            self._start(commands, procs)
            record_write(settings.RUN_DIR, port, {"platform": os.getpid(), **{n: p.pid for n, p in procs.items()}})
            base = f"http://{host}:{port}"
            healthy = self._wait_healthy(base, procs, lambda: stopping)
            if not stopping and all(proc.poll() is None for proc in procs.values()):
                self._say(self.style.SUCCESS(up_block(base, list(procs), healthy, reembed_note)))
            self._watch(procs, lambda: stopping)
        finally:  # whatever ended the loop (a signal, an exception, output that can no longer be written)
            self._shutdown(procs)
            record_remove(settings.RUN_DIR, port)

    def _prepare(self) -> str:
        """Bring the database and the demo up to date before any process starts, so the web server never answers
        from an old schema. Returns what re-embedding said (a note for the block printed once up)."""
        call_command("migrate", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        call_command("seed_demo", stdout=io.StringIO())  # its logins and key are in the block printed once up
        reembed = io.StringIO()
        call_command("reembed_stale", stdout=reembed)  # after an upgrade that changed the default encoder
        return reembed.getvalue().strip()

    def _start(self, commands: dict, procs: dict[str, subprocess.Popen]) -> None:
        """Start each process into `procs` as it starts, so that a failure halfway still stops those already
        running. Each is its own process group (stopped as one) and dies with this process."""
        for name, cmd in commands.items():
            with log_open(settings.RUN_DIR, name) as log:  # the child keeps its own copy of the descriptor
                procs[name] = subprocess.Popen(
                    cmd,
                    start_new_session=True,
                    env=process_environment(name),
                    preexec_fn=die_with_parent,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )

    def _watch(self, procs: dict[str, subprocess.Popen], stopping) -> None:
        """Return when a stop signal came or a process ended on its own; the platform does not run on in part,
        so the first process to end says why and the caller stops the rest."""
        while not stopping():
            for name, proc in procs.items():
                if proc.poll() is not None:
                    self._say(exit_sentence(name, proc.returncode), error=True)
                    return
            time.sleep(0.5)

    def _say(self, text: str, *, error: bool = False) -> None:
        """Write a line if the output is still there: a closed pipe (the terminal or `| tee` gone) must never
        stop the platform from stopping its processes."""
        try:
            out = self.stderr if error else self.stdout
            out.write(text)
            out.flush()  # seen now, also through a pipe (`make run | tee`)
        except (OSError, ValueError):
            pass

    def _wait_healthy(self, base, procs, stopping, timeout=90) -> bool:
        """True once /healthz says every part is up; False when a process ended, a stop came or time ran out."""
        deadline = time.time() + timeout
        while time.time() < deadline and not stopping():
            if any(p.poll() is not None for p in procs.values()):
                return False
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=3) as resp:
                    if resp.status == 200:
                        return True
            except Exception:  # noqa: BLE001 - not up yet
                pass
            time.sleep(1)
        return False

    def _shutdown(self, procs):
        self._say("Stopping web, worker and beat ...")
        for proc in procs.values():
            if proc.poll() is None:
                _signal_group(proc, signal.SIGTERM)
        deadline = time.time() + 20
        for proc in procs.values():
            try:
                proc.wait(max(0.1, deadline - time.time()))
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.wait(5)
        if settings.USING_EMBEDDED_DB:
            from django.db import connections

            connections.close_all()
            from config.embedded_db import stop_embedded_server

            stop_embedded_server(settings.EMBEDDED_DB_DIR)
        self._say("Stopped.")


def up_block(base: str, names: list[str], healthy: bool, note: str = "") -> str:
    """The one block `make run` prints once the platform answers: where to go, how to log in, the API key, where
    the logs are."""
    key_file = settings.RUN_DIR / "demo-api-key"
    try:
        key = key_file.read_text().strip()
    except OSError:
        key = "(none: python manage.py create_api_key demo)"
    password = settings.DEMO_PASSWORD
    logs = shown_path(log_path(settings.RUN_DIR, "web").parent)
    lines = [
        "",
        "Platform is up." if healthy else f"Platform started, but not every part answers {base}/healthz yet.",
        f"  web chat:  {base}/  (log in as demo / {password})",
        f"  admin:     {base}/admin/  (admin / {password})",
        f"  API docs:  {base}/api/docs/",
        f"  API key:   {key}  (kept in {shown_path(key_file)})",
        f"  health:    {base}/healthz",
        f"  logs:      {logs}/ ({', '.join(names)}); make logs follows them",
        *([f"  note:      {note}"] if note else []),
        "Press Ctrl-C to stop.",
        "",
    ]
    return "\n".join(lines)


def exit_sentence(name: str, code: int | None) -> str:
    """One sentence for a process that ended on its own: which, how, and where its log says why."""
    log = log_path(settings.RUN_DIR, name)
    last = log_last_line(log)
    said = f"; its log {shown_path(log)} ends: {last}" if last else f"; see {shown_path(log)}"
    how = f"stopped with exit code {code}"
    if code is not None and code < 0:
        how = f"was killed by signal {-code}"
        if -code in signal.valid_signals():
            how = f"was killed by {signal.Signals(-code).name}"
    return f"The {name} process {how}, so the platform is stopping{said}"


def _signal_group(proc: subprocess.Popen, number: int) -> None:
    """Signal the child's process group (its own pool processes and uvicorn workers too); one already gone is
    fine."""
    try:
        os.killpg(proc.pid, number)
    except ProcessLookupError:
        pass
