"""Headless Chromium for the browser tests: Debian's /usr/bin/chromium driven by Playwright (no downloaded
browsers). Screenshots go to test-artifacts/screenshots/ (git-ignored)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"

needs_chromium = pytest.mark.skipif(
    not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing: install Debian's chromium (see .ci/run)"
)


@pytest.fixture(scope="session")
def collected_static():
    """The static files, collected as `make run` does. WhiteNoise serves STATIC_ROOT and reads it when the server
    starts; collecting first makes the live server serve this checkout's CSS and JS whichever static-files
    handler pytest-django picks (it only adds its finder-based one for "django.contrib.staticfiles" by name)."""
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)


@pytest.fixture
def site(collected_static, live_server):
    """The live server (pytest-django's, transactional database) with the static files in place."""
    return live_server


@pytest.fixture(scope="module")
def chromium():
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread, which makes Django refuse every ORM call the test
    # (and pytest-django's database setup and flush) makes here, although they are ordinary sync calls.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def new_page(chromium):
    """new_page(locale="en-US", viewport=None, is_mobile=False, color_scheme="light") -> a Page in a fresh
    browser context (color_scheme is the system setting the page sees: "light" or "dark")."""
    contexts = []

    def make(locale="en-US", viewport=None, is_mobile=False, color_scheme="light"):
        context = chromium.new_context(
            locale=locale,
            viewport=viewport or {"width": 1280, "height": 820},
            is_mobile=is_mobile,
            has_touch=is_mobile,
            color_scheme=color_scheme,
        )
        context.set_default_timeout(20_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def log_in(page, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.keyboard.press("Enter")
    page.wait_for_url(f"{base_url}/")


def send(page, text: str) -> None:
    """Type into the box and press Enter; wait until the streamed reply has been replaced by the final one."""
    before = page.locator(".msg-assistant[data-message-id]").count()
    page.fill("#message-box", text)
    with page.expect_response(lambda r: r.url.endswith("/stream/")) as stream:
        page.press("#message-box", "Enter")
    assert stream.value.headers["content-type"].startswith("text/event-stream")
    # A locator wait, not wait_for_function: that evaluates a string in the page, which the CSP (no eval) refuses.
    page.locator(".msg-assistant[data-message-id]").nth(before).wait_for()
