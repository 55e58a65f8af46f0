"""Partial updates (a PATCH of a tenant's tool or webhook): each field sent is checked as it was at creation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def changes_checked(changes: dict, checks: Mapping[str, Callable[[Any], Any]]) -> dict:
    """`changes` with each field that has a check replaced by what the check returns. The checks run in the order
    of `checks`, so the first bad field is the one reported (they raise InvalidInput); fields with no check pass
    as they are."""
    return {**changes, **{name: check(changes[name]) for name, check in checks.items() if name in changes}}
