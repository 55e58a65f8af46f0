"""Bulk jobs give way to interactive work on a shared machine (docs/reliability.md "Interactive
and bulk queues").

A queue of its own keeps a turn's jobs from waiting behind an import, but on a machine with few cores the import
still competes with the chat for the CPU and for the WAL: its worker process, and the PostgreSQL backend that
serves it (a separate process, which the worker's own priority does not reach), run at the same priority as the
web process and the backends serving a turn. So, at the start of every bulk job (config.queues.BULK_JOBS), in the
process that runs it:
- the job's thread and its database backend run BULK_JOB_NICENESS steps nicer (default 10, 0 = off). The backend's
  priority can be set only when the server is on this machine and run by our OS user (the embedded PostgreSQL);
  on a remote server, or one another user runs, it is skipped quietly (logged once). An idle machine gives a
  niced process every free cycle, so an import alone keeps its full speed;
- the job's commits do not wait for the WAL flush (`synchronous_commit = off`, BULK_JOB_ASYNC_COMMIT, default on).
  PostgreSQL stays consistent; a crash of the server itself may forget the last few hundred milliseconds of a bulk
  job's commits. That is safe because every bulk step is idempotent and its outbox row (written synchronously by
  the request that sent it) still says running or queued: it is re-delivered once its lease runs out, and the step
  redoes what was forgotten (a later synchronous commit flushes all WAL before it, so nothing after it can survive
  without it).
An interactive job that runs next in the same process (`make run`'s bulk worker serves both queues) gets its
normal priority back: the thread's niceness is restored where the OS allows it (an unprivileged process cannot
lower its niceness; it then stays nicer, as a niced worker would), and a database connection a bulk job prepared
is given back its priority and `synchronous_commit`, or closed when the OS refuses (the next query opens a fresh
backend at normal priority).
"""

from __future__ import annotations

import logging
import os
import threading
import time

from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)

_NICEST = 19
_warned: set[str] = set()
# Niceness belongs to a thread on Linux: each thread's niceness before its first bulk job, and whether it is nicer.
_thread = threading.local()


def _warn_once(what: str, exc: BaseException) -> None:
    if what not in _warned:
        _warned.add(what)
        logger.info("bulk jobs: %s left at normal priority (%s: %s)", what, type(exc).__name__, exc)


def _server_is_local() -> bool:
    """The backend's pid names a process of this machine only if the server runs here (a socket or loopback)."""
    if getattr(settings, "USING_EMBEDDED_DB", False):
        return True
    host = str(connection.settings_dict.get("HOST") or "")
    options_host = str((connection.settings_dict.get("OPTIONS") or {}).get("host") or "")
    host = host or options_host
    return host == "" or host.startswith("/") or host in ("localhost", "127.0.0.1", "::1")


