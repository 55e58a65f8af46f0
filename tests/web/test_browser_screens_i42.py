"""The screens issue 42 names, photographed in Chromium in English and Chinese, with no serious or critical
axe-core issue: the home page with its composer ready, a chat whose memory line keeps the user's own numbers
("budget about 400k → 300k", "预算 约 40万 → 30万") at desktop width and, dark, on a 390×844 phone, a temporary
chat keeping its tag, "What I remember" with a card's history open, grouped search, and the admin's index and a
list filtered with the tenant and end-user boxes. One browser; one login per language, its pages reused.
Screenshots: test-artifacts/screenshots/i42-*.png."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from assistants.services.chat import chat_session_start, chat_turn
from assistants.services.tenants import end_user_create_with_login, tenant_create
from memory.services.writing.extraction import memory_extract_for_message
from tenancy.models import Message
from tests.web.browser import needs_chromium, shot
from tests.web.conftest import PASSWORD
from tests.web.test_accessibility import blocking_issues

pytestmark = [needs_chromium, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SAID = {
    "en": ("My budget is about 400k and I run a bakery in Leeds.", "Actually my budget is 300k now."),
    "zh": ("我的预算大概40万，店开在杭州，店面60平米", "预算改成30万了"),
}
LINE = {"en": "budget about 400k → 300k", "zh": "预算 约 40万 → 30万"}


def _person(tenant, language: str):
    username = f"screens-{language}"
    end_user = end_user_create_with_login(
        tenant=tenant, external_id=f"ext-{username}", username=username, password=PASSWORD, display_name=username
    )
    session = chat_session_start(tenant=tenant, end_user=end_user)
    for text in SAID[language]:
        chat_turn(tenant=tenant, session=session, text=text)
        asked = Message.objects.for_tenant(tenant).filter(session=session, role="user").order_by("-id")[0]
        memory_extract_for_message(tenant_id=tenant.pk, message_id=asked.pk)
    temporary = chat_session_start(tenant=tenant, end_user=end_user, temporary=True)
    chat_turn(tenant=tenant, session=temporary, text="Just a quick question" if language == "en" else "随便问一下")
    return end_user, username, session, temporary


def _log_in(page, url, username, password, form="/login/"):
    page.goto(url + form)
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.keyboard.press("Enter")


def test_issue_42_screens_in_both_languages_pass_axe(site, new_page):
    tenant, _ = tenant_create(slug="screens-i42", name="Screens Co")
    people = {language: _person(tenant, language) for language in ("en", "zh")}
    found: dict[str, list[str]] = {}

    def check(page, name):
        found[name] = blocking_issues(page)
        shot(page, f"i42-{name}")

    for language, locale in (("en", "en-US"), ("zh", "zh-CN")):
        _end_user, username, session, temporary = people[language]
        desk = new_page(locale=locale, viewport={"width": 1366, "height": 860})
        _log_in(desk, site.url, username, PASSWORD)
        desk.locator("#message-box").wait_for()  # the composer is ready on the home page
        check(desk, f"{language}-home")
        desk.goto(f"{site.url}/chat/{session.pk}/")
        assert LINE[language] in desk.locator(".memory-events").last.inner_text()
        check(desk, f"{language}-chat")
        desk.goto(f"{site.url}/chat/{temporary.pk}/")
        desk.locator("#temporary-notice").wait_for()
        check(desk, f"{language}-temporary")
        desk.goto(f"{site.url}/memory/")
        desk.locator("details.history summary").first.click()
        check(desk, f"{language}-memory")
        desk.goto(f"{site.url}/chat/search/?q={'budget' if language == 'en' else '预算'}")
        check(desk, f"{language}-search")

        phone = new_page(locale=locale, viewport={"width": 390, "height": 844}, is_mobile=True, color_scheme="dark")
        phone.context.add_cookies(desk.context.cookies())  # the same login, on a dark phone
        phone.goto(f"{site.url}/chat/{session.pk}/")
        assert LINE[language] in phone.locator(".memory-events").last.inner_text()
        check(phone, f"{language}-phone-dark-chat")
        phone.goto(f"{site.url}/chat/{temporary.pk}/")
        check(phone, f"{language}-phone-dark-temporary")

    get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456")
    person = people["en"][0]
    for language, locale in (("en", "en-US"), ("zh", "zh-CN")):
        admin = new_page(locale=locale, viewport={"width": 1366, "height": 900})
        _log_in(admin, site.url, "root", "pw-123456", form="/admin/login/")
        check(admin, f"{language}-admin-index")
        admin.goto(
            f"{site.url}/admin/tenancy/chatsession/?tenant__id__exact={tenant.pk}&end_user__id__exact={person.pk}"
        )
        assert admin.locator("#result_list tbody tr").count() == 2  # the person's two conversations
        assert admin.locator("#changelist-filter .select2-container").count() == 2  # one box per filter
        check(admin, f"{language}-admin-filtered-list")
    assert {name: issues for name, issues in found.items() if issues} == {}
