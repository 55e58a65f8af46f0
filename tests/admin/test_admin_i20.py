"""The admin at the standard support staff expect: an audited bulk forget instead of Django's hard delete, actions
by state on a note's page, an audit log with consistent actors, filters by actor, action and date, automatic
supersedes recorded, erasure with a reason and an erasure lookup by external id that answers from the receipts."""

from __future__ import annotations

from django.test import Client
from django.urls import reverse
from django.utils import timezone

from assistants.services.chat import chat_session_start, chat_turn
from assistants.services.privacy import user_erase, user_erase_request, user_id_hash
from memory.models import AuditLog, MemoryNote
from memory.services.writing.extraction import memory_extract_for_message
from tenancy.models import ErasureReceipt
from tests.factories import EndUserFactory


def changelist(client, params=None):
    return client.get(reverse("admin:memory_memorynote_changelist"), params or {})


def test_bulk_delete_is_gone_and_bulk_forget_is_audited(admin_client_root, world):
    acme = world["acme"]["person"]["notes"]
    globex = world["globex"]["person"]["notes"]
    page = changelist(admin_client_root)
    actions = [choice[0] for choice in page.context["action_form"].fields["action"].choices]
    assert "delete_selected" not in actions and "forget" in actions
    url = reverse("admin:memory_memorynote_changelist")
    admin_client_root.post(url, {"action": "delete_selected", "_selected_action": [acme[1].pk], "post": "yes"})
    assert MemoryNote.objects.for_tenant(acme[1].tenant).filter(pk=acme[1].pk).exists()  # nothing deleted
    assert (
        admin_client_root.post(
            reverse("admin:memory_memorynote_delete", args=[acme[1].pk]), {"post": "yes"}
        ).status_code
        == 403
    )

    chosen = [acme[1], acme[2]]  # an active and a pending note
    response = admin_client_root.post(
        url, {"action": "forget", "_selected_action": [n.pk for n in chosen]}, follow=True
    )
    assert "Forgot 2 notes." in response.content.decode()
    for note in chosen:
        note.refresh_from_db()
        assert note.status == "forgotten" and note.content == ""
        row = AuditLog.objects.for_tenant(note.tenant).filter(object_id=str(note.pk), action="forget").get()
        assert row.actor == "admin:root"
    untouched = MemoryNote.objects.for_tenant(globex[1].tenant).get(pk=globex[1].pk)
    assert untouched.status == "active" and untouched.content


def test_staff_cannot_forget_another_tenants_notes(staff_client_a, world):
    theirs = world["globex"]["person"]["notes"][1]
    staff_client_a.post(
        reverse("admin:memory_memorynote_changelist"), {"action": "forget", "_selected_action": [theirs.pk]}
    )
    theirs.refresh_from_db()
    assert theirs.status == "active" and theirs.content
    assert not AuditLog.objects.for_tenant(theirs.tenant).filter(object_id=str(theirs.pk), action="forget").exists()


def test_a_notes_page_offers_only_the_actions_its_state_allows(admin_client_root, world):
    old, new, pending, forgotten = world["acme"]["person"]["notes"]

    def buttons(note):
        page = admin_client_root.get(reverse("admin:memory_memorynote_change", args=[note.pk])).content.decode()
        return {
            verb
            for verb in ("approve", "reject", "expire", "pin", "unpin", "forget")
            if reverse("admin:memory_memorynote_moderate", args=[note.pk, verb]) in page
        }

    assert buttons(pending) == {"approve", "reject", "forget"}
    assert buttons(new) == {"expire", "pin", "forget"}
    assert buttons(old) == {"forget"}  # superseded: history, which can still be forgotten
    assert buttons(forgotten) == set()
    admin_client_root.post(reverse("admin:memory_memorynote_moderate", args=[new.pk, "pin"]))
    assert buttons(new) == {"expire", "unpin", "forget"}


