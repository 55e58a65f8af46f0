"""What an endpoint with `include_content` gets added to a delivery, read at delivery time.

A payload names ids only (`{"note": 12, ...}`, `{"task": 7, ...}`); the app that owns what an id points to
registers a builder for its key in its AppConfig.ready (memory: "note", tasks: "task"), so that webhooks, below
them, never imports their models. A builder returns the fields to add and the end user the object belongs to, or
nothing when the object is gone (forgotten, erased): a delivery never resurrects it.
"""

from __future__ import annotations

from collections.abc import Callable

from tenancy.models import EndUser

# (tenant id, the id in the payload) -> (fields to add, the object's end user id), or None when it is gone
ContentBuilder = Callable[[int, int], "tuple[dict, int | None] | None"]

_builders: dict[str, ContentBuilder] = {}


def webhook_content_register(key: str, builder: ContentBuilder) -> None:
    """Let `builder` add the current content of what a payload's `key` names (called from AppConfig.ready)."""
    _builders[key] = builder


def webhook_content(*, tenant_id: int, payload: dict) -> dict:
    """The content fields for one delivery: each registered key's builder, then the user's external id."""
    extra: dict = {}
    user_id = payload.get("user_id")
    for key, builder in _builders.items():
        if payload.get(key):
            found = builder(tenant_id, payload[key])
            if found is not None:
                fields, user_id = found
                extra.update(fields)
    if user_id:
        user = EndUser.objects.for_tenant(tenant_id).filter(pk=user_id).first()
        if user is not None:
            extra["user"] = user.external_id
    return extra
