"""A bulk job gives way to interactive work (issue 18, core/priority.py): run through the Celery app's task class as
a worker runs it, a bulk job leaves its thread and its PostgreSQL backend nicer and its commits asynchronous; an
interactive job run next by the same worker process gets normal priority and synchronous commits back.

Each case runs in a thread of its own: niceness on Linux belongs to the thread, so the test process keeps its own.
"""

from __future__ import annotations

import os
import threading
import time

import pytest
from django.db import connection

from core import priority
from core.jobs import dispatch_redeliver
from memory.jobs import memory_decay


def _nice(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[16])  # field 19 of proc(5): nice


def _as_a_worker_runs_it(job) -> dict:
    """Run `job` through OutboxTask.__call__ (not eagerly, as a worker does) and read what it left behind."""
    job.push_request(id="beat-sent", is_eager=False)
    try:
        job()
    finally:
        job.pop_request()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid(), current_setting('synchronous_commit')")
        pid, synchronous_commit = cursor.fetchone()
    return {
        "backend": pid,
        "backend_nice": _nice(pid),
        "synchronous_commit": synchronous_commit,
        "thread_nice": os.getpriority(os.PRIO_PROCESS, 0),
    }


def _in_a_thread(body) -> dict:
    out: dict = {}

    def run():
        try:
            out.update(body())
        except BaseException as exc:  # noqa: BLE001 - reported to the test below
            out["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(60)
    if "error" in out:
        raise out["error"]
    return out


@pytest.mark.django_db(transaction=True)
def test_a_bulk_jobs_connection_is_niced_and_commits_asynchronously_an_interactive_one_is_not(settings):
    settings.BULK_JOB_NICENESS, settings.BULK_JOB_ASYNC_COMMIT = 10, True
    base = os.getpriority(os.PRIO_PROCESS, 0)

    def body():
        bulk = _as_a_worker_runs_it(memory_decay)
        interactive = _as_a_worker_runs_it(dispatch_redeliver)
        return {"bulk": bulk, "interactive": interactive}

    seen = _in_a_thread(body)
    bulk, interactive = seen["bulk"], seen["interactive"]
    assert bulk["synchronous_commit"] == "off"
    assert bulk["thread_nice"] == min(19, base + 10)
    assert bulk["backend_nice"] >= 10
    assert interactive["synchronous_commit"] == "on"
    assert interactive["backend_nice"] < bulk["backend_nice"]  # given back, or a fresh backend
    if os.geteuid() == 0:  # only a privileged process may lower its niceness again
        assert interactive["thread_nice"] == base


@pytest.mark.django_db(transaction=True)
def test_with_the_settings_off_a_bulk_job_runs_like_any_other(settings):
    settings.BULK_JOB_NICENESS, settings.BULK_JOB_ASYNC_COMMIT = 0, False
    base = os.getpriority(os.PRIO_PROCESS, 0)

    bulk = _in_a_thread(lambda: _as_a_worker_runs_it(memory_decay))
    assert bulk["synchronous_commit"] == "on"
    assert bulk["thread_nice"] == base
    assert bulk["backend_nice"] < 10


@pytest.mark.django_db(transaction=True)
def test_a_bulk_job_pauses_while_interactive_work_goes_on_but_never_longer_than_it_worked(settings, tmp_path):
    settings.RUN_DIR, settings.BULK_YIELD_SECONDS = tmp_path, 2.0

    def body():
        priority.bulk_job_prepare()  # a bulk job starts
        alone = priority.bulk_job_yield()  # no turn on this machine yet: no pause
        time.sleep(0.3)  # it works
        priority.interactive_work_seen()  # a chat turn starts
        paused = priority.bulk_job_yield()
        return {
            "alone": alone,
            "paused": paused,
            "since_turn": time.time() - (tmp_path / "interactive-work-seen").stat().st_mtime,
        }

    seen = _in_a_thread(body)
    assert seen["alone"] == 0.0
    assert seen["paused"] >= 0.25  # it gave way to the turn ...
    assert seen["paused"] < 1.5  # ... but for no longer than it had worked, though the turn's window (2 s) is open
    assert seen["since_turn"] < 2.0


@pytest.mark.django_db(transaction=True)
def test_a_bulk_job_does_not_pause_once_the_interactive_work_is_over(settings, tmp_path):
    settings.RUN_DIR, settings.BULK_YIELD_SECONDS = tmp_path, 0.2

    def body():
        priority.bulk_job_prepare()
        time.sleep(1.0)
        priority.interactive_work_seen()
        time.sleep(0.3)  # the turn's window has passed
        return {"paused": priority.bulk_job_yield()}

    assert _in_a_thread(body)["paused"] == 0.0


@pytest.mark.django_db(transaction=True)
def test_a_request_that_changes_something_makes_bulk_jobs_pause_a_read_does_not(settings, tmp_path, client):
    settings.RUN_DIR, settings.BULK_YIELD_SECONDS = tmp_path, 1.0

    def pause_after(request) -> float:
        def body():
            priority.bulk_job_prepare()
            time.sleep(1.1)  # it has worked, and any earlier request's window has passed
            request()
            return {"paused": priority.bulk_job_yield()}

        return _in_a_thread(body)["paused"]

    assert pause_after(lambda: client.get("/healthz")) == 0.0
    assert pause_after(lambda: client.post("/api/v1/chat/", {}, content_type="application/json")) >= 0.5
