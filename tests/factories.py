"""factory_boy factories. Sub-factories take the tenant from their parent, so a built object graph never
spans two tenants by accident."""

from typing import TypeVar

import factory
from django.contrib.auth import get_user_model

from memory.models import MemoryNote
from tenancy.models import Assistant, ChatSession, EndUser, Message, Tenant

# A factory is typed by the model it makes (`XFactory.create()` is an X to the type checker; `XFactory()`, the same
# call at run time, is typed as the factory by factory_boy).
T = TypeVar("T")


class TenantOwnedFactory(factory.django.DjangoModelFactory[T]):
    """Tests build rows of several tenants on purpose, so factories write through the unscoped manager."""

    class Meta:
        abstract = True

    @classmethod
    def _get_manager(cls, model_class):
        return model_class._default_manager


class TenantFactory(factory.django.DjangoModelFactory[Tenant]):
    class Meta:
        model = Tenant
        django_get_or_create = ("slug",)

    slug = factory.Sequence(lambda n: f"tenant-{n}")
    name = factory.LazyAttribute(lambda o: o.slug.title())


class AuthUserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"person{n}")
    password = factory.PostGenerationMethodCall("set_password", "pw-123456")


class EndUserFactory(TenantOwnedFactory[EndUser]):
    class Meta:
        model = EndUser

    tenant = factory.SubFactory(TenantFactory)
    external_id = factory.Sequence(lambda n: f"user-{n}")


class AssistantFactory(TenantOwnedFactory[Assistant]):
    class Meta:
        model = Assistant

    tenant = factory.SubFactory(TenantFactory)
    name = "Helper"
    system_prompt = "You are a careful shop-opening consultant. 你是一名开店顾问。"


class ChatSessionFactory(TenantOwnedFactory[ChatSession]):
    class Meta:
        model = ChatSession

    end_user = factory.SubFactory(EndUserFactory)
    tenant = factory.SelfAttribute("end_user.tenant")
    assistant = factory.SubFactory(AssistantFactory, tenant=factory.SelfAttribute("..tenant"))


class MessageFactory(TenantOwnedFactory[Message]):
    class Meta:
        model = Message

    session = factory.SubFactory(ChatSessionFactory)
    tenant = factory.SelfAttribute("session.tenant")
    end_user = factory.SelfAttribute("session.end_user")
    role = Message.Role.USER
    content = "hello"


class MemoryNoteFactory(TenantOwnedFactory[MemoryNote]):
    class Meta:
        model = MemoryNote

    end_user = factory.SubFactory(EndUserFactory)
    tenant = factory.SelfAttribute("end_user.tenant")
    kind = MemoryNote.Kind.PREFERENCE
    key = "coffee"
    content = "The user drinks americano."
    source = MemoryNote.Source.USER_STATED
    confidence = 0.9
