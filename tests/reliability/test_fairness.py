"""Fairness between tenants on the bulk queue (issue 18): a tenant's bulk jobs beyond its limit wait, so another
tenant's bulk job gets a free worker, and the waiting job is not lost: it runs once the first one ends."""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection

from core.models import JobRecord
from tenancy.models import ErasureReceipt, Message
from tests.conftest import wait_for
from tests.factories import MemoryNoteFactory, TenantFactory
from tests.reliability.conftest import needs
from tests.reliability.test_worker_killed import _waiting_on_lock, conversation

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True), needs("admin")]


@pytest.fixture
def two_workers(own_broker_worker):
    return [own_broker_worker({"BULK_JOB_WAIT_SECONDS": "1"}, name=f"fair-{i}") for i in range(2)]


def test_one_tenants_bulk_backlog_leaves_a_worker_for_another_tenant(two_workers):
    from assistants.services.privacy import user_erase_request

    big, small = TenantFactory(slug="big-co"), TenantFactory(slug="小店")
    first = conversation(big, [f"订单{i}：客户电话 1390000{i:04d}" for i in range(6)])
    second = conversation(big, ["Second user of the big tenant, order #A-17"])
    other = conversation(small, ["我是小店的用户，想订一个蛋糕。"])
    for session in (first, second, other):
        MemoryNoteFactory(tenant=session.tenant, end_user=session.end_user, content="a note")
    last_message = Message.objects.for_tenant(big).filter(session=first).order_by("-id").first()

    locker = psycopg.connect(**connection.get_connection_params(), autocommit=False)
    try:
        # The big tenant's first bulk job runs and takes a long time (held on a row lock).
        locker.execute("SELECT id FROM assistants_message WHERE id = %s FOR UPDATE", [last_message.pk])
        job_1 = user_erase_request(tenant=big, end_user=first.end_user, requested_by="test-suite")
        wait_for(
            lambda: _waiting_on_lock(connection.settings_dict["NAME"]),
            timeout=30,
            message="the big tenant's first erasure to be running",
        )
        job_2 = user_erase_request(tenant=big, end_user=second.end_user, requested_by="test-suite")
        job_small = user_erase_request(tenant=small, end_user=other.end_user, requested_by="test-suite")
        # The second worker is free, but the big tenant is at its limit (1): the small tenant's job gets it.
        wait_for(
            lambda: JobRecord.objects.filter(pk=job_small.pk, status="succeeded").exists(),
            timeout=60,
            message="the small tenant's erasure while the big tenant's backlog waits",
        )
        waiting = JobRecord.objects.get(pk=job_2.pk)
        assert waiting.status == "queued" and waiting.attempts == 0  # never started: it waits, it is not lost
        assert ErasureReceipt.objects.for_tenant(small).count() == 1
        assert not ErasureReceipt.objects.for_tenant(big).exists()
    finally:
        locker.rollback()
        locker.close()
    wait_for(
        lambda: JobRecord.objects.filter(pk__in=[job_1.pk, job_2.pk], status="succeeded").count() == 2,
        timeout=60,
        message="the big tenant's jobs once its first one ended",
    )
    assert ErasureReceipt.objects.for_tenant(big).count() == 2
    assert JobRecord.objects.get(pk=job_2.pk).attempts == 1  # it ran once
