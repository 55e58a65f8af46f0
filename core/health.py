"""What /healthz reports: database, pgvector, broker and worker, each checked for real."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone


def check_database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
            cursor.execute("SHOW server_version")
            version = cursor.fetchone()[0]
    except Exception as exc:  # noqa: BLE001 - any failure is "down", reported as text
        return {"database": {"ok": False, "error": str(exc).strip()[:300]}, "pgvector": {"ok": False}}
    return {
        "database": {"ok": True, "version": version, "embedded": settings.USING_EMBEDDED_DB},
        "pgvector": {"ok": row is not None, "version": row[0] if row else None},
    }


def check_broker() -> dict:
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            transport = conn.transport_cls if isinstance(conn.transport_cls, str) else conn.transport.driver_name
    except Exception as exc:  # noqa: BLE001 - any failure is "down", reported as text
        return {"ok": False, "error": str(exc).strip()[:300]}
    return {"ok": True, "transport": str(transport)}


def check_worker() -> dict:
    from core.models import WorkerHeartbeat

    try:
        cutoff = timezone.now() - timedelta(seconds=settings.WORKER_HEARTBEAT_SECONDS * 3)
        alive = list(WorkerHeartbeat.objects.filter(last_seen__gte=cutoff).values_list("hostname", flat=True))
    except Exception as exc:  # noqa: BLE001 - any failure is "down", reported as text
        return {"ok": False, "error": str(exc).strip()[:300]}
    return {"ok": bool(alive), "workers": alive}


def health_report() -> dict:
    report = check_database()
    report["broker"] = check_broker()
    report["worker"] = check_worker() if report["database"]["ok"] else {"ok": False}
    ok = all(part["ok"] for part in report.values())
    return {"status": "ok" if ok else "degraded", **report}
