"""Small helpers for the chat tests: a tenant with one assistant and a session, and ways to read a context."""

from __future__ import annotations

from assistants.llm import sections
from assistants.services.chat import chat_session_start, chat_turn
from tenancy.models import ChatSession, Message
from tests.factories import AssistantFactory, EndUserFactory, TenantFactory


def make_session(
    *,
    system_prompt: str = "你是一名直率的开店顾问。You are a blunt shop-opening consultant.",
    chat_model: str = "",
    **policy,
) -> ChatSession:
    tenant = TenantFactory.create(**policy)
    assistant = AssistantFactory.create(tenant=tenant, system_prompt=system_prompt, chat_model=chat_model)
    end_user = EndUserFactory.create(tenant=tenant)
    return chat_session_start(tenant=tenant, end_user=end_user, assistant=assistant)


def say(session: ChatSession, text: str):
    return chat_turn(tenant=session.tenant, session=session, text=text)


def section(messages: list[dict], header: str) -> str:
    return "\n".join(m["content"] for m in messages if m["role"] == "system" and m["content"].startswith(header))


def verbatim(messages: list[dict]) -> list[str]:
    """The user's messages sent as they are (the window and the new message). Assistant replies are left out:
    the offline model's replies quote the summary, which would hide whether a user message itself was sent."""
    return [m["content"] for m in messages if m["role"] == "user"]


def all_messages(session: ChatSession) -> list[Message]:
    return list(Message.objects.for_tenant(session.tenant).filter(session=session).order_by("id"))


def summary_and_digest(messages: list[dict]) -> str:
    return section(messages, sections.SUMMARY)


def add_turns(session: ChatSession, texts: list[str]) -> None:
    """Stored turns (user message + a short reply) without running the chat turn, so that no extraction job is
    queued: tests that script the model server exactly must not share it with other jobs."""
    from tests.factories import MessageFactory

    for text in texts:
        MessageFactory(session=session, role=Message.Role.USER, content=text)
        MessageFactory(session=session, role=Message.Role.ASSISTANT, content="ok")
