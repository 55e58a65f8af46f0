"""Under ASGI (uvicorn in `make run`) the reply must stream: Django buffers a *sync* iterator completely before
sending it, so the SSE response has to be an async iterator there, while WSGI gets the plain generator."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient
from django.urls import reverse

from assistants.services.chat import chat_session_start
from tenancy.models import ChatSession, Message
from tests.web.sse import parse_sse

pytestmark = pytest.mark.django_db


def test_asgi_stream_is_an_async_iterator_of_separate_events(alice):
    end_user, _ = alice
    session = chat_session_start(tenant=end_user.tenant, end_user=end_user)
    client = AsyncClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(end_user.user)

    async def run():
        response = await client.post(reverse("web:chat_stream", args=[session.pk]), {"text": "Streaming, please."})
        chunks = [chunk async for chunk in response.streaming_content]
        return response, chunks

    response, chunks = async_to_sync(run)()
    assert response.status_code == 200
    assert response.is_async, "a sync iterator would be buffered whole by Django under ASGI"
    events = [parse_sse(chunk)[0] for chunk in chunks]  # one event per chunk: each is sent as soon as it exists
    assert events[0][0] == "context" and events[-1][0] == "done"
    assert sum(1 for name, _ in events if name == "delta") >= 2
    reply = Message.objects.for_tenant(end_user.tenant).get(pk=events[-1][1]["reply_id"])
    assert reply.session_id == session.pk


def test_asgi_stream_refuses_another_users_session(alice, carol_other_tenant):
    end_user, _ = alice
    session = chat_session_start(tenant=end_user.tenant, end_user=end_user)
    client = AsyncClient()
    client.force_login(carol_other_tenant[0].user)

    async def run():
        return await client.post(reverse("web:chat_stream", args=[session.pk]), {"text": "hi"})

    assert async_to_sync(run)().status_code == 404
    assert not Message.objects.unscoped().filter(session=session).exists()
    assert ChatSession.objects.unscoped().filter(pk=session.pk).exists()
