"""What every workload shares: percentiles, timers, the job-drain wait, tenants and the HTTP client."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from config.queues import bulk_queue_name

T = TypeVar("T")


def percentiles(samples_ms: list[float]) -> dict:
    """p50/p95/p99/mean/n of a list of milliseconds (nearest-rank percentiles, no interpolation)."""
    if not samples_ms:
        return {"n": 0, "p50": None, "p95": None, "p99": None, "mean": None}
    data = sorted(samples_ms)

    def rank(p: float) -> float:
        return data[max(0, math.ceil(p / 100 * len(data)) - 1)]

    return {
        "n": len(data),
        "p50": round(rank(50), 3),
        "p95": round(rank(95), 3),
        "p99": round(rank(99), 3),
        "mean": round(statistics.fmean(data), 3),
    }


def timed_ms(fn: Callable[..., T], *args, **kwargs) -> tuple[float, T]:
    start = time.perf_counter()
    value = fn(*args, **kwargs)
    return (time.perf_counter() - start) * 1000, value


def queue_depth(queue: str) -> int:
    """Messages waiting in the broker queue (works for Redis and kombu's filesystem transport)."""
    from config.celery import app

    with app.connection_for_read() as conn:
        try:
            # kombu-stubs' StdChannel omits queue_declare, which every transport's channel has (a stubs gap)
            return conn.default_channel.queue_declare(queue=queue, passive=True).message_count  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a queue nobody declared yet is empty
            return 0


def jobs_in_flight() -> int:
    from core.models import JobRecord

    return JobRecord.objects.filter(status__in=[JobRecord.Status.QUEUED, JobRecord.Status.RUNNING]).count()


def wait_jobs_idle(queue: str, timeout: float = 600.0, settle: float = 0.2, interval: float = 0.05) -> float:
    """Block until the broker queue is empty and no ledger job is queued or running, for `settle` seconds.

    Returns the seconds waited. Raises TimeoutError after `timeout` (a stuck worker must not hang the run).
    A job the worker took but has not yet recorded is covered by `settle` (it records within milliseconds)."""
    start = time.monotonic()
    quiet_since = None
    while True:
        busy = queue_depth(queue) > 0 or queue_depth(bulk_queue_name(queue)) > 0 or jobs_in_flight() > 0
        now = time.monotonic()
        if busy:
            quiet_since = None
        elif quiet_since is None:
            quiet_since = now
        elif now - quiet_since >= settle:
            return now - start
        if now - start > timeout:
            raise TimeoutError(f"jobs still running after {timeout:.0f}s (queue {queue})")
        time.sleep(interval)


@dataclass
class BenchContext:
    """Where a workload runs. `queue` is the Celery queue the worker listens on; `base_url` is a running API server
    (None: requests go through Django's in-process client). `log` prints progress."""

    queue: str
    base_url: str | None = None
    log: Callable[[str], None] = print
    notes: list[str] = field(default_factory=list)

    def wait_idle(self, timeout: float = 900.0) -> float:
        return wait_jobs_idle(self.queue, timeout=timeout)

    def note(self, text: str) -> None:
        """A caveat that goes into the results file and the markdown table."""
        self.log(f"note: {text}")
        self.notes.append(text)


def bench_tenant(slug: str):
    """A fresh tenant (one assistant, one API key) for one workload. Returns (tenant, raw API key).

    The slug gets a random suffix: deleting a tenant with 100k notes would cost more than the workload itself."""
    import secrets

    from assistants.services.tenants import tenant_create

    return tenant_create(slug=f"{slug}-{secrets.token_hex(3)}", name=slug)


class ApiClient:
    """JSON requests with a tenant key, over HTTP to `base_url` or through Django's in-process test client."""

    def __init__(self, raw_key: str, base_url: str | None = None, timeout: float = 600.0):
        self.headers = {"Authorization": f"Bearer {raw_key}"}
        self.base_url = base_url
        if base_url:
            import httpx

            self._http = httpx.Client(base_url=base_url, headers=self.headers, timeout=timeout)
        else:
            from django.test import Client

            self._django = Client(HTTP_AUTHORIZATION=self.headers["Authorization"])

    def post(self, path: str, payload: dict) -> tuple[int, dict]:
        if self.base_url:
            resp = self._http.post(path, json=payload)
            return resp.status_code, _json_or_text(resp.content)
        local = self._django.post(path, data=payload, content_type="application/json")
        return local.status_code, _json_or_text(local.content)

    def get(self, path: str) -> tuple[int, dict]:
        if self.base_url:
            resp = self._http.get(path)
            return resp.status_code, _json_or_text(resp.content)
        local = self._django.get(path)
        return local.status_code, _json_or_text(local.content)

    def close(self) -> None:
        if self.base_url:
            self._http.close()


def _json_or_text(content: bytes):
    import json

    try:
        return json.loads(content or b"null")
    except ValueError:
        return {"raw": content[:300].decode(errors="replace")}


def has_cjk(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in text or "")
