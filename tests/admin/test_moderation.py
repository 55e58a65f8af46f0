"""Moderation actions change what is recalled, re-embed edits, and leave a read-only audit trail."""

import numpy as np
import pytest
from django.urls import reverse
from django.utils import timezone

from core.exceptions import InvalidInput
from memory.models import AuditLog, MemoryNote, PiiRejection
from memory.services.notes import moderation
from memory.services.notes.health import memory_health_get
from memory.services.vectors.embeddings import embed_texts
from tests.admin.conftest import vector
from tests.factories import EndUserFactory, MemoryNoteFactory, TenantFactory

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:memory_memorynote_changelist"


def audit_rows(note):
    return list(
        AuditLog.objects.unscoped()
        .filter(object_type="memory_note", object_id=str(note.pk))
        .exclude(actor="admin:someone")
        .order_by("id")
    )


def test_approve_in_the_inbox_makes_the_note_active_and_supersedes_the_old_one(admin_client_root, world):
    person = world["acme"]["person"]
    old_active = person["notes"][1]
    pending = person["notes"][2]
    pending.supersedes = old_active
    pending.save()
    admin_client_root.post(
        reverse("admin:memory_reviewinboxnote_changelist"), {"action": "approve", "_selected_action": [pending.pk]}
    )
    pending.refresh_from_db(), old_active.refresh_from_db()
    assert pending.status == "active" and old_active.status == "superseded"
    entry = audit_rows(pending)[-1]
    assert (entry.actor, entry.action) == ("admin:root", "approve")
    assert entry.before["status"] == "pending_review" and entry.after["status"] == "active"
    assert audit_rows(old_active)[-1].action == "supersede"
    inbox = admin_client_root.get(reverse("admin:memory_reviewinboxnote_changelist")).context["cl"].result_list
    assert pending.pk not in {n.pk for n in inbox}


def test_reject_expire_pin_each_write_the_audit_log(admin_client_root, world):
    old, active, pending, forgotten = world["acme"]["person"]["notes"]
    for action, note in (("reject", pending), ("pin", active)):
        admin_client_root.post(reverse(CHANGELIST), {"action": action, "_selected_action": [note.pk]})
    pending.refresh_from_db(), active.refresh_from_db()
    assert pending.status == "rejected"
    assert active.pinned and active.expires_at is None
    admin_client_root.post(reverse(CHANGELIST), {"action": "expire_now", "_selected_action": [active.pk]})
    active.refresh_from_db()
    assert active.status == "expired" and active.expires_at <= timezone.now()
    assert [e.action for e in audit_rows(active)] == ["pin", "expire"]
    assert audit_rows(active)[-1].before["status"] == "active"
    # A transition that does not apply says why and changes nothing.
    response = admin_client_root.post(
        reverse(CHANGELIST), {"action": "approve", "_selected_action": [forgotten.pk]}, follow=True
    )
    assert any("Only notes awaiting review" in str(m) for m in response.context["messages"])
    forgotten.refresh_from_db()
    assert forgotten.status == "forgotten"


