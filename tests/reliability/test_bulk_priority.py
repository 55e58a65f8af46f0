"""A bulk job gives way to interactive work (issue 18, core/priority.py): run through the Celery app's task class as
a worker runs it, a bulk job leaves its thread and its PostgreSQL backend nicer and its commits asynchronous; an
interactive job run next by the same worker process gets normal priority and synchronous commits back.

Each case runs in a thread of its own: niceness on Linux belongs to the thread, so the test process keeps its own.
"""

from __future__ import annotations

import os
import threading

import pytest
from django.db import connection

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
