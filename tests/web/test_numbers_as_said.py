"""Numbers keep the form the user wrote them in (issue 42): "400k" stays "400k" and "40万" stays "40万" in the
memory line under a reply (saved and updated, as rendered with the page and as streamed), on the note's card and
in its history, in English and Chinese; never the stored "400,000" / "400000" / "40 万元" or a slot code."""

import re
from types import SimpleNamespace

from django.urls import reverse

from memory.models import MemoryNote
from tenancy.models import Message
from tests.web.test_chat_pages import start_session
from tests.web.test_memory_labels import _memory_lines
from tests.web.test_memory_line import send
from tests.web.test_note_card_truth import _card, _history
from web.views.chat_events import _memory_line_event


def _page_text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_an_english_budget_said_as_400k_reads_400k_in_the_line_the_card_and_its_history(alice, bob_same_tenant):
    end_user, client = alice
    tenant = end_user.tenant
    session = start_session(client)
    send(client, tenant, session, "My budget is about 400k.")
    changed = send(client, tenant, session, "Actually my budget is 300k now.")
    lines = _memory_lines(client.get(reverse("web:chat", args=[session.pk])).content.decode())
    assert "Memory saved: budget about 400k" in lines
    assert "Memory updated: budget about 400k → 300k" in lines
    assert not any("400,000" in line or "400000" in line or "300,000" in line for line in lines), lines

    note = MemoryNote.objects.for_tenant(tenant).get(end_user=end_user, status="active", key__endswith="budget")
    card = _card(client.get(reverse("web:memory")).content.decode(), note.pk)
    assert "The user's budget is 300k." in card.replace("&#x27;", "'")
    [earlier] = _history(card)
    assert "about 400k" in earlier and "400,000" not in earlier

    # the streamed line (the "memory" event after a reply) says the same
    events = Message.objects.for_tenant(tenant).get(pk=changed.pk).metadata["memory_events"]
    request = SimpleNamespace(tenant=tenant, end_user=end_user, META={}, COOKIES={})
    streamed = _memory_line_event(request, {"events": events, "message_id": changed.pk}, 1, "en").decode()
    assert "400k → 300k" in streamed and "300,000" not in streamed

    # another user of the tenant gets neither the line nor the card, nor the words through the stream
    _bob, bob_client = bob_same_tenant
    assert bob_client.get(reverse("web:chat", args=[session.pk])).status_code == 404
    assert "400k" not in bob_client.get(reverse("web:memory")).content.decode()
    bob_request = SimpleNamespace(tenant=tenant, end_user=_bob, META={}, COOKIES={})
    bob_stream = _memory_line_event(bob_request, {"events": events, "message_id": changed.pk}, 1, "en").decode()
    assert "300k" not in bob_stream and "400k" not in bob_stream


def test_a_chinese_budget_said_as_40万_reads_40万_everywhere(make_person):
    end_user, client = make_person(username="mei", language="zh-hans")
    tenant = end_user.tenant
    session = start_session(client)
    send(client, tenant, session, "我的预算大概40万，店面60平米")
    send(client, tenant, session, "预算改成30万了")
    lines = _memory_lines(client.get(reverse("web:chat", args=[session.pk])).content.decode())
    assert "已记住：预算 约 40万" in lines and "已记住：店面面积 60平米" in lines
    assert "记忆已更新：预算 约 40万 → 30万" in lines
    assert not any(code in " ".join(lines) for code in ("400000", "400,000", "万元", "m²", "budget")), lines

    html = client.get(reverse("web:memory")).content.decode()
    shown = re.findall(r'<p class="note-content">(.*?)</p>', html)  # each card's sentence
    assert "用户的预算为 30万。" in shown and "用户的店面面积 60平米。" in shown, shown
    assert "用户的预算约 40万。" in _page_text(html)  # the earlier version, in the history