def test_edit_in_the_admin_re_embeds_and_audits(admin_client_root, world):
    note = world["acme"]["person"]["notes"][1]
    change_url = reverse("admin:memory_memorynote_change", args=[note.pk])
    response = admin_client_root.post(
        change_url,
        {
            "kind": note.kind,
            "key": note.key,
            "content": "面馆预算改成 50 万",
            "confidence": "0.95",
            "expires_at_0": "",
            "expires_at_1": "",
        },
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    note.refresh_from_db()
    expected = embed_texts(texts=["面馆预算改成 50 万"])[1][0]
    assert note.content == "面馆预算改成 50 万" and note.confidence == 0.95
    assert np.allclose(np.array(note.embedding), expected)
    assert not np.allclose(np.array(note.embedding), vector("预算 40 万"))
    assert "50" in note.search_text
    entry = audit_rows(note)[-1]
    assert entry.action == "edit" and entry.before["content"] == "面馆预算 40 万"
    assert entry.after["content"] == "面馆预算改成 50 万"
    # The edit action opens the change page of the one selected note.
    response = admin_client_root.post(reverse(CHANGELIST), {"action": "edit", "_selected_action": [note.pk]})
    assert response["Location"] == change_url


def test_edit_refuses_empty_content():
    tenant = TenantFactory()
    note = MemoryNoteFactory(end_user=EndUserFactory(tenant=tenant))
    with pytest.raises(InvalidInput):
        moderation.memory_note_edit(tenant=tenant, note=note, actor="t", content="  ")
    with pytest.raises(InvalidInput):
        moderation.memory_note_edit(tenant=tenant, note=note, actor="t", status="active")


def test_audit_log_cannot_be_added_changed_or_deleted(admin_client_root, world):
    entry = AuditLog.objects.unscoped().first()
    change_url = reverse("admin:memory_auditlog_change", args=[entry.pk])
    page = admin_client_root.get(change_url).content.decode()
    assert 'name="_save"' not in page
    assert admin_client_root.post(change_url, {"actor": "forged"}).status_code == 403
    assert admin_client_root.get(reverse("admin:memory_auditlog_add")).status_code == 403
    assert (
        admin_client_root.post(reverse("admin:memory_auditlog_delete", args=[entry.pk]), {"post": "yes"}).status_code
        == 403
    )
    entry.refresh_from_db()
    assert entry.actor != "forged"


def test_admin_created_note_is_embedded_and_audited(admin_client_root, world):
    a = world["acme"]
    response = admin_client_root.post(
        reverse("admin:memory_memorynote_add"),
        {
            "tenant": a["tenant"].pk,
            "end_user": a["person"]["user"].pk,
            "kind": "profile",
            "key": "name",
            "content": "The user is called Lin.",
            "confidence": "0.9",
            "expires_at_0": "",
            "expires_at_1": "",
        },
    )
    assert response.status_code == 302
    note = MemoryNote.objects.for_tenant(a["tenant"]).get(content="The user is called Lin.")
    assert note.source == "admin" and note.embedding is not None
    assert audit_rows(note)[0].action == "create"


def test_review_inbox_lists_pii_rejections_as_counts_and_kinds(admin_client_root, staff_client_a, world):
    page = admin_client_root.get(reverse("admin:memory_reviewinboxnote_changelist")).content.decode()
    assert "pii-rejections" in page and "phone" in page and "extraction" in page
    staff_page = staff_client_a.get(reverse("admin:memory_reviewinboxnote_changelist"))
    rows = staff_page.context["pii_rejections"]
    assert rows == [{"tenant__slug": "acme", "pii_kind": "phone", "stage": "extraction", "count": 4}]


def test_health_figures_match_the_data():
    tenant = TenantFactory()
    alice, bob = EndUserFactory(tenant=tenant, external_id="alice"), EndUserFactory(tenant=tenant, external_id="bob")

    def note(user, content, **kw):
        return MemoryNoteFactory(
            end_user=user, content=content, embedding=vector(content), embedding_model="offline-hash-ngram-v1", **kw
        )

    note(alice, "I prefer oat milk in coffee.")
    note(alice, "i prefer OAT milk in coffee")  # same after normalising
    note(alice, "我喜欢燕麦奶。", recall_count=3)
    note(alice, "我喜欢燕麦奶")  # same after removing CJK punctuation
    note(bob, "I prefer oat milk in coffee.")  # another user: not a duplicate
    note(bob, "预算 40 万", status="superseded")
    note(bob, "预算 50 万", status="pending_review")
    PiiRejection.objects.for_tenant(tenant).create(tenant=tenant, end_user=bob, pii_kind="id_card", stage="x", count=3)
    health = memory_health_get(tenant=tenant)
    assert health.active_notes == 5 and health.users_with_notes == 2
    assert health.notes_per_user[0]["external_id"] == "alice" and health.notes_per_user[0]["active"] == 4
    assert health.duplicate_notes == 2 and health.duplicate_rate == 0.4
    assert health.never_recalled == 4 and health.never_recalled_share == 0.8
    assert sum(w["count"] for w in health.superseded_per_week) == 1
    assert health.superseded_per_week[-1]["count"] == 1
    assert health.pii_rejections == 3 and health.pending_reviews == 1


def test_buttons_on_the_note_page_moderate_that_note(admin_client_root, world):
    pending = world["acme"]["person"]["notes"][2]
    page = admin_client_root.get(reverse("admin:memory_reviewinboxnote_change", args=[pending.pk])).content.decode()
    approve_url = reverse("admin:memory_reviewinboxnote_moderate", args=[pending.pk, "approve"])
    assert approve_url in page
    assert admin_client_root.get(approve_url).status_code == 403  # POST only
    pending.refresh_from_db()
    assert pending.status == "pending_review"
    response = admin_client_root.post(approve_url)
    assert response.status_code == 302
    pending.refresh_from_db()
    assert pending.status == "active" and audit_rows(pending)[-1].action == "approve"
    pin_url = reverse("admin:memory_memorynote_moderate", args=[pending.pk, "pin"])
    admin_client_root.post(pin_url)
    pending.refresh_from_db()
    assert pending.pinned
