"""A note's Forget on "What I remember" can be taken back for a few seconds, as the chat's memory line can
(issue 42): Undo keeps the note; otherwise it is forgotten when the window ends or the page is left, and another
user's notes are never touched. "Forget everything" still asks for its confirmation box. Chinese cards read in
Chinese. Screenshots: test-artifacts/screenshots/."""

from __future__ import annotations

import pytest

from assistants.services.tenants import end_user_create_with_login, tenant_create
from core.policy import memory_policy_for
from memory.models import MemoryNote
from memory.services.notes.notes import memory_note_create
from tests.conftest import wait_for
from tests.web.browser import log_in, needs_chromium, shot
from tests.web.conftest import PASSWORD

pytestmark = [needs_chromium, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _status(tenant, note) -> str:
    return MemoryNote.objects.for_tenant(tenant).get(pk=note.pk).status


def test_forget_on_a_card_has_undo_and_is_sent_when_the_window_ends(site, new_page, settings):
    settings.WEB_FORGET_UNDO_SECONDS = 2
    tenant, _key = tenant_create(slug="cards-undo", name="Cards Co")
    people = {
        name: end_user_create_with_login(
            tenant=tenant, external_id=f"ext-{name}", username=name, password=PASSWORD, display_name=name.title()
        )
        for name in ("gail", "hugo")
    }
    tea, cat, shifts = (
        memory_note_create(
            tenant=tenant,
            end_user=people["gail"],
            kind="preference",
            content=text,
            policy=memory_policy_for(tenant=tenant),
        )
        for text in ("The user likes jasmine tea.", "用户养了一只猫。", "The user works night shifts.")
    )
    hugos = memory_note_create(
        tenant=tenant,
        end_user=people["hugo"],
        kind="preference",
        content="The user likes jasmine tea.",
        policy=memory_policy_for(tenant=tenant),
    )

    page = new_page()
    log_in(page, site.url, "gail", PASSWORD)
    page.goto(f"{site.url}/memory/")
    card = page.locator(f"#note-{tea.pk}")
    card.locator("button:has-text('Forget')").click()
    notice = card.locator(".note-forgotten")
    assert notice.inner_text().startswith("Forgotten.")
    shot(page, "70-card-forget-undo")
    card.locator("button:has-text('Undo')").click()
    page.wait_for_timeout(3000)  # past the window: nothing was sent
    assert card.locator(".note-content").is_visible() and _status(tenant, tea) == "active"

    page.locator(f"#note-{cat.pk} button:has-text('Forget')").click()
    wait_for(lambda: _status(tenant, cat) == "forgotten", timeout=10, message="the forget sent after the window")
    page.locator(f"#note-{cat.pk}").wait_for(state="detached")

    page.locator(f"#note-{shifts.pk} button:has-text('Forget')").click()
    page.goto(f"{site.url}/")  # leaving the page sends what is pending
    wait_for(lambda: _status(tenant, shifts) == "forgotten", timeout=10, message="the forget sent on leaving")
    assert page.locator(".flash").count() == 0  # the card said it; the next page does not say it again
    assert _status(tenant, tea) == "active" and _status(tenant, hugos) == "active"

    page.goto(f"{site.url}/memory/")
    page.click("button:has-text('Forget everything')")  # the box is not ticked: the browser refuses
    assert _status(tenant, tea) == "active"
