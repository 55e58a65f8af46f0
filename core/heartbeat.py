"""Each Celery worker writes a heartbeat row every WORKER_HEARTBEAT_SECONDS; /healthz reads it.

A broker-independent liveness signal: kombu's filesystem transport has no broadcast, so `control.ping()`
cannot be used on the default run."""

from __future__ import annotations

import socket
import threading

from celery.signals import worker_ready, worker_shutdown
from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

_stop = threading.Event()


def _hostname(sender) -> str:
    return getattr(sender, "hostname", None) or socket.gethostname()


def _beat(hostname: str) -> None:
    from core.models import WorkerHeartbeat

    while not _stop.is_set():
        try:
            close_old_connections()
            WorkerHeartbeat.objects.update_or_create(hostname=hostname, defaults={"last_seen": timezone.now()})
        except Exception:  # noqa: BLE001 - the database may be restarting; the next beat retries
            pass
        _stop.wait(settings.WORKER_HEARTBEAT_SECONDS)


@worker_ready.connect
def start_heartbeat(sender=None, **kwargs):
    _stop.clear()
    threading.Thread(target=_beat, args=(_hostname(sender),), daemon=True, name="heartbeat").start()


@worker_shutdown.connect
def stop_heartbeat(sender=None, **kwargs):
    from core.models import WorkerHeartbeat

    _stop.set()
    try:
        WorkerHeartbeat.objects.filter(hostname=_hostname(sender)).delete()
    except Exception:  # noqa: BLE001 - a worker shutting down must not fail on its heartbeat row; it expires
        pass