def test_automatic_supersedes_are_audited_and_the_log_filters_by_actor_action_and_date(admin_client_root, world):
    tenant = world["acme"]["tenant"]
    person = EndUserFactory(tenant=tenant, external_id="mover")
    session = chat_session_start(tenant=tenant, end_user=person)
    for text in ("I live in Hangzhou.", "I moved: I live in Shanghai now."):
        turn = chat_turn(tenant=tenant, session=session, text=text)
        memory_extract_for_message(tenant_id=tenant.pk, message_id=turn.user_message.pk)
    superseded = MemoryNote.objects.for_tenant(tenant).get(end_user=person, status="superseded")
    current = MemoryNote.objects.for_tenant(tenant).get(end_user=person, status="active")
    assert "Hangzhou" in superseded.content and "Shanghai" in current.content
    row = AuditLog.objects.for_tenant(tenant).get(object_id=str(superseded.pk), action="supersede")
    assert row.actor == "job:memory_extract" and row.after["superseded_by"] == current.pk
    assert row.before["status"] == "active" and row.after["status"] == "superseded"

    url = reverse("admin:memory_auditlog_changelist")
    jobs = admin_client_root.get(url, {"actor_kind": "system job"}).context["cl"].result_list
    assert row in jobs and all(r.actor.startswith(("job:", "system")) for r in jobs)
    staff = admin_client_root.get(url, {"actor_kind": "staff"}).context["cl"].result_list
    assert staff and all(r.actor.startswith("admin:") for r in staff)
    users = admin_client_root.get(url, {"actor_kind": "end user"}).context["cl"].result_list
    assert users and all(r.actor.startswith(("user:", "end_user:")) for r in users)
    page = admin_client_root.get(url, {"actor_kind": "end user"}).content.decode()
    assert "end user: u-1" in page and "staff: someone" not in page
    supersedes = admin_client_root.get(url, {"action": "supersede"}).context["cl"].result_list
    assert list(supersedes) == [row]
    today = timezone.localdate()
    dated = admin_client_root.get(url, {"created_at__gte": today.isoformat()}).context["cl"].result_list
    assert row in dated
    AuditLog.objects.for_tenant(tenant).filter(pk=row.pk).update(
        created_at=timezone.now() - timezone.timedelta(days=40)
    )
    dated = admin_client_root.get(url, {"created_at__gte": today.isoformat()}).context["cl"].result_list
    assert row not in dated
    assert admin_client_root.get(url, {"created_at__year": today.year}).status_code == 200  # date hierarchy


def test_erasure_keeps_a_reason_and_the_lookup_answers_from_receipts(admin_client_root, world):
    acme, globex = world["acme"]["tenant"], world["globex"]["tenant"]
    person = world["acme"]["person"]["user"]
    job = user_erase_request(
        tenant=acme,
        end_user=person,
        requested_by="admin:root",
        enqueue=False,
        reason="GDPR art. 17 request, ticket 4411",
    )
    user_erase(tenant_id=acme.pk, end_user_id=person.pk, requested_by="admin:root", job_id=job.pk)
    receipt = ErasureReceipt.objects.for_tenant(acme).get(job=job)
    assert receipt.reason == "GDPR art. 17 request, ticket 4411"
    assert receipt.user_id_hash == user_id_hash("u-1")

    lookup = reverse("admin:tenancy_erasurereceipt_lookup")
    assert lookup in admin_client_root.get(reverse("admin:tenancy_erasurereceipt_changelist")).content.decode()
    page = admin_client_root.post(lookup, {"tenant": acme.pk, "external_id": "u-1"}).content.decode()
    assert "GDPR art. 17 request, ticket 4411" in page and "staff: root" in page
    assert reverse("admin:tenancy_erasurereceipt_change", args=[receipt.pk]) in page
    assert 'value="u-1"' not in page  # the id typed is not echoed back
    page = admin_client_root.post(lookup, {"tenant": globex.pk, "external_id": "u-1"}).content.decode()
    assert "No erasure receipt" in page  # the same id in another tenant was not erased
    page = admin_client_root.post(lookup, {"tenant": acme.pk, "external_id": "u-2"}).content.decode()
    assert "No erasure receipt" in page
    assert admin_client_root.post(lookup, {"tenant": acme.pk, "external_id": ""}).context["answer"] is None

    # Staff of one tenant can only look up in their own.
    staff_client_a = Client()
    staff_client_a.force_login(world["acme"]["staff"])
    refused = staff_client_a.post(lookup, {"tenant": globex.pk, "external_id": "u-1"})
    assert refused.status_code == 200 and refused.context["answer"] is None
    assert staff_client_a.post(lookup, {"tenant": acme.pk, "external_id": "u-1"}).context["answer"]["receipts"]
