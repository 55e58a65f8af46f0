"""A thread that writes this process's metering buffer every USAGE_FLUSH_SECONDS, for work that no request or job
end follows (the MCP endpoint is not a Django request). Started once per process by what needs it."""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import connection

from core.metering import usage_buffer_size
from usage.services import usage_flush

logger = logging.getLogger(__name__)
_flusher: dict[str, threading.Thread] = {}
_flusher_lock = threading.Lock()


def _flush_every(seconds: float) -> None:
    stop = threading.Event()
    while not stop.wait(seconds):
        if not usage_buffer_size():
            continue
        try:
            usage_flush()
        except Exception:  # noqa: BLE001 - the next tick tries again; the events stay in the buffer
            logger.warning("usage: the periodic flush failed")
        finally:
            connection.close()  # this thread's own connection: not kept between ticks


def usage_flusher_start() -> None:
    """A thread that writes the buffer every USAGE_FLUSH_SECONDS, for work no request or job end follows (the MCP
    endpoint, which is not a Django request); started once per process, never when the setting is 0 (tests)."""
    seconds = float(getattr(settings, "USAGE_FLUSH_SECONDS", 0) or 0)
    if seconds <= 0 or "thread" in _flusher:
        return
    with _flusher_lock:
        if "thread" not in _flusher:
            _flusher["thread"] = threading.Thread(target=_flush_every, args=(seconds,), name="usage-flush", daemon=True)
            _flusher["thread"].start()
