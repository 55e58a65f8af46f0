"""The web chat at a usage limit (issue 43): the person reads the refusal in their own language, and another
person of the same tenant is not held by their limit."""

from __future__ import annotations

from django.urls import reverse

from tenancy.models import ChatSession, Message
from usage.services import usage_quotas_set


def start(client, tenant, end_user) -> ChatSession:
    client.post(reverse("web:chat_new"))
    return ChatSession.objects.for_tenant(tenant).filter(end_user=end_user).latest("id")


def test_a_person_at_their_limit_reads_the_refusal_in_their_language(alice, bob_same_tenant):
    end_user, client = alice
    usage_quotas_set(tenant=end_user.tenant, quotas={"user": {"turns_per_day": 1}})
    session = start(client, end_user.tenant, end_user)
    assert client.post(reverse("web:chat_send", args=[session.pk]), {"text": "Hello"}).status_code == 302
    refused = client.post(reverse("web:chat_send", args=[session.pk]), {"text": "我还有一个问题"})
    assert refused.status_code == 400
    assert "该用户每日 1 轮对话的额度已用完" in refused.content.decode()
    english = client.post(reverse("web:chat_send", args=[session.pk]), {"text": "One more question"})
    assert "The daily limit of 1 turn for this user is used up" in english.content.decode()
    assert not Message.objects.for_tenant(end_user.tenant).filter(content="我还有一个问题").exists()
    bob, bob_client = bob_same_tenant
    bob_session = start(bob_client, bob.tenant, bob)
    assert bob_client.post(reverse("web:chat_send", args=[bob_session.pk]), {"text": "Hello"}).status_code == 302
