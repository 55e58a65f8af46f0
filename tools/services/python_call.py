"""Calling a Python tool (ASSISTANT_PYTHON_TOOLS) in a thread of its own, bounded by the tool's timeout.

Python cannot stop a thread. A call still running at its timeout is reported as `timeout` and the turn goes on
without it, but the function runs on until it returns: the thread is a daemon (it never holds up the process's
exit), and a tool that can hang should bound its own waits (timeouts on its sockets, its queries). The thread has
a database connection of its own, closed when the function returns, and sees only committed data."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from django.db import connections

from core.exceptions import ApplicationError

logger = logging.getLogger(__name__)


class PythonCall:
    """One call, started at once; `answer()` waits until its timeout at most and says how it ended."""

    def __init__(self, *, name: str, run: Callable[..., Any], args: tuple, arguments: dict, timeout: float):
        self.name, self.timeout = name, timeout
        self._value: Any = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(run, args, arguments), daemon=True, name=f"python-tool-{name}"
        )
        self._deadline = time.monotonic() + timeout
        self._thread.start()

    def _run(self, run: Callable[..., Any], args: tuple, arguments: dict) -> None:
        try:
            self._value = run(*args, **arguments)
        except BaseException as exc:  # noqa: BLE001 - whatever the tool raised is its result, reported by answer()
            self._error = exc
        finally:
            connections.close_all()  # this thread's connections only (they are per thread)

    def answer(self) -> tuple[str, Any]:
        """(status, value): ("ok", what the function returned), ("timeout" | "error" | "refused", a sentence)."""
        self._thread.join(max(0.0, self._deadline - time.monotonic()))
        if self._thread.is_alive():
            logger.warning("python tool %s still running after %g s", self.name, self.timeout)
            return "timeout", f"The tool did not finish within {self.timeout:g} s."
        if isinstance(self._error, ApplicationError):  # a sentence written for the caller
            return "refused", self._error.message
        if self._error is not None:  # a tool bug must not cost the turn; only its type is logged
            logger.error("tool %s failed: %s", self.name, type(self._error).__name__)
            return "error", f"The tool failed ({type(self._error).__name__})."
        return "ok", self._value