def _is_postgres(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/comm") as comm:
            return comm.read().strip().startswith("postgres")
    except OSError:
        return False


def _backend_pid() -> int | None:
    connection.ensure_connection()
    pid = getattr(getattr(connection.connection, "info", None), "backend_pid", None)
    return int(pid) if pid else None


def _backend_nice(pid: int, steps: int) -> int | None:
    """Make the backend `steps` nicer; its niceness before, or None when that is not possible here."""
    if not _server_is_local() or not _is_postgres(pid):
        _warn_once("the database backend", RuntimeError("the server is not on this machine"))
        return None
    try:
        before = os.getpriority(os.PRIO_PROCESS, pid)
        os.setpriority(os.PRIO_PROCESS, pid, min(_NICEST, before + steps))
        return before
    except OSError as exc:  # PermissionError: a server run by another user
        _warn_once("the database backend", exc)
        return None


def _thread_nice(target: int) -> bool:
    try:
        os.setpriority(os.PRIO_PROCESS, 0, target)
        return True
    except OSError as exc:  # lowering niceness needs privileges
        _warn_once("the worker thread", exc)
        return False


def bulk_job_prepare() -> None:
    """Run the calling thread and its database connection as a bulk job (nicer, asynchronous commits)."""
    steps = max(0, min(_NICEST, int(settings.BULK_JOB_NICENESS)))
    _thread.job_started, _thread.yielded = time.monotonic(), 0.0  # bulk_job_yield's budget counts from here
    if getattr(_thread, "base", None) is None:
        _thread.base, _thread.niced = os.getpriority(os.PRIO_PROCESS, 0), False
    if steps and not _thread.niced:
        _thread.niced = _thread_nice(min(_NICEST, _thread.base + steps))
    pid = _backend_pid()
    prepared = getattr(connection, "bulk_backend", (None, None, None))
    if pid is None or prepared[0] is connection.connection:
        return  # this connection is prepared already (the same object: a pid alone can be reused by a new backend)
    before = _backend_nice(pid, steps) if steps else None
    if settings.BULK_JOB_ASYNC_COMMIT:
        with connection.cursor() as cursor:
            cursor.execute("SET synchronous_commit = off")
    if before is not None or settings.BULK_JOB_ASYNC_COMMIT:
        connection.bulk_backend = (connection.connection, pid, before)  # type: ignore[attr-defined]


def interactive_job_prepare() -> None:
    """Undo what a bulk job left on the calling thread and its connection, so an interactive job runs at normal
    priority with synchronous commits."""
    if getattr(_thread, "niced", False) and _thread_nice(_thread.base):
        _thread.niced = False
    prepared, pid, before = getattr(connection, "bulk_backend", (None, None, None))
    if prepared is None:
        return
    connection.bulk_backend = (None, None, None)  # type: ignore[attr-defined]
    if prepared is not connection.connection or getattr(prepared, "closed", True):
        return  # that backend is gone; a new connection starts at normal priority
    try:
        if before is not None and pid is not None:
            os.setpriority(os.PRIO_PROCESS, pid, before)
        with connection.cursor() as cursor:
            cursor.execute("RESET synchronous_commit")
    except OSError:  # an unprivileged process cannot make the backend less nice again: use a fresh one
        connection.close()


# --- Yielding: a bulk job pauses between two units of its work while interactive work is going on here ---------


def _marker():
    return settings.RUN_DIR / "interactive-work-seen"


def interactive_work_seen() -> None:
    """Say that interactive work (a chat turn, an interactive job) is going on now. A file's time in RUN_DIR: bulk
    jobs on this machine read it (bulk_job_yield); on another machine they have cores of their own anyway."""
    if settings.BULK_YIELD_SECONDS <= 0:
        return
    try:
        os.utime(_marker())
    except FileNotFoundError:
        try:
            _marker().touch()
        except OSError as exc:
            _warn_once("yielding (no RUN_DIR)", exc)
    except OSError as exc:
        _warn_once("yielding", exc)


def bulk_job_yield() -> float:
    """Between two units of a bulk job's work (an imported message): while interactive work was seen on this
    machine within the last BULK_YIELD_SECONDS, wait in short sleeps. Never more than the job has worked since it
    started, so a steady stream of turns halves a bulk job's speed at worst and cannot stop it; with no
    interactive work it costs one stat(). Returns the seconds waited."""
    window = float(settings.BULK_YIELD_SECONDS)
    if window <= 0:
        return 0.0
    now = time.monotonic()
    if getattr(_thread, "job_started", None) is None:
        _thread.job_started, _thread.yielded = now, 0.0
    waited = 0.0
    while True:
        try:
            age = time.time() - os.stat(_marker()).st_mtime
        except OSError:
            break
        budget = (time.monotonic() - _thread.job_started - _thread.yielded) - _thread.yielded
        if age >= window or budget <= 0:
            break
        before = time.monotonic()
        time.sleep(min(0.02, window - age, budget))
        slept = time.monotonic() - before  # what it really waited: a loaded machine oversleeps
        waited += slept
        _thread.yielded += slept
    return waited


def interactive_work_middleware(get_response):
    """A request that changes something (a chat turn is a POST) is someone waiting: bulk jobs on this machine
    pause from its first byte, before authentication and routing. Reads (a client polling an import's progress)
    do not pause them."""

    def middleware(request):
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            interactive_work_seen()
        return get_response(request)

    return middleware
