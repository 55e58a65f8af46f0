"""The chat details the issue 42 walk-through tripped over, in headless Chromium: a temporary chat keeps its
"Temporary" tag when its title arrives and says nothing about sharing; the home page takes a message at once;
an edited first message renames the conversation; a failure is said once; the phone header fits at 360 px.
Screenshots: test-artifacts/screenshots/."""

from __future__ import annotations

import pytest

from tenancy.models import ChatSession, Message
from tests.web.browser import log_in, needs_chromium, send, shot
from tests.web.conftest import PASSWORD
from tests.web.test_browser_chat_ux import person

pytestmark = [needs_chromium, pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_temporary_tag_stays_and_no_sharing_note_and_the_home_page_takes_a_message(site, new_page):
    end_user = person("details-temp", "tess")
    page = new_page()
    log_in(page, site.url, "tess", PASSWORD)
    # the home page: type at once, Enter starts the conversation and sends it
    page.fill("#start-box", "Plan a picnic for Saturday.")
    page.press("#start-box", "Enter")
    page.locator(".msg-assistant[data-message-id]").first.wait_for()
    assert page.locator(".msg-user .bubble").inner_text() == "Plan a picnic for Saturday."
    assert Message.objects.for_tenant(end_user.tenant).filter(role="user").count() == 1
    page.reload()  # sent once, not again on a reload
    assert page.input_value("#message-box") == "" and page.locator(".msg-user").count() == 1

    page.click("#new-temporary-chat")
    page.wait_for_selector("#temporary-notice")
    send(page, "Where should a picnic go?")
    current = page.locator(".session-link.current")
    assert current.locator(".chip-temp").inner_text() == "Temporary"  # the title came in, the tag stayed
    assert "Where should a picnic go" in current.inner_text()
    assert "improve answers for others" not in page.locator("#conversation").inner_text()
    shot(page, "71-temporary-tag-kept")
    page.reload()
    assert "improve answers for others" not in page.locator("#conversation").inner_text()
    assert page.locator(".session-link.current .chip-temp").count() == 1

    # another user sees none of it
    other = person("details-temp-2", "uma")
    assert not ChatSession.objects.for_tenant(other.tenant).filter(end_user=other).exists()


def test_an_edited_first_message_renames_and_a_failure_is_said_once(site, new_page, scripted_llm):
    end_user = person("details-edit", "ezra", scripted=True)
    scripted_llm.push("chat", "A noodle shop.", "A hotpot place.")
    page = new_page()
    log_in(page, site.url, "ezra", PASSWORD)
    page.click("text=Start a conversation")
    page.wait_for_selector("#message-box")
    send(page, "Business idea for Chengu?")
    assert page.locator("#conv-title").inner_text() == "Business idea for Chengu?"
    page.locator(".msg-user .edit-btn").last.click()
    page.fill("#message-box", "Business idea for 成都?")
    with page.expect_response(lambda r: "/edit/" in r.url):
        page.press("#message-box", "Enter")
    page.locator(".msg-assistant[data-message-id] .bubble", has_text="hotpot").wait_for()
    assert page.locator("#conv-title").inner_text() == "Business idea for 成都?"
    assert page.locator(".session-link.current").inner_text().startswith("Business idea for 成都?")
    page.reload()
    assert ChatSession.objects.for_tenant(end_user.tenant).get().title == "Business idea for 成都?"

    ChatSession.objects.for_tenant(end_user.tenant).all().delete()  # gone in another tab: the send fails
    page.fill("#message-box", "And the rent?")
    page.press("#message-box", "Enter")
    error = page.locator("#chat-error")
    error.wait_for(state="visible")
    said = error.inner_text().strip()
    assert said and page.locator("#conversation").inner_text().count(said) == 0  # said once, above the box
    assert page.input_value("#message-box") == "And the rent?"
    shot(page, "72-failure-said-once")


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_the_phone_header_fits_at_360_px(site, new_page, locale):
    person(f"details-phone-{locale[:2]}", f"pia{locale[:2]}")
    page = new_page(locale=locale, viewport={"width": 360, "height": 740}, is_mobile=True)
    log_in(page, site.url, f"pia{locale[:2]}", PASSWORD)
    shot(page, f"73-phone-header-{locale}")
    header = page.locator("header.topbar")
    assert header.bounding_box()["height"] <= 64, "the header wrapped onto a second line"
    select = page.locator("#lang-select")
    # the language's name is shown whole ("English", not "Englisl"): the select is wider than its text
    text_width = page.evaluate(
        """s => { const c = document.createElement("canvas").getContext("2d"); const st = getComputedStyle(s);
                  c.font = st.font; return c.measureText(s.options[s.selectedIndex].text).width; }""",
        select.element_handle(),
    )
    box = select.bounding_box()
    assert box["width"] >= text_width + 24, (box, text_width)  # the text and the arrow
    assert box["x"] + box["width"] <= 360
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
