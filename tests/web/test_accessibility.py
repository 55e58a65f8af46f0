"""axe-core (the copy bundled in axe-playwright-python, run in Chromium) finds no serious or critical issue on the
login page, the chat, "What I remember" (also with a card's Forget waiting for Undo) and search, in English and Chinese, light and dark, at desktop and phone width.
Each state is saved to test-artifacts/screenshots/a11y-*.png."""

from __future__ import annotations

import pytest

from assistants.services.chat import chat_session_start, chat_turn
from assistants.services.tenants import end_user_create_with_login, tenant_create
from core.policy import memory_policy_for
from memory.services.notes.notes import memory_note_create
from tests.web.browser import needs_chromium, shot
from tests.web.conftest import PASSWORD

pytestmark = [needs_chromium, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BLOCKING = ("serious", "critical")


def blocking_issues(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(
        page,
        options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}},
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} -> {[n['target'] for n in v['nodes']][:4]}"
        for v in results.response["violations"]
        if v["impact"] in BLOCKING
    ]


@pytest.mark.parametrize(
    "locale,scheme", [("en-US", "light"), ("en-US", "dark"), ("zh-CN", "light"), ("zh-CN", "dark")]
)
def test_no_serious_or_critical_accessibility_issues(site, new_page, locale, scheme, settings):
    settings.WEB_FORGET_UNDO_SECONDS = 600  # the undo state is checked, never sent
    zh = locale.startswith("zh")
    tenant, _ = tenant_create(slug=f"a11y-{locale.lower()}-{scheme}", name="A11y Co")
    username = f"ally{'zh' if zh else 'en'}{scheme}"
    end_user = end_user_create_with_login(
        tenant=tenant, external_id=f"ext-{username}", username=username, password=PASSWORD, display_name="Ally"
    )
    for text in (
        ["用户住在杭州。", "用户喜欢喝乌龙茶。"]
        if zh
        else ["The user lives in Hangzhou.", "The user prefers oolong tea."]
    ):
        memory_note_create(
            tenant=tenant,
            end_user=end_user,
            kind="profile",
            content=text,
            quote=text,
            source="user_stated",
            policy=memory_policy_for(tenant=tenant),
        )
    session = chat_session_start(tenant=tenant, end_user=end_user, title="计划" if zh else "Plans")
    chat_turn(tenant=tenant, session=session, text="我住在哪里？预算 30 万。" if zh else "Where do I live? Budget 30k.")
    chat_session_start(tenant=tenant, end_user=end_user, title="临时" if zh else "Scratch", temporary=True)

    tag = f"{'zh' if zh else 'en'}-{scheme}"
    found: dict[str, list[str]] = {}
    for width, label in ((1366, "desktop"), (390, "phone")):
        page = new_page(
            locale=locale, color_scheme=scheme, viewport={"width": width, "height": 860}, is_mobile=width < 500
        )
        page.goto(f"{site.url}/login/")
        found[f"login-{label}"] = blocking_issues(page)
        shot(page, f"a11y-{tag}-{label}-login")
        page.fill("#id_username", username)
        page.fill("#id_password", PASSWORD)
        with page.expect_navigation():
            page.keyboard.press("Enter")
        page.goto(f"{site.url}/chat/{session.pk}/")
        page.wait_for_selector(".msg-assistant[data-message-id]")
        page.locator("details.used summary").first.click()
        found[f"chat-{label}"] = blocking_issues(page)
        shot(page, f"a11y-{tag}-{label}-chat")
        page.goto(f"{site.url}/memory/")
        found[f"memory-{label}"] = blocking_issues(page)
        shot(page, f"a11y-{tag}-{label}-memory")
        page.locator(".note-forget button").first.click()  # the card folded, with its Undo (issue 42)
        page.locator(".note-forgotten").wait_for()
        found[f"memory-undo-{label}"] = blocking_issues(page)
        shot(page, f"a11y-{tag}-{label}-memory-undo")
        page.locator(".note-undo").click()
        page.goto(f"{site.url}/chat/search/?q={'预算' if zh else 'Budget'}")  # grouped search (issue 42)
        found[f"search-{label}"] = blocking_issues(page)
        shot(page, f"a11y-{tag}-{label}-search")
        page.context.close()
    assert {where: issues for where, issues in found.items() if issues} == {}
