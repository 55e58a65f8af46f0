"""The admin in Chromium at a 1366 px laptop width: the notes list fits without sideways scrolling and its content
column is readable; screenshots of the list, a note, the audit log and the erasure lookup are saved to
test-artifacts/screenshots/admin-*.png."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from memory.models import MemoryNote
from tests.factories import AssistantFactory, EndUserFactory, MemoryNoteFactory, TenantFactory
from tests.web.browser import needs_chromium, shot

pytestmark = [needs_chromium, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_notes_list_note_page_audit_log_and_lookup_at_1366(site, new_page):
    from django.db import connection

    with connection.cursor() as cur:  # ids as a real store has them (the suite's own are small), not 2 digits
        for table in ("memory_memorynote", "assistants_enduser", "assistants_tenant"):
            cur.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), 2000000)")
    tenant = TenantFactory(slug="laptop")
    AssistantFactory(tenant=tenant)
    people = [EndUserFactory(tenant=tenant, external_id=f"customer-{i:04d}@example-integrator") for i in range(3)]
    long_text = (
        "The user is planning to open a small hand-pulled noodle shop in Chengdu's Wuhou district "
        "with a budget of about 400,000 yuan and wants to hire three people. "
    )
    for i in range(12):
        MemoryNoteFactory(
            tenant=tenant,
            end_user=people[i % 3],
            content=long_text[: 60 + i * 8] + "用户更喜欢清淡口味。",
            status=[MemoryNote.Status.ACTIVE, MemoryNote.Status.PENDING_REVIEW][i % 2],
        )
    get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456")
    page = new_page(viewport={"width": 1366, "height": 768})
    page.goto(f"{site.url}/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "pw-123456")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.goto(f"{site.url}/admin/memory/memorynote/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 1366
    # ... and the table inside its box: no column hidden behind a sideways scroll
    assert page.evaluate(
        "(() => { const r = document.querySelector('#changelist .results');"
        " return r.scrollWidth <= r.clientWidth + 1; })()"
    )
    content_width = page.locator("td.field-short_content").first.bounding_box()["width"]
    assert content_width >= 220  # the sentence, not a sliver of it (both admin sidebars open)
    options = page.locator("select[name=action] option").all_inner_texts()
    assert not any("Delete" in o for o in options) and any("Forget" in o for o in options)
    shot(page, "admin-notes-list-1366")
    page.locator("td.field-short_content a, th.field-short_content a").first.click()
    page.wait_for_selector(".object-tools")
    shot(page, "admin-note-page")
    page.goto(f"{site.url}/admin/memory/auditlog/")
    shot(page, "admin-audit-log")
    page.goto(f"{site.url}/admin/tenancy/erasurereceipt/lookup/")
    page.fill("#id_external_id", "customer-0001@example-integrator")
    with page.expect_navigation():
        page.click("input[value='Look up']")
    assert "No erasure receipt" in page.locator("#erasure-answer").inner_text()
    assert "customer-0001" not in page.content()
    shot(page, "admin-erasure-lookup")
