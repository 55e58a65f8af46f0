"""How `make run` (core.management.commands.runplatform) starts and stops its processes: each child dies with
the platform and writes its output to a log file of its own (RUN_DIR/logs/<name>.log, so that the terminal shows
only what a person needs), a start on a port that is taken says so in one sentence, and a record of the running
platform (RUN_DIR/platform-<port>.json) names the processes a later start finds on its port."""

from __future__ import annotations

import ctypes
import errno
import json
import os
import signal
import socket
import sys
import urllib.request
from pathlib import Path

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def die_with_parent() -> None:
    """preexec_fn of every child: the kernel sends it SIGTERM when the platform process ends, however it ends
    (even SIGKILL, which no handler sees), so no web server or worker outlives it on the port."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def record_path(run_dir: Path, port: int) -> Path:
    return Path(run_dir) / f"platform-{port}.json"


def record_write(run_dir: Path, port: int, pids: dict[str, int]) -> None:
    """Note the running platform's process ids (`pids` by name, "platform" the parent) for a later start."""
    path = record_path(run_dir, port)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(pids))


def record_remove(run_dir: Path, port: int) -> None:
    record_path(run_dir, port).unlink(missing_ok=True)


def log_path(run_dir: Path, name: str) -> Path:
    return Path(run_dir) / "logs" / f"{name}.log"


def log_open(run_dir: Path, name: str):
    """The log file one process of this start writes its stdout and stderr to, emptied first: it holds this start's
    output only, and `make logs` (tail -F) follows it across restarts."""
    path = log_path(run_dir, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    return path.open("wb")


def log_last_line(path: Path) -> str:
    """The last non-blank line of a log (what a process said as it died), or "" when there is none."""
    try:
        with path.open("rb") as log:
            log.seek(max(0, log.seek(0, os.SEEK_END) - 4000))
            lines = log.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    return next((line.strip() for line in reversed(lines) if line.strip()), "")


def shown_path(path: Path) -> str:
    """A path as a person at the project folder would type it: relative when it is under the working directory."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _port_taken(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is not "taken"
        try:
            probe.bind((host, port))
        except OSError as exc:
            return exc.errno == errno.EADDRINUSE
    return False


def _answers_like_a_platform(host: str, port: int) -> bool:
    name = f"[{host}]" if ":" in host else host
    try:
        with urllib.request.urlopen(f"http://{name}:{port}/healthz", timeout=3) as response:
            return "status" in json.loads(response.read(2000) or b"{}")
    except urllib.error.HTTPError as exc:  # 503: a platform with a part down still answers {"status"}
        try:
            return "status" in json.loads(exc.read(2000) or b"{}")
        except ValueError:
            return False
    except (OSError, ValueError):
        return False


def port_taken_sentence(host: str, port: int, run_dir: Path) -> str | None:
    """None when the platform can start on host:port; else one sentence that says what holds it and what to do."""
    if not _port_taken(host, port):
        return None
    if not _answers_like_a_platform(host, port):
        return (
            f"Port {port} on {host} is taken by another program; stop it or start the platform on another port "
            f"(make run PORT={port + 1})."
        )
    try:
        recorded = json.loads(record_path(run_dir, port).read_text())
        pids = sorted({int(pid) for pid in recorded.values() if _alive(int(pid))})
    except (OSError, ValueError, TypeError, AttributeError):
        pids = []
    stop = f"stop it (kill {' '.join(map(str, pids))})" if pids else "stop it"
    return (
        f"A platform from an earlier start is still running on {host}:{port}; {stop} or start this one on another "
        f"port (make run PORT={port + 1})."
    )
