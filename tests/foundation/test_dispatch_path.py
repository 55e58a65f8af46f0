"""Every job is sent through core.dispatch (the outbox): a direct `.delay(...)`, `.apply_async(...)` or
`send_task(...)` anywhere else sends a job that a broker outage loses and that the ledger never sees.

The scan reads the source with `ast`, so a call in a comment or a string does not count and an aliased call
(`job.apply_async`, `app.send_task`) does. Tests are exempt: they call Celery directly on purpose, to put a message
on the broker behind the outbox's back (duplicate deliveries, lost jobs)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SENDING = {"delay", "apply_async", "send_task", "delay_on_commit", "apply_async_on_commit"}
ALLOWED = {Path("core/dispatch.py")}  # the one dispatch path
SKIPPED_DIRS = {"tests", ".venv", "node_modules", "migrations", "static", ".git", ".pgdata"}


def direct_sends(root: Path) -> list[str]:
    """`path:line: name(...)` for every call of a job-sending method outside the allowed modules."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel in ALLOWED or any(part in SKIPPED_DIRS or part.startswith(".") for part in rel.parts[:-1]):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(rel))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SENDING:
                found.append(f"{rel}:{node.lineno}: {node.func.attr}(...)")
    return found


def test_no_module_sends_a_job_around_core_dispatch():
    assert direct_sends(ROOT) == [], "send jobs with core.dispatch.enqueue_on_commit/enqueue_now/enqueue_later"


def test_the_scan_finds_a_direct_send(tmp_path):
    """The scan itself can fail: a module that calls `.delay` and one that calls `send_task` are reported, a
    mention in a comment or string is not."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "services.py").write_text(
        "from app.jobs import job\n# job.delay(1) in a comment\nHELP = 'call job.delay(1)'\n"
        "def f():\n    job.delay(1)\n"
    )
    (tmp_path / "app" / "beat.py").write_text("def g(app):\n    app.send_task('x', args=[1])\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("def test():\n    job.apply_async((1,))\n")
    assert direct_sends(tmp_path) == ["app/beat.py:2: send_task(...)", "app/services.py:5: delay(...)"]
