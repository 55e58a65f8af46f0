"""A note's card tells the truth after every change (issue 42): after a correction on "What I remember" it shows
the new wording as corrected by the person, the old wording (with the words it came from) as the earlier version;
after an Undo in the chat the card, its history and the conversation's pinned facts all say the restored value."""

import re

from django.urls import reverse

from memory.models import MemoryNote
from tenancy.models import ChatSession, Message
from tests.web.test_chat_pages import start_session
from tests.web.test_memory_line import send


def _card(page: str, note_id: int) -> str:
    start = page.index(f'id="note-{note_id}"')
    return re.sub(
        r"\s+", " ", page[start : page.index("</li>\n    \n", start) if "</li>\n    \n" in page[start:] else None]
    )


def _history(card: str) -> list[str]:
    block = card[card.find('<ol class="history-list">') :]
    return [re.sub(r"<[^>]+>", "", li).strip() for li in re.findall(r"<li>(.*?)</li>", block[: block.find("</ol>")])]


def _settled(client, session, text) -> str:
    """The next reply's 'What we have settled' line (the offline model says the pinned facts it was given)."""
    client.post(reverse("web:chat_send", args=[session.pk]), {"text": text})
    reply = Message.objects.for_tenant(session.tenant).filter(session=session, role="assistant").order_by("-id")[0]
    return next((ln for ln in reply.content.splitlines() if "settled" in ln or "已确认的关键信息" in ln), "")


def test_a_correction_shows_who_corrected_it_and_the_old_wording_as_history(alice, bob_same_tenant):
    end_user, client = alice
    tenant = end_user.tenant
    session = start_session(client)
    send(client, tenant, session, "My budget is about 400k.")
    note = MemoryNote.objects.for_tenant(tenant).get(end_user=end_user, status="active", key__endswith="budget")
    page = client.get(reverse("web:memory")).content.decode()
    version = re.search(rf'name="n{note.pk}-version" value="(\w+)"', page).group(1)
    client.post(
        reverse("web:memory_correct", args=[note.pk]),
        {f"n{note.pk}-content": "My budget is 300k.", f"n{note.pk}-version": version},
    )

    card = _card(client.get(reverse("web:memory")).content.decode(), note.pk)
    assert "My budget is 300k." in card and "You corrected it" in card
    assert "You said it" not in card.split("history")[0]  # the card's own line is the correction
    [earlier] = _history(card)
    assert "400k" in earlier and "You said it" in earlier and "My budget is about 400k." in earlier
    pinned = ChatSession.objects.for_tenant(tenant).get(pk=session.pk).pinned_facts
    assert pinned["budget"]["value"] == "300k"
    assert "300k" in _settled(client, session, "What should I spend first?")

    _bob, bob_client = bob_same_tenant
    assert "400k" not in bob_client.get(reverse("web:memory")).content.decode()


def test_undo_in_the_chat_puts_note_history_and_pinned_facts_back_together(make_person):
    end_user, client = make_person(username="mei", language="zh-hans")
    tenant = end_user.tenant
    session = start_session(client)
    send(client, tenant, session, "我的预算大概 40 万")
    changed = send(client, tenant, session, "预算改成 30 万了")
    _other, other_client = make_person(tenant=tenant, username="lei", language="zh-hans")
    other_session = start_session(other_client)
    send(other_client, tenant, other_session, "我的预算是 30 万")

    [event] = Message.objects.for_tenant(tenant).get(pk=changed.pk).metadata["memory_events"]
    assert client.post(reverse("web:memory_undo", args=[changed.pk, event["note_id"]])).status_code == 302

    [note] = MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user, status="active", key__endswith="budget")
    card = _card(client.get(reverse("web:memory")).content.decode(), note.pk)
    assert "40 万" in card and "30 万" not in card  # the undone version is not an "earlier version"
    assert ChatSession.objects.for_tenant(tenant).get(pk=session.pk).pinned_facts["budget"]["value"] == "40 万"
    settled = _settled(client, session, "接下来先花哪部分钱？")
    assert "40 万" in settled and "30 万" not in settled
    # the other user's identical fact is untouched
    assert ChatSession.objects.for_tenant(tenant).get(pk=other_session.pk).pinned_facts["budget"]["value"] == "30 万"
