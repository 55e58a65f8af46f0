"""Staff approval of an experience (issue 15): the admin action shares it with all users of the assistant, is
audited, refuses one that holds an identifier, and a tenant's staff cannot approve another tenant's."""

import pytest
from django.urls import reverse

from memory.models import AuditLog, Experience

pytestmark = pytest.mark.django_db
CHANGELIST = "admin:memory_experience_changelist"


def test_staff_approve_their_tenants_experience_and_it_is_audited(staff_client_a, world):
    mine = world["acme"]["person"]["experience"]
    theirs = world["globex"]["person"]["experience"]
    page = staff_client_a.get(reverse(CHANGELIST))
    assert page.status_code == 200 and "confirmed by" in page.content.decode().lower()
    staff_client_a.post(
        reverse(CHANGELIST), {"action": "approve_for_sharing", "_selected_action": [mine.pk, theirs.pk]}
    )
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert mine.approved_at is not None and mine.approved_by == "admin:staff-acme"
    assert theirs.approved_at is None  # not in acme staff's queryset at all
    entry = AuditLog.objects.for_tenant(world["acme"]["tenant"]).filter(object_type="memory.Experience").get()
    assert entry.action == "approve" and entry.object_id == str(mine.pk)
    staff_client_a.post(reverse(CHANGELIST), {"action": "withdraw_approval", "_selected_action": [mine.pk]})
    mine.refresh_from_db()
    assert mine.approved_at is None


def test_an_experience_with_an_identifier_cannot_be_approved(admin_client_root, world):
    tenant = world["acme"]["tenant"]
    bad = Experience.objects.for_tenant(tenant).create(
        tenant=tenant,
        assistant=world["acme"]["assistant"],
        task_summary="text classification task",
        solution="Label them, then text 07700 900123.",
    )
    page = admin_client_root.post(
        reverse(CHANGELIST), {"action": "approve_for_sharing", "_selected_action": [bad.pk]}, follow=True
    ).content.decode()
    bad.refresh_from_db()
    assert bad.approved_at is None and "personal identifier" in page
