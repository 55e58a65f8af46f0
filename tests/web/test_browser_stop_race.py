"""Stop never reaches a finished reply (issue 39): pressed before the server has the new message, it used to stop
"the latest message it has", which cut the previous, finished reply to nothing for good. The browser names the
reply it streams; Stop names that reply; a Stop that comes first is kept for its turn and ends it at once."""

from __future__ import annotations

import pytest

from tenancy.models import Message
from tests.conftest import wait_for
from tests.openai_server import Scripted
from tests.web.browser import needs_chromium, send, shot
from tests.web.test_browser_chat_ux import person, start

pytestmark = [needs_chromium, pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIRST = "The first answer is finished and complete."

# Holds the next streamed request back for `window.__holdStreamMs` ms, then sends it anyway (as a request already
# on the wire reaches the server after the person pressed Stop); the page sees its fetch aborted at once.
HOLD_BACK = """
(() => {
  const original = window.fetch;
  window.fetch = function (url, options) {
    const hold = window.__holdStreamMs;
    if (!hold || String(url).indexOf("/stream/") < 0) return original(url, options);
    window.__holdStreamMs = 0;
    const signal = options.signal, rest = Object.assign({}, options);
    delete rest.signal;
    return new Promise((resolve, reject) => {
      signal.addEventListener("abort", () => reject(new DOMException("stopped", "AbortError")));
      setTimeout(() => {
        original(url, rest).then((r) => r.text()).then((t) => { window.__heldBody = t; },
                                                       () => { window.__heldBody = "failed"; });
      }, hold);
    });
  };
})();
"""


def test_a_stop_before_its_message_reaches_the_server_leaves_the_finished_reply_whole(site, new_page, scripted_llm):
    end_user = person("stop-race", "rachel", scripted=True)
    scripted_llm.push("chat", Scripted(content=FIRST))
    page = new_page()
    page.add_init_script(HOLD_BACK)
    start(page, site.url, "rachel")
    send(page, "Tell me something.")
    assert page.locator(".msg-assistant .bubble").last.inner_text().strip() == FIRST

    scripted_llm.push("chat", Scripted(content="The second answer " + "on and on " * 50, chunk_delay=0.05))
    page.evaluate("window.__holdStreamMs = 1500")
    page.fill("#message-box", "And something else.")
    page.press("#message-box", "Enter")
    page.click("#stop-button")  # before the held-back message has reached the server
    page.locator(".msg-stopped").wait_for()
    wait_for(lambda: page.evaluate("window.__heldBody || ''"), timeout=30, message="the held-back turn, answered")

    messages = Message.objects.for_tenant(end_user.tenant).filter(session__end_user=end_user).order_by("pk")
    first_reply = messages.filter(role="assistant").first()
    assert first_reply.content == FIRST and not first_reply.metadata.get("stopped")
    assert [m.content for m in messages.filter(role="user")] == ["Tell me something.", "And something else."]
    # The Stop was kept for its own turn: that reply ended before anything of it was shown.
    assert not messages.filter(role="assistant", content__contains="second answer").exists()

    page.reload()
    assert page.locator(".msg-assistant .bubble").first.inner_text().strip() == FIRST
    shot(page, "54-stop-before-the-message")
