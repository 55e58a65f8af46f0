"""Serializer building blocks shared by every endpoint: strict bodies and strings PostgreSQL can store."""

from __future__ import annotations

from rest_framework import serializers

MAX_ID = 2**63 - 1  # PostgreSQL bigint: larger ids cannot exist, so they are a 404, never a database error


def _storable(value: str) -> None:
    """A validator: raises on text PostgreSQL cannot store (DRF validators return nothing)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise serializers.ValidationError("This text contains invalid characters (unpaired surrogates).") from None


class Text(serializers.CharField):
    """A JSON string (a number is a wrong type, not text) that can be stored as it is: no NUL characters
    (DRF's default check), valid Unicode."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.validators.append(_storable)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class Id(serializers.IntegerField):
    """A JSON integer id (not a string, not a boolean)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class Bool(serializers.BooleanField):
    """A JSON true or false (not "yes", not 1)."""

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


class Number(serializers.FloatField):
    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictSerializer(serializers.Serializer):
    """A request body: a JSON object whose unknown fields are refused (a typo must not be silently ignored)."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


# A PATCH body: every field is optional, but a body that changes nothing is refused. (Comments, not docstrings,
# on these two: the schema would show a docstring as the description of every serializer built on them.)
class ChangeRequest(StrictSerializer):
    def validate(self, attrs):
        if not attrs:
            raise serializers.ValidationError("Send at least one field to change.")
        return attrs


# The answer to registering something that signs its requests (a webhook, a tool): it carries the secret, which
# no other answer shows.
class SecretShownOnce(serializers.Serializer):
    secret = serializers.CharField(help_text="Verify X-Signature with it. Shown only in this answer.")


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Stable, machine-readable: invalid, malformed_json, not_found, "
        "unauthenticated, throttled, request_too_large, ..."
    )
    message = serializers.CharField(help_text="One sentence for a person: what was wrong and what to do.")
    details = serializers.JSONField(help_text="Structured extras, e.g. {'fields': {'message': ['...']}}.")


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()
