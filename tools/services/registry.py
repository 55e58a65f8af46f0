"""A tenant's HTTP tools: registering, changing and deleting them, with their schema and URL checked first.

Names of the built-in tools (tools.services.memory_tools) and of Python tools are reserved: a tenant's tool can
never stand in for one. URLs follow the webhooks' rules (webhooks.targets): checked here, and again on the
resolved address before every call."""

from __future__ import annotations

import re
import secrets

from django.db import transaction
from jsonschema import exceptions as schema_errors  # type: ignore[import-untyped]  # types-jsonschema not installed
from jsonschema.validators import validator_for  # type: ignore[import-untyped]  # as above

from core.changes import changes_checked
from core.exceptions import InvalidInput, NotFound
from tools.models import NAME_PATTERN, Tool
from webhooks.services import webhook_url_check

MAX_SCHEMA_CHARS = 20000


def tool_parameters_check(parameters) -> dict:
    """`parameters` if it is a JSON Schema of an object (what OpenAI-compatible models accept), else InvalidInput
    with the sentence saying what is wrong."""
    import json

    if parameters in (None, {}):
        return {"type": "object", "properties": {}}
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        raise InvalidInput('"parameters" must be a JSON Schema object: {"type": "object", "properties": {...}}.')
    if len(json.dumps(parameters)) > MAX_SCHEMA_CHARS:
        raise InvalidInput(f'"parameters" is longer than {MAX_SCHEMA_CHARS} characters of JSON.')
    try:
        validator_for(parameters).check_schema(parameters)
    except schema_errors.SchemaError as exc:
        raise InvalidInput(f'"parameters" is not a valid JSON Schema: {exc.message}.', code="invalid_schema") from None
    return parameters


def tool_name_check(name: str) -> str:
    from tools.services.catalogue import reserved_tool_names

    name = (name or "").strip()
    if not re.match(NAME_PATTERN, name):
        raise InvalidInput("A tool name is 1 to 64 letters, digits, '_' or '-'.", code="invalid_name")
    if name in reserved_tool_names():
        raise InvalidInput(f"'{name}' is the name of a built-in tool: choose another.", code="invalid_name")
    return name


def _timeout_check(timeout_seconds) -> float:
    """How long a call may take, in seconds, as registered and as changed: more than 0, at most a minute."""
    if not 0 < float(timeout_seconds) <= 60:
        raise InvalidInput("timeout_seconds must be more than 0 and at most 60.")
    return float(timeout_seconds)


def _description_clean(description) -> str:
    return (description or "").strip()[:1000]


def _assistants_of(tenant, assistant_ids) -> list:
    from tenancy.models import Assistant

    ids = sorted(set(assistant_ids or []))
    found = list(Assistant.objects.for_tenant(tenant).filter(pk__in=ids))
    missing = sorted(set(ids) - {a.pk for a in found})
    if missing:  # another tenant's assistant reads exactly as a missing one
        raise InvalidInput(
            f"Assistant(s) {', '.join(map(str, missing))} do not exist.", details={"assistants": missing}
        )
    return found


@transaction.atomic
def tool_create(
    *,
    tenant,
    name: str,
    description: str,
    url: str,
    parameters: dict | None = None,
    timeout_seconds: float = 5.0,
    assistants: list[int] | None = None,
) -> Tool:
    """Register an HTTP tool. Its `secret` is generated here; the API shows it once, at creation."""
    name = tool_name_check(name)
    if Tool.objects.for_tenant(tenant).filter(name=name).exists():
        raise InvalidInput(f"A tool named '{name}' exists already.", code="duplicate")
    timeout_seconds = _timeout_check(timeout_seconds)
    tool = Tool.objects.for_tenant(tenant).create(
        tenant=tenant,
        name=name,
        description=_description_clean(description),
        parameters=tool_parameters_check(parameters),
        url=webhook_url_check(url),
        timeout_seconds=timeout_seconds,
        secret="tlsec_" + secrets.token_urlsafe(32),
    )
    tool.assistants.set(_assistants_of(tenant, assistants), through_defaults={"tenant_id": tenant.pk})
    return tool


@transaction.atomic
def tool_update(*, tenant, tool: Tool, **changes) -> Tool:
    """Change an HTTP tool's description, parameters, url, timeout_seconds, is_active or assistants (a new list
    replaces the old one), each checked as at registration; InvalidInput on the first bad one and nothing saved.
    Its name and secret stay."""
    if tool.tenant_id != tenant.pk:
        raise NotFound("That tool does not exist.")
    checks = {
        "parameters": tool_parameters_check,
        "url": webhook_url_check,
        "timeout_seconds": _timeout_check,
        "description": _description_clean,
    }
    changes = changes_checked(changes, checks)
    assistants = _assistants_of(tenant, changes.pop("assistants")) if "assistants" in changes else None
    for name, value in changes.items():
        setattr(tool, name, value)
    tool.save()
    if assistants is not None:
        tool.assistants.set(assistants, through_defaults={"tenant_id": tenant.pk})
    return tool


@transaction.atomic
def tool_delete(*, tenant, tool: Tool) -> None:
    if tool.tenant_id != tenant.pk:
        raise NotFound("That tool does not exist.")
    tool.delete()
