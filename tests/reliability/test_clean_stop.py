"""`make run` stops cleanly: SIGTERM (kill, systemd, a container runtime) or SIGINT (Ctrl-C) to
`manage.py runplatform` stops the web server, both workers and beat, also when its output pipe is gone; a start
that finds a stale platform on its port says so in one sentence and starts nothing. While it runs, the terminal
shows one block (addresses, logins, API key, logs) and each process writes to RUN_DIR/logs/<name>.log.

Real processes on 127.0.0.1 and a free port, on the test database (DATABASE_URL, so the platform never stops the
embedded server the tests use) and a queue of their own (so its workers take no job of the other tests)."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.db import connection

from tests.conftest import ROOT, worker_env
from tests.reliability.conftest import free_port

pytestmark = pytest.mark.django_db(transaction=True)
PROCESSES = ("web", "worker-interactive", "worker-bulk", "beat")

FAKE_PLATFORM = """
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"status": "ok"}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""


def platform_env(openai_server, run_dir: Path, port: int) -> dict:
    env = worker_env(openai_server)
    db = connection.settings_dict
    env.update(
        {
            "DATABASE_URL": f"postgres://{db['USER']}@/{db['NAME']}?host={db['HOST'] or db['OPTIONS']['host']}",
            "RUN_DIR": str(run_dir),
            "CELERY_QUEUE": f"clean-stop-{port}",
            "CELERY_CONCURRENCY": "2",
            "WEB_CONCURRENCY": "1",
        }
    )
    return env


def descendants(pid: int) -> set[int]:
    """Every process below `pid` (children, their pool processes, ...), read from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def running(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def read_until(proc: subprocess.Popen, marker: bytes, timeout: float = 120) -> bytes:
    """What the platform wrote to its stdout up to `marker`, read as it comes."""
    assert proc.stdout is not None
    out, seen = proc.stdout.fileno(), b""
    deadline = time.time() + timeout
    while marker not in seen and time.time() < deadline:
        if select.select([out], [], [], 1)[0]:
            chunk = os.read(out, 65536)
            assert chunk, f"runplatform closed its output before {marker!r}: {seen!r}"
            seen += chunk
    assert marker in seen, seen
    return seen


def wait_up(port: int, proc: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        assert proc.poll() is None, "runplatform exited before it was up"
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).close()
            return
        except urllib.error.HTTPError:  # 503 while a worker is not up yet: the web server answers
            return
        except OSError:
            time.sleep(0.5)
    raise AssertionError("runplatform did not come up")


@pytest.mark.parametrize(
    "number, pipe_gone", [(signal.SIGTERM, True), (signal.SIGINT, False)], ids=["SIGTERM-pipe-gone", "SIGINT"]
)
def test_a_stop_signal_ends_every_process_of_the_platform(openai_server, tmp_path, number, pipe_gone):
    port = free_port()
    log = open(tmp_path / "platform.err", "wb")
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "runplatform", "--port", str(port)],
        cwd=ROOT,
        env=platform_env(openai_server, tmp_path / "run", port),
        stdout=subprocess.PIPE,
        stderr=log,
        start_new_session=True,
    )
    started: set[int] = set()
    run_dir = tmp_path / "run"
    try:
        wait_up(port, proc)
        if pipe_gone:
            time.sleep(2)  # beat and workers started
        else:  # a person at the terminal sees one block, and no process's own output
            block = read_until(proc, b"Press Ctrl-C to stop.").decode()
            api_key = (run_dir / "demo-api-key").read_text().strip()
            assert "Platform is up." in block and f"http://127.0.0.1:{port}/admin/" in block, block
            assert api_key in block and "demo / " in block and f"{run_dir / 'logs'}/" in block, block
            assert "celery" not in block.lower() and "uvicorn" not in block.lower(), block
        # the workers print their banner once ready, a little after the web server answers (seconds on a loaded
        # machine): what is checked below is that it went to their log files, so wait until they are ready
        banners = {"worker-interactive": "interactive@", "worker-bulk": "bulk@"}
        deadline = time.time() + 60
        while time.time() < deadline and not all(
            (run_dir / "logs" / f"{name}.log").exists() and mark in (run_dir / "logs" / f"{name}.log").read_text()
            for name, mark in banners.items()
        ):
            time.sleep(0.3)
        started = descendants(proc.pid)
        assert len(started) >= 4, "web, two workers and beat"
        if pipe_gone:
            proc.stdout.close()  # the terminal or `| tee` went away: every later write fails
        proc.send_signal(number)
        proc.wait(60)
        deadline = time.time() + 30
        while running(started) and time.time() < deadline:
            time.sleep(0.3)
        assert running(started) == set(), (tmp_path / "platform.err").read_text()[-2000:]
        assert port_free(port)
        assert not (run_dir / f"platform-{port}.json").exists()
        logs = {name: (run_dir / "logs" / f"{name}.log").read_text() for name in PROCESSES}
        assert "Uvicorn running" in logs["web"] and "beat: Starting" in logs["beat"], logs
        assert "interactive@" in logs["worker-interactive"] and "bulk@" in logs["worker-bulk"], logs
    finally:
        for pid in running(started | {proc.pid}):  # only what this test started, by id
            os.kill(pid, signal.SIGKILL)
        if proc.stdout and not proc.stdout.closed:
            proc.stdout.close()
        log.close()


def _start_refused(openai_server, tmp_path, port) -> tuple[int, str]:
    started = time.time()
    done = subprocess.run(
        [sys.executable, "manage.py", "runplatform", "--port", str(port)],
        cwd=ROOT,
        env=platform_env(openai_server, tmp_path / "run", port),
        capture_output=True,
        timeout=180,
    )
    assert time.time() - started < 60
    return done.returncode, done.stderr.decode()


def test_a_start_on_a_port_a_stale_platform_holds_says_so_in_one_sentence(openai_server, tmp_path):
    port = free_port()
    stale = subprocess.Popen([sys.executable, "-c", FAKE_PLATFORM, str(port)])
    try:
        deadline = time.time() + 10
        while port_free(port) and time.time() < deadline:
            time.sleep(0.1)
        (tmp_path / "run").mkdir()
        (tmp_path / "run" / f"platform-{port}.json").write_text(json.dumps({"platform": 999999999, "web": stale.pid}))
        code, err = _start_refused(openai_server, tmp_path, port)
        assert code != 0
        sentence = err.strip().removeprefix("CommandError: ")
        assert sentence == (
            f"A platform from an earlier start is still running on 127.0.0.1:{port}; stop it (kill {stale.pid}) "
            f"or start this one on another port (make run PORT={port + 1})."
        ), err
        assert stale.poll() is None  # the stale platform was left alone, nothing else took its port
    finally:
        stale.kill()
        stale.wait()


def test_a_start_on_a_port_another_program_holds_says_so(openai_server, tmp_path):
    port = free_port()
    with socket.socket() as other:
        other.bind(("127.0.0.1", port))
        other.listen()
        code, err = _start_refused(openai_server, tmp_path, port)
    assert code != 0
    assert err.strip().removeprefix("CommandError: ") == (
        f"Port {port} on 127.0.0.1 is taken by another program; stop it or start the platform on another port "
        f"(make run PORT={port + 1})."
    ), err
