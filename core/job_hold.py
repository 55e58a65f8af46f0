"""A hold on a background job before it runs: a higher layer's check, plugged in by name (JOB_HOLD_CHECK), says
how long a job must wait (the usage app: while its tenant is over a hard usage limit). A held job keeps
its outbox row and is sent again after the wait (core.dispatch), so nothing is lost and nothing fails."""

from __future__ import annotations

import logging

from django.conf import settings
from django.utils.module_loading import import_string

logger = logging.getLogger(__name__)


def job_hold_seconds(name: str, args) -> float | None:
    """Seconds job `name` with `args` must wait before it may run, or None. A failing check never holds a job."""
    path = getattr(settings, "JOB_HOLD_CHECK", "")
    if not path:
        return None
    try:
        return import_string(path)(name, list(args))
    except Exception:
        logger.exception("the job hold check %s failed; the job runs", path)
        return None
