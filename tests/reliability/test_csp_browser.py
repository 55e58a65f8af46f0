"""The web chat, the admin and the API docs work in Chromium under the strict Content-Security-Policy, and the
browser reports no violation: log in, chat with a streamed reply, switch the language (a script-driven form),
the memory page; the admin's login, index, a list and a form; Swagger UI rendering the schema."""

from __future__ import annotations

import pytest

from assistants.services.tenants import end_user_create_with_login, tenant_create
from tests.web.browser import log_in, needs_chromium, send, shot

pytestmark = [needs_chromium, pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "pw-csp-browser-1"


def watch_csp(page) -> list[str]:
    """Chromium logs every CSP refusal to the console; collect them (and page errors) for the assertions."""
    problems: list[str] = []
    page.on(
        "console", lambda m: problems.append(f"{page.url}: {m.text}") if "Content Security Policy" in m.text else None
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    return problems


def test_web_chat_under_the_csp(site, new_page):
    tenant, _ = tenant_create(slug="csp-web")
    end_user_create_with_login(tenant=tenant, external_id="ext-csp", username="cspuser", password=PASSWORD)
    page = new_page()
    problems = watch_csp(page)
    response = page.goto(f"{site.url}/login/")
    assert "script-src 'self'" in response.headers["content-security-policy"]
    log_in(page, site.url, "cspuser", PASSWORD)
    page.click("text=Start a conversation")
    page.wait_for_selector("#message-box")
    send(page, "我住在杭州，喜欢喝绿茶。")  # app.js streams the reply (fetch + SSE) under connect-src 'self'
    assert page.locator(".msg-assistant[data-message-id]").count() == 1
    page.select_option("#lang-select", "zh-hans")  # submits itself from app.js (data-autosubmit)
    page.wait_for_load_state()
    page.locator("html[lang='zh-hans']").wait_for()
    page.goto(f"{site.url}/memory/")
    shot(page, "csp-web-memory")
    assert problems == []


def test_admin_and_api_docs_under_the_csp(site, new_page, django_user_model):
    django_user_model.objects.create_superuser("cspadmin", "csp@example.com", PASSWORD)
    page = new_page()
    problems = watch_csp(page)
    page.goto(f"{site.url}/admin/login/")
    page.fill("#id_username", "cspadmin")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{site.url}/admin/")
    for path in ("/admin/tenancy/enduser/", "/admin/memory/memorynote/add/", "/admin/axes/accessattempt/"):
        page.goto(f"{site.url}{path}")
        page.locator("#content").wait_for()
    # The admin's own scripts ran: the add form's collapsible fieldsets / select filters are script-driven, and
    # the theme toggle in the header is added by admin/js/theme.js.
    page.locator("button.theme-toggle").first.wait_for(state="attached")
    shot(page, "csp-admin")
    page.goto(f"{site.url}/api/docs/")
    page.locator("#swagger-ui .information-container .title").wait_for()  # Swagger UI rendered the schema
    shot(page, "csp-api-docs")
    assert problems == []
