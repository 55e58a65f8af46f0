"""Interactive work never waits behind bulk work (issue 18): a turn's extraction goes to the interactive queue,
a tenant's re-embedding, imports and erasures to the bulk queue, and `make run` keeps a worker slot that serves
only the interactive queue."""

from __future__ import annotations

import pytest
from django.conf import settings

from bench.common import queue_depth
from core.dispatch import enqueue_now
from core.management.commands.runplatform import worker_commands
from core.models import JobRecord
from tests.conftest import wait_for
from tests.factories import AssistantFactory, TenantFactory
from tests.reliability.test_extraction_faults import user_message


def test_make_run_keeps_a_slot_for_interactive_work(monkeypatch):
    for concurrency, shared in (("2", "1"), ("4", "3"), ("1", "1")):
        monkeypatch.setenv("CELERY_CONCURRENCY", concurrency)
        workers = worker_commands("python")
        interactive, bulk = workers["worker-interactive"], workers["worker-bulk"]
        assert interactive[interactive.index("-Q") + 1] == settings.CELERY_TASK_DEFAULT_QUEUE
        assert interactive[interactive.index("--concurrency") + 1] == "1"
        assert bulk[bulk.index("-Q") + 1].split(",") == [settings.CELERY_BULK_QUEUE, settings.CELERY_TASK_DEFAULT_QUEUE]
        assert bulk[bulk.index("--concurrency") + 1] == shared


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_turns_extraction_runs_while_another_tenants_bulk_work_waits(own_broker_worker):
    from memory.jobs import memory_extract, memory_reembed

    big, small = TenantFactory(slug="big-importer"), TenantFactory(slug="small-shop")
    AssistantFactory(tenant=small)
    for _ in range(3):
        enqueue_now(memory_reembed, big.pk)  # the backlog of the big tenant
    message = user_message(small, "I'm vegetarian and my budget is about 3,000 euros. 我住在杭州。")
    enqueue_now(memory_extract, small.pk, message.pk)

    # The worker of `make run`'s interactive slot: the bulk backlog cannot occupy it.
    worker = own_broker_worker(queues=settings.CELERY_TASK_DEFAULT_QUEUE, name="interactive")
    try:
        wait_for(
            lambda: JobRecord.objects.filter(idempotency_key=f"extract:{message.pk}", status="succeeded").exists(),
            timeout=60,
            message="the small tenant's extraction",
        )
        assert queue_depth(settings.CELERY_BULK_QUEUE) == 3
        assert not JobRecord.objects.filter(kind="memory_reembed").exists()
    finally:
        worker.stop()
    shared = own_broker_worker(name="shared")
    try:
        wait_for(
            lambda: JobRecord.objects.filter(kind="memory_reembed", tenant=big, status="succeeded").count() == 3,
            timeout=60,
            message="the bulk jobs, once a bulk slot serves them",
        )
    finally:
        shared.stop()
