"""The web chat at the standard people expect, in headless Chromium: Markdown replies that stream and reload the
same, copy, timestamps, search, temporary chat, the memory switch, dark mode; and each item the walk-through found
broken (multi-line messages, Stop kept, whitespace-only messages, the "forgot everything" count, menus closing on
Esc and outside clicks, the 404 page, offline replies without internals). Screenshots: test-artifacts/screenshots/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from assistants.services.tenants import end_user_create_with_login, tenant_create
from core.policy import memory_policy_for
from memory.models import MemoryNote
from memory.services.notes.notes import memory_note_create, memory_note_update
from tenancy.models import ChatSession, EndUser, Message
from tests.openai_server import Scripted
from tests.web.browser import log_in, needs_chromium, send, shot
from tests.web.conftest import PASSWORD

pytestmark = [needs_chromium, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MARKDOWN_REPLY = (
    "## 开店清单 Shop plan\n\n1. **Budget**: 40 万\n2. *Place*: 徐汇区\n\n"
    "| Item | Cost |\n|:--|--:|\n| Rent | 12 万 |\n| Coffee machine | 3 万 |\n\n"
    "```python\nprint('ready')\n```\n\n<script>window.__pwned = 1</script> "
    "[docs](https://example.com/docs)"
)


def person(slug: str, username: str, *, scripted: bool = False) -> EndUser:
    tenant, _ = tenant_create(slug=slug, name="UX Co")
    if scripted:
        tenant.chat_model = "scripted-chat"
        tenant.save(update_fields=["chat_model"])
    end_user = end_user_create_with_login(
        tenant=tenant,
        external_id=f"ext-{username}",
        username=username,
        password=PASSWORD,
        display_name=username.title(),
    )
    if scripted:
        # With a scripted model, an extraction job (the session's worker, once another test started it) would ask
        # the same scripted server and could take the answers queued for the chat. These tests are about the
        # chat's display, not memory: memory off, so no extraction is queued.
        end_user.memory_enabled = False
        end_user.save(update_fields=["memory_enabled"])
    return end_user


def start(page, base_url: str, username: str, *, start_text="Start a conversation") -> None:
    log_in(page, base_url, username, PASSWORD)
    page.click(f"text={start_text}")
    page.wait_for_selector("#message-box")


def test_markdown_reply_streams_and_reloads_the_same_with_copy_and_time(site, new_page, scripted_llm):
    person("ux-md", "mona", scripted=True)
    scripted_llm.push("chat", Scripted(content=MARKDOWN_REPLY, chunk_delay=0.02))
    page = new_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=site.url)
    start(page, site.url, "mona")
    send(page, "Make me a shop plan with a table, please.")
    bubble = page.locator(".msg-assistant[data-message-id] .bubble").last
    assert bubble.locator("table td.align-right", has_text="12 万").count() == 1
    assert bubble.locator("ol li strong", has_text="Budget").count() == 1
    assert bubble.locator("pre code", has_text="print('ready')").count() == 1
    assert bubble.locator("a[href='https://example.com/docs'][rel~=noopener]").count() == 1
    assert bubble.locator("script").count() == 0 and page.evaluate("window.__pwned") is None
    streamed = bubble.inner_html()
    shot(page, "50-markdown-reply")

    reply = page.locator(".msg-assistant[data-message-id]").last
    assert reply.locator("time.msg-time").inner_text().strip()  # a timestamp, in the reader's time zone
    reply.locator(".copy-btn").click()
    expect(page.locator("#copy-status")).not_to_be_empty()  # locator waits: the CSP allows no page-side eval
    assert page.evaluate("navigator.clipboard.readText()") == MARKDOWN_REPLY  # the source, as the model wrote it

    page.reload()
    assert page.locator(".msg-assistant[data-message-id] .bubble").last.inner_html() == streamed
    assert page.evaluate("window.__pwned") is None


def test_multiline_whitespace_only_and_menus(site, new_page):
    person("ux-lines", "lena")
    page = new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    start(page, site.url, "lena")
    page.click("#message-box")
    page.keyboard.type("first line")
    page.keyboard.press("Shift+Enter")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("third line")
    with page.expect_response(lambda r: r.url.endswith("/stream/")):
        page.keyboard.press("Enter")
    page.wait_for_selector(".msg-assistant[data-message-id]")
    mine = page.locator(".msg-user .bubble").last
    assert mine.inner_text() == "first line\n\nthird line"  # shown on three lines before any reload
    one_line = page.evaluate("parseFloat(getComputedStyle(document.querySelector('.msg-user .bubble')).lineHeight)")
    assert mine.bounding_box()["height"] > 2.5 * one_line
    page.reload()
    assert page.locator(".msg-user .bubble").last.inner_text() == "first line\n\nthird line"

    before = page.locator(".msg").count()
    page.fill("#message-box", "   \n  ")
    page.press("#message-box", "Enter")
    error = page.locator("#chat-error")
    error.wait_for(state="visible")
    assert "empty" in error.inner_text() and page.locator(".msg").count() == before
    shot(page, "51-phone-whitespace-error")

    page.set_viewport_size({"width": 1280, "height": 820})
    rename = page.locator("details.menu", has=page.locator("summary", has_text="Rename"))
    rename.locator("summary").click()
    assert rename.get_attribute("open") is not None
    expect(page.locator("#rename-title")).to_be_focused()  # focus goes to the name field (set on the toggle event)
    page.keyboard.press("Escape")
    assert rename.get_attribute("open") is None
    delete = page.locator("details.menu", has=page.locator("summary", has_text="Delete"))
    delete.locator("summary").click()
    assert delete.get_attribute("open") is not None
    page.mouse.click(640, 500)  # somewhere in the conversation, outside the menu
    assert delete.get_attribute("open") is None


def test_stop_is_kept_after_a_reload(site, new_page, scripted_llm):
    end_user = person("ux-stop", "stella", scripted=True)
    words = " ".join(f"word{i}" for i in range(200))
    scripted_llm.push("chat", Scripted(content=words, chunk_delay=0.15))
    page = new_page()
    start(page, site.url, "stella")
    page.fill("#message-box", "Count slowly for me.")
    page.press("#message-box", "Enter")
    page.locator(".msg-assistant.streaming .bubble", has_text="word3").wait_for()
    page.click("#stop-button")
    page.locator(".msg-stopped").wait_for()
    shown = page.locator(".msg-stopped .bubble").inner_text()
    assert "word199" not in shown
    shot(page, "52-stopped")

    def stored():
        return Message.objects.for_tenant(end_user.tenant).filter(role="assistant").first()

    from tests.conftest import wait_for

    wait_for(
        lambda: stored() is not None and stored().metadata.get("stopped") and stored().content.strip(),
        timeout=30,
        message="the stopped reply, stored",
    )
    wait_for(lambda: len(stored().content) <= len(shown) + 1, timeout=10, message="trimmed to what was shown")
    page.reload()
    reloaded = page.locator(".msg-assistant.msg-stopped .bubble")
    assert reloaded.count() == 1 and "word199" not in reloaded.inner_text()
    assert reloaded.inner_text().strip() == shown.strip()
    shot(page, "53-stopped-after-reload")


def test_forget_everything_count_404_and_offline_reply(site, new_page):
    end_user = person("ux-forget", "fern")
    tenant = end_user.tenant
    notes = [
        memory_note_create(
            tenant=tenant, end_user=end_user, kind="preference", content=text, policy=memory_policy_for(tenant=tenant)
        )
        for text in (
            "The user likes jasmine tea.",
            "用户喜欢爬山。",
            "The user works night shifts.",
            "用户养了一只猫。",
        )
    ]
    memory_note_update(tenant=tenant, note=notes[0], content="The user likes jasmine tea, no sugar.")
    memory_note_create(
        tenant=tenant,
        end_user=end_user,
        kind="profile",
        content="Pending one.",
        status=MemoryNote.Status.PENDING_REVIEW,
        policy=memory_policy_for(tenant=tenant),
    )
    page = new_page()
    log_in(page, site.url, "fern", PASSWORD)
    page.goto(f"{site.url}/memory/")
    shown = page.locator(".note").count()
    assert shown == 4
    page.check("input[name=confirm]")
    page.click("button:has-text('Forget everything')")
    flash = page.locator(".flash")
    flash.wait_for()
    assert flash.inner_text().strip() == f"Forgot everything ({shown} notes)."
    shot(page, "54-forgot-everything")

    page.goto(f"{site.url}/no-such-page/")
    assert page.locator("h1").inner_text() == "Not found"
    assert "URLconf" not in page.content() and "Traceback" not in page.content()
    shot(page, "55-not-found")

    page.goto(f"{site.url}/")
    page.click("text=Start a conversation")
    send(page, "Can you help me plan a trip?")
    reply = page.locator(".msg-assistant[data-message-id] .bubble").last.inner_text()
    assert "no language model is connected" in reply
    assert "OPENAI" not in page.content() and "API_KEY" not in page.content()


def test_temporary_chat_memory_switch_search_and_dark_mode(site, new_page):
    end_user = person("ux-temp", "tara")
    memory_note_create(
        tenant=end_user.tenant,
        end_user=end_user,
        kind="profile",
        content="用户住在杭州。",
        policy=memory_policy_for(tenant=end_user.tenant),
    )
    page = new_page(locale="zh-CN")
    log_in(page, site.url, "tara", PASSWORD)
    page.click("#new-temporary-chat")
    page.wait_for_selector("#temporary-notice")
    assert "不会被记住" in page.locator("#temporary-notice").inner_text()
    send(page, "我住在哪里？顺便记一下：我下周去成都出差。")
    reply = page.locator(".msg-assistant[data-message-id]").last
    assert "杭州" not in reply.inner_text() and "用了 0 条记忆" in reply.inner_text()  # nothing recalled
    session = ChatSession.objects.for_tenant(end_user.tenant).get()
    assert session.temporary and session.expires_at is not None
    shot(page, "56-zh-temporary-chat")

    page.fill("#search-box", "成都")
    with page.expect_navigation():
        page.press("#search-box", "Enter")
    assert page.locator(".search-hit mark", has_text="成都").count() >= 1
    shot(page, "57-zh-search")

    page.goto(f"{site.url}/memory/")
    page.click("#memory-toggle")
    page.wait_for_selector("#memory-state:has-text('关')")
    assert not EndUser.objects.for_tenant(end_user.tenant).get(pk=end_user.pk).memory_enabled
    shot(page, "58-zh-memory-off")
    page.click("#memory-toggle")
    page.wait_for_selector("#memory-state:has-text('开')")

    # Dark mode: a toggle, kept after a reload, and the system setting when nothing was chosen.
    toggle = page.locator("#theme-toggle")
    assert toggle.get_attribute("aria-pressed") == "false"
    toggle.click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.reload()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(20, 23, 28)"
    shot(page, "59-zh-memory-dark")
    dark_system = new_page(color_scheme="dark")  # a fresh browser whose system setting is dark
    dark_system.goto(f"{site.url}/login/")
    assert dark_system.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(20, 23, 28)"
    assert dark_system.locator("#theme-toggle").get_attribute("aria-pressed") == "true"


def test_regenerate_and_edit_and_resend_in_the_browser(site, new_page, scripted_llm):
    person("ux-regen", "rhea", scripted=True)
    scripted_llm.push(
        "chat", "First idea: a **noodle** shop.", "Second idea: a *tea* house.", "For 成都: a hotpot place."
    )
    page = new_page()
    start(page, site.url, "rhea")
    send(page, "Give me one business idea for Chengu.")
    assert "noodle" in page.locator(".msg-assistant[data-message-id] .bubble").last.inner_text()

    with page.expect_response(lambda r: "/regenerate/" in r.url):
        page.locator(".msg-assistant .regen-btn").last.click()
    page.locator(".msg-assistant[data-message-id] .bubble", has_text="tea").wait_for()
    reply = page.locator(".msg-assistant[data-message-id]")
    assert reply.count() == 1 and reply.locator("em", has_text="tea").count() == 1
    reply.locator("details.earlier summary").click()
    assert "noodle" in reply.locator("details.earlier").inner_text()
    shot(page, "60-regenerated")

    page.locator(".msg-user .edit-btn").last.click()
    assert page.input_value("#message-box") == "Give me one business idea for Chengu."
    assert page.locator("#editing-bar").is_visible()
    page.fill("#message-box", "Give me one business idea for 成都.")
    with page.expect_response(lambda r: "/edit/" in r.url):
        page.press("#message-box", "Enter")
    page.locator(".msg-assistant[data-message-id] .bubble", has_text="hotpot").wait_for()
    assert page.locator(".msg-user").count() == 1 and page.locator(".msg-assistant").count() == 1
    assert page.locator(".msg-user .bubble").inner_text() == "Give me one business idea for 成都."
    assert page.locator("#editing-bar").is_hidden()
    page.reload()
    mine = page.locator(".msg-user")
    assert mine.count() == 1 and "Edited" in mine.locator("details.earlier summary").inner_text()
    mine.locator("details.earlier summary").click()
    assert "Chengu" in mine.locator("details.earlier").inner_text()
    shot(page, "61-edited-and-resent")
