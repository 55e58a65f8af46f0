"""Shared fixtures: the real Celery worker, the scripted OpenAI-compatible server, and small helpers.

The database is the real PostgreSQL + pgvector (embedded, or DATABASE_URL); pytest-django creates the test
database on it. Jobs cross a real broker (Redis when CELERY_BROKER_URL is set, kombu's filesystem transport
otherwise) to a separate worker process that uses the same test database.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from config.queues import bulk_queue_name
from tests.openai_server import ScriptedOpenAI

# The browser fixtures (chromium, new_page, site, collected_static) for every test module that drives Chromium,
# registered once here instead of imported into each module under a name its test functions then shadow.
pytest_plugins = ["tests.web.browser"]

ROOT = Path(__file__).resolve().parent.parent


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.1, message: str = "condition", details=None):
    """Poll `predicate` until it returns a truthy value; fail the test with `message` after `timeout` s, and with
    what `details()` returns then (the state a failure on a loaded CI machine needs to be understood)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"Timed out after {timeout}s waiting for {message}" + (f"\n{details()}" if details else ""))


@pytest.fixture(autouse=True)
def _usage_buffer_empty():
    """Each test starts with an empty metering buffer (core.metering): a turn a test ran through the service, with
    no request to flush it after, must not be written into the next test's database."""
    from core.metering import usage_buffer_take

    usage_buffer_take()
    yield
    usage_buffer_take()


@pytest.fixture(scope="session")
def openai_server():
    """The scripted model server, one per test session; tests push answers and reset it."""
    server = ScriptedOpenAI().start()
    yield server
    server.stop()


@pytest.fixture
def scripted_llm(openai_server, settings):
    """Point the platform at the scripted server (for code running in the test process)."""
    openai_server.reset()
    settings.OPENAI_BASE_URL = openai_server.base_url
    settings.OPENAI_API_KEY = "test-key"
    yield openai_server
    openai_server.reset()


class WorkerProcess:
    def __init__(self, env: dict, log_path: Path, queues: str = ""):
        self.env = env
        self.log_path = log_path
        self.queues = queues  # default: both queues of CELERY_QUEUE
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> WorkerProcess:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")
        queue = self.env["CELERY_QUEUE"]
        queues = self.queues or f"{queue},{bulk_queue_name(queue)}"  # as `make run`'s shared slot
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--pool=solo",
                "-Q",
                queues,
                "-n",
                f"{queue}-{time.time_ns()}@%h",
                "--loglevel=INFO",
                "--without-gossip",
                "--without-mingle",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        start = self.log_path.stat().st_size if self.log_path.exists() else 0
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Celery worker exited: {self.log_path.read_text()[-3000:]}")
            with open(self.log_path, "rb") as fh:
                fh.seek(start)
                if b" ready." in fh.read():
                    return self
            time.sleep(0.2)
        raise RuntimeError(f"Celery worker did not start in {timeout}s: {self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(5)


def worker_env(openai_server: ScriptedOpenAI) -> dict:
    env = dict(os.environ)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_NAME": connection.settings_dict["NAME"],
            "CELERY_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
            "RUN_DIR": str(settings.RUN_DIR),
            # The worker may call the scripted model; tenants choose it by model name (offline stays the default).
            "OPENAI_BASE_URL": openai_server.base_url,
            "OPENAI_API_KEY": "test-key",
            "PYTHONUNBUFFERED": "1",
        }
    )
    return env


_SESSION_WORKER_STARTED = False


@pytest.fixture(scope="session")
def celery_worker(django_db_setup, openai_server):
    """A real Celery worker process on the real broker and the test database, for the whole session."""
    global _SESSION_WORKER_STARTED
    worker = WorkerProcess(worker_env(openai_server), ROOT / "test-artifacts" / "worker.log").start()
    _SESSION_WORKER_STARTED = True
    yield worker
    worker.stop()


def _others_writing() -> bool:
    """Another connection to the test database is inside a statement or a transaction: a job the ledger already
    shows as done can still be writing its usage rows (usage.signals flushes after the job)."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND state IN ('active', 'idle in transaction')"
        )
        return cur.fetchone()[0] > 0


@pytest.fixture(autouse=True)
def _worker_idle_before_flush(request):
    """A transactional test that used the shared worker ends once the worker is idle. Otherwise a job the test
    caused (the extraction of its last message, say) can still hold row locks while pytest-django empties the
    tables: the TRUNCATE takes the tables in another order than the job's transaction, and PostgreSQL reports a
    deadlock in the next test's setup or this one's teardown."""
    marker = request.node.get_closest_marker("django_db")
    transactional = (marker is not None and marker.kwargs.get("transaction")) or "live_server" in request.fixturenames
    # The session's worker, once started, takes the jobs of every later test too (a chat turn over HTTP queues
    # its extraction whether or not the test asked for the worker), so every transactional test waits for it.
    if not (transactional and (_SESSION_WORKER_STARTED or "celery_worker" in request.fixturenames)):
        yield
        return
    # Set up pytest-django's database fixture before this one, so that this teardown runs before its flush.
    request.getfixturevalue("_django_db_helper")
    from django.utils import timezone

    started = timezone.now()
    yield
    from bench.common import queue_depth
    from core.dispatch import DISPATCH_KIND
    from core.models import JobRecord

    deadline = time.monotonic() + 15  # a job a test left running for ever (a killed worker) must not hang the run
    while time.monotonic() < deadline:
        queues = (settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_BULK_QUEUE)
        # A job the worker has prefetched has left the queue but not started: its outbox row is still queued.
        sent_not_started = JobRecord.objects.filter(
            kind=DISPATCH_KIND, status=JobRecord.Status.QUEUED, created_at__gte=started
        )
        if (
            all(queue_depth(queue) == 0 for queue in queues)
            and not sent_not_started.exists()
            and not JobRecord.objects.filter(status=JobRecord.Status.RUNNING).exists()
            and not _others_writing()
        ):
            return
        time.sleep(0.1)


@pytest.fixture
def new_worker(django_db_setup, openai_server):
    """Factory for extra workers a test may start and kill (fault tests)."""
    started = []

    def make() -> WorkerProcess:
        worker = WorkerProcess(worker_env(openai_server), ROOT / "test-artifacts" / "worker-extra.log").start()
        started.append(worker)
        return worker

    yield make
    for worker in started:
        worker.stop()
