"""Helpers for the memory tests: a user talks through the real chat turn (pre-turn hooks included), and the
extraction service runs on the stored message as the job would."""

import pytest

from assistants.services.chat import chat_session_start, chat_turn
from memory.models import MemoryNote
from memory.services.writing.extraction import memory_extract_for_message
from tests.factories import AssistantFactory, EndUserFactory, TenantFactory


class Person:
    def __init__(self, tenant, end_user):
        self.tenant, self.end_user = tenant, end_user
        self.session = None
        self.last = None

    def new_session(self):
        self.session = chat_session_start(tenant=self.tenant, end_user=self.end_user)
        return self.session

    def say(self, text, extract=True):
        if self.session is None:
            self.new_session()
        self.last = chat_turn(tenant=self.tenant, session=self.session, text=text)
        if extract:
            self.last.extraction = memory_extract_for_message(
                tenant_id=self.tenant.pk, message_id=self.last.user_message.pk
            )
        return self.last

    def notes(self, status=MemoryNote.Status.ACTIVE):
        qs = MemoryNote.objects.for_tenant(self.tenant).filter(end_user=self.end_user)
        return list(qs.filter(status=status) if status else qs)


@pytest.fixture
def make_person(db):
    def make(tenant=None, **tenant_fields):
        tenant = tenant or TenantFactory(**tenant_fields)
        if not tenant.pk or not AssistantFactory._meta.model.objects.unscoped().filter(tenant=tenant).exists():
            AssistantFactory(tenant=tenant)
        return Person(tenant, EndUserFactory(tenant=tenant))

    return make


@pytest.fixture
def two_people(make_person):
    """Two users of one tenant who said the same facts: what one of them says next must not touch the other."""

    def make(facts: list[str]):
        alice = make_person()
        bob = make_person(tenant=alice.tenant)
        for person in (alice, bob):
            for fact in facts:
                person.say(fact)
        return alice, bob

    return make
