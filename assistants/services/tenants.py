"""Creating tenants, their API keys, end users and assistants."""

from __future__ import annotations

import hashlib
import secrets

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from core.exceptions import Conflict, InvalidInput
from tasks.services.task_types import task_types_install_examples
from tenancy.identifiers import external_id_addressable, external_id_problem
from tenancy.models import ApiKey, Assistant, EndUser, Tenant

API_KEY_PREFIX = "mk_"

DEFAULT_SYSTEM_PROMPT = (
    "You are a helpful assistant with a memory. Use what you remember about the user when it helps, "
    "say so when you are unsure, and answer in the language the user writes in.\n"
    "你是一个有记忆的助手：在有帮助时使用你记得的用户信息，不确定时直说，并用用户使用的语言回答。"
)


def hash_api_key(raw_key: str) -> str:
    return hashlib.sha256(raw_key.encode()).hexdigest()


@transaction.atomic
def api_key_create(*, tenant: Tenant, name: str = "default") -> tuple[ApiKey, str]:
    """Create a key and return it with the raw key, which is never stored and cannot be shown again."""
    raw = API_KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey.objects.for_tenant(tenant).create(
        tenant=tenant, name=name, prefix=raw[:10], hashed_key=hash_api_key(raw)
    )
    return key, raw


@transaction.atomic
def tenant_create(*, slug: str, name: str = "", assistant_name: str = "Assistant") -> tuple[Tenant, str]:
    """A tenant with one assistant and one API key. Returns the tenant and the raw key."""
    clean = slugify(slug)
    if not clean or clean != slug:
        raise InvalidInput(f"'{slug}' is not a valid tenant slug: use lowercase letters, digits and dashes.")
    if Tenant.objects.filter(slug=slug).exists():
        raise Conflict(f"A tenant with the slug '{slug}' already exists.")
    tenant = Tenant.objects.create(slug=slug, name=name or slug)
    assistant = Assistant.objects.for_tenant(tenant).create(
        tenant=tenant, name=assistant_name, system_prompt=DEFAULT_SYSTEM_PROMPT
    )
    task_types_install_examples(tenant=tenant, assistant=assistant)
    _key, raw = api_key_create(tenant=tenant, name="default")
    return tenant, raw


def end_user_get_or_create(*, tenant: Tenant, external_id: str) -> EndUser:
    """The integrator addresses people by their own id; the first use creates the end user. A new id must follow
    tenancy.identifiers' rule (no invisible characters); an existing user is found whatever their id."""
    external_id = (external_id or "").strip()
    if not external_id_addressable(external_id):
        raise InvalidInput("The user id must be a non-empty string of at most 200 characters.")
    user = EndUser.objects.for_tenant(tenant).filter(external_id=external_id).first()
    if user is not None:  # the usual case: one read, no transaction
        return user
    problem = external_id_problem(external_id)
    if problem:
        raise InvalidInput(problem)
    try:
        with transaction.atomic():
            user, _ = EndUser.objects.for_tenant(tenant).get_or_create(tenant=tenant, external_id=external_id)
    except IntegrityError:  # two first requests at once
        user = EndUser.objects.for_tenant(tenant).get(external_id=external_id)
    return user


@transaction.atomic
def end_user_create_with_login(
    *, tenant: Tenant, external_id: str, username: str, password: str, display_name: str = ""
) -> EndUser:
    """An end user who can log in to the web chat."""
    auth_user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        auth_user.set_password(password)
        auth_user.save()
    end_user = end_user_get_or_create(tenant=tenant, external_id=external_id)
    end_user.user = auth_user
    end_user.display_name = display_name or end_user.display_name
    end_user.save(update_fields=["user", "display_name", "updated_at"])
    return end_user


@transaction.atomic
def api_key_revoke(*, tenant: Tenant, key: ApiKey) -> ApiKey:
    """Revoke a key: it stops authenticating at once. Revoking twice keeps the first time."""
    locked = ApiKey.objects.for_tenant(tenant).select_for_update().get(pk=key.pk)
    if locked.revoked_at is None:
        from django.utils import timezone

        locked.revoked_at = timezone.now()
        locked.save(update_fields=["revoked_at", "updated_at"])
    return locked


@transaction.atomic
def end_user_memory_set(*, tenant: Tenant, end_user: EndUser, enabled: bool, actor: str) -> EndUser:
    """The person's memory switch (web "What I remember", API PATCH /users/<id>/). Off: no long-term notes are
    written or recalled for them from the next turn on (assistants.services.chat.turn_uses_long_term_memory);
    notes already kept stay, listed and deletable, until the person forgets them or switches memory back on."""
    if end_user.tenant_id != tenant.pk:
        raise InvalidInput("That user does not belong to this tenant.")
    from memory.services.notes.moderation import audit_log_write

    before = EndUser.objects.for_tenant(tenant).filter(pk=end_user.pk).values_list("memory_enabled", flat=True).first()
    EndUser.objects.for_tenant(tenant).filter(pk=end_user.pk).update(memory_enabled=bool(enabled))
    if before != bool(enabled):  # audited like every other change to what is remembered
        audit_log_write(
            tenant=tenant,
            actor=actor,
            action="memory_switch",
            object_type="assistants.EndUser",
            object_id=end_user.pk,
            before={"memory_enabled": before},
            after={"memory_enabled": bool(enabled)},
        )
    end_user.memory_enabled = bool(enabled)
    return end_user
