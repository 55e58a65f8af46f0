"""The web chat shows what a turn changed in memory under the reply ("Memory updated: budget 20,000 euros →
30,000 euros") with Undo, which restores the previous version (issue 16); another user cannot undo it."""

from django.urls import reverse

from memory.models import MemoryNote
from memory.services.writing.extraction import memory_extract_for_message
from tenancy.models import Message
from tests.web.test_chat_pages import start_session


def send(client, tenant, session, text):
    client.post(reverse("web:chat_send", args=[session.pk]), {"text": text})
    message = Message.objects.for_tenant(tenant).filter(session=session, role="user").order_by("-id").first()
    memory_extract_for_message(tenant_id=tenant.pk, message_id=message.pk)
    return message


def test_the_line_under_the_reply_says_what_changed_and_undo_restores_it(alice, bob_same_tenant):
    end_user, client = alice
    tenant = end_user.tenant
    session = start_session(client)
    send(client, tenant, session, "My budget is 20,000 euros.")
    changed = send(client, tenant, session, "Actually, my budget is 30,000 euros now.")
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert "Memory saved: budget 20,000 euros" in page
    assert "Memory updated: budget 20,000 euros → 30,000 euros" in page
    [event] = Message.objects.for_tenant(tenant).get(pk=changed.pk).metadata["memory_events"]
    undo = reverse("web:memory_undo", args=[changed.pk, event["note_id"]])
    assert undo in page

    _bob, bob_client = bob_same_tenant
    assert bob_client.post(undo).status_code == 404
    assert MemoryNote.objects.for_tenant(tenant).get(pk=event["note_id"]).status == "active"

    assert client.post(undo).status_code == 302
    active = MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user, status="active")
    assert [n.value["amount"] for n in active] == [20000]
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert "(undone)" in page and undo not in page
