"""Deleting a session while a job writes rows that point at it (an import step embedding its messages) does not fail
on the job's rows: the job's commit cannot slip in between the delete collecting what points at the session and
deleting it (the delete locks the session row first), so the person's delete succeeds and the job's late write is
refused (it retries and finds the session gone)."""

from __future__ import annotations

import threading

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.models import deletion
from django.utils import timezone

from assistants.services.sessions import session_delete
from memory.models import MessageVector
from memory.services.vectors.embeddings import embed_texts
from tenancy.models import ChatSession, Message
from tests.chat.helpers import make_session


@pytest.mark.django_db(transaction=True)
def test_a_job_committing_vectors_mid_delete_cannot_fail_the_delete(monkeypatch):
    session = make_session()
    other = make_session()  # another tenant's session, untouched
    tenant, user = session.tenant, session.end_user
    message = Message.objects.for_tenant(tenant).create(
        tenant=tenant, session=session, end_user=user, role=Message.Role.USER, content="I moved to Lisbon."
    )
    model, (vector,) = embed_texts(texts=[message.content])
    inserted, collected, job_errors = threading.Event(), threading.Event(), []

    def job() -> None:  # the import step: its vector is inserted, and it commits while the delete is under way
        try:
            with transaction.atomic():
                MessageVector.objects.for_tenant(tenant).create(
                    tenant=tenant,
                    end_user=user,
                    session=session,
                    message=message,
                    chunk=0,
                    embedding=vector,
                    embedding_model=model,
                    said_at=timezone.now(),
                )
                inserted.set()
                collected.wait(10)
        except IntegrityError as exc:
            job_errors.append(exc)
        finally:
            connection.close()

    collector_delete = deletion.Collector.delete

    def delete_after_the_job_tried_to_commit(self):
        collected.set()  # what points at the session has been collected: now the job commits, or tries to
        worker.join(1.5)
        return collector_delete(self)

    monkeypatch.setattr(deletion.Collector, "delete", delete_after_the_job_tried_to_commit)
    worker = threading.Thread(target=job)
    worker.start()
    assert inserted.wait(10)
    session_delete(tenant=tenant, session=session, end_user=user)  # no IntegrityError for the person deleting
    worker.join(10)
    assert len(job_errors) == 1  # the job's late vector was refused, not the delete
    assert not ChatSession.objects.unscoped().filter(pk=session.pk).exists()
    assert not MessageVector.objects.unscoped().filter(session_id=session.pk).exists()
    assert ChatSession.objects.unscoped().filter(pk=other.pk).exists()
