"""The outbox (issue 18): a job is recorded in PostgreSQL with the data it is about, in the same transaction, and a
copy of a job that already completed does nothing."""

from __future__ import annotations

import time

import pytest
from django.db import transaction

from core.dispatch import DISPATCH_KIND, enqueue_now, enqueue_on_commit
from core.ledger import job_record_create
from core.models import JobRecord
from tasks.jobs import platform_ping
from tests.conftest import wait_for


def _outbox_rows():
    return list(JobRecord.objects.filter(kind=DISPATCH_KIND))


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_request_leaves_no_job_and_a_committed_one_leaves_its_job_in_the_outbox():
    with pytest.raises(RuntimeError):
        with transaction.atomic():
            job = job_record_create(kind="ping")
            enqueue_on_commit(platform_ping, job.pk)
            assert len(_outbox_rows()) == 1  # written in the request's own transaction
            raise RuntimeError("the request failed")
    assert _outbox_rows() == [] and not JobRecord.objects.filter(kind="ping").exists()

    with transaction.atomic():
        job = job_record_create(kind="ping")
        enqueue_on_commit(platform_ping, job.pk)
    [row] = _outbox_rows()
    assert row.progress == {"job": "tasks.jobs.platform_ping", "args": [job.pk], "kwargs": {}}
    # Sent (no worker is running in this test): it waits under its start lease, and is re-sent if it never starts.
    assert row.status == "queued" and row.lease_expires_at is not None and row.error == ""


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_late_copy_of_a_completed_job_does_nothing(celery_worker):
    job = job_record_create(kind="ping")
    enqueue_now(platform_ping, job.pk)
    wait_for(
        lambda: JobRecord.objects.filter(kind=DISPATCH_KIND, status="succeeded").exists(),
        message="the ping to complete",
    )
    [row] = _outbox_rows()
    assert row.attempts == 1 and row.lease_expires_at is None
    # A broker redelivering the same message (or a re-send that crossed the completion): same task id.
    platform_ping.apply_async((job.pk,), task_id=f"outbox-{row.pk}")
    second = job_record_create(kind="ping")
    enqueue_now(platform_ping, second.pk)  # sent after the copy: once it is done, the copy was handled
    wait_for(lambda: JobRecord.objects.filter(pk=second.pk, status="succeeded").exists(), message="the second ping")
    time.sleep(0.5)
    row.refresh_from_db()
    assert row.status == "succeeded" and row.attempts == 1  # the copy did not run the job again
    assert JobRecord.objects.get(pk=job.pk).attempts == 1
