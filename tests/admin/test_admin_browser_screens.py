"""The admin screens issue 42 changed, in Chromium at 1366 px, with no serious or critical axe-core issue: an end
user's page with its links, the review inbox with the note a candidate would replace (list and side by side), an
erasure receipt, and the tenant's memory policy form. Screenshots: test-artifacts/screenshots/admin-i42-*.png."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from memory.models import MemoryNote
from tenancy.models import ErasureReceipt
from tests.factories import AssistantFactory, EndUserFactory, MemoryNoteFactory, TenantFactory
from tests.web.browser import needs_chromium, shot
from tests.web.test_accessibility import blocking_issues

pytestmark = [needs_chromium, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_admin_screens_of_issue_42_render_and_pass_axe(site, new_page):
    tenant = TenantFactory(slug="screens")
    AssistantFactory(tenant=tenant)
    person = EndUserFactory(tenant=tenant, external_id="customer-0042")
    current = MemoryNoteFactory(
        tenant=tenant, end_user=person, kind="constraint", key="budget", content="预算 40 万", quote="预算大概 40 万"
    )
    candidate = MemoryNoteFactory(
        tenant=tenant,
        end_user=person,
        kind="constraint",
        key="budget",
        content="预算 55 万",
        quote="预算提到 55 万吧",
        supersedes=current,
        status=MemoryNote.Status.PENDING_REVIEW,
        review_reason="conflict",
    )
    receipt = ErasureReceipt.objects.for_tenant(tenant).create(
        tenant=tenant, user_id_hash="3f2a" * 16, requested_by="admin:support1", reason="Asked by email", counts={}
    )
    get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456")
    page = new_page(viewport={"width": 1366, "height": 900})
    page.goto(f"{site.url}/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "pw-123456")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    screens = {
        "end-user": f"/admin/tenancy/enduser/{person.pk}/change/",
        "review-inbox": "/admin/memory/reviewinboxnote/",
        "review-candidate": f"/admin/memory/reviewinboxnote/{candidate.pk}/change/",
        "receipt": f"/admin/tenancy/erasurereceipt/{receipt.pk}/change/",
        "policy": f"/admin/tenancy/tenant/{tenant.pk}/change/",
    }
    found = {}
    for name, path in screens.items():
        page.goto(site.url + path)
        assert "Django administration" not in page.content()
        found[name] = blocking_issues(page)
        shot(page, f"admin-i42-{name}")
    assert {name: issues for name, issues in found.items() if issues} == {}
    page.goto(site.url + screens["review-candidate"])
    assert page.locator("table.side-by-side").inner_text().count("万") >= 4
