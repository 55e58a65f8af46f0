"""Python tools for the tool-calling tests, registered by dotted path in ASSISTANT_PYTHON_TOOLS as an operator's
own functions are: one that answers, one that raises, two that return what JSON has no form for, one that hangs
until released, one whose answer carries personal identifiers."""

from __future__ import annotations

import threading
from datetime import date

RELEASE = threading.Event()  # lets `hang` return once its test is over


def order_total(*, order: str) -> dict:
    """The total of one of the user's orders, in euros.

    (This paragraph is not part of the description.)"""
    return {"order": order, "total_eur": 42.5}


order_total.tool_parameters = {  # type: ignore[attr-defined]  # how a function declares its schema
    "type": "object",
    "properties": {"order": {"type": "string", "minLength": 1}},
    "required": ["order"],
}


def broken(**_arguments) -> dict:
    """Always fails."""
    raise RuntimeError("database password is hunter2")  # must reach neither the model nor the client


def odd_values(**_arguments):
    """Answers with values JSON has no form for."""
    return {"when": date(2025, 3, 1), "tags": {"a"}, "blob": b"\xff\x00", "thing": object()}


def circular(**_arguments):
    """Answers with a value that contains itself."""
    value: dict = {}
    value["self"] = value
    return value


def hang(**_arguments) -> dict:
    """Waits far longer than its timeout."""
    RELEASE.wait(10)
    return {"late": True}


hang.tool_timeout_seconds = 1  # type: ignore[attr-defined]  # how a function declares its timeout


def customer_card(**_arguments) -> dict:
    """The customer's contact card."""
    return {"name": "Ana", "email": "ana.souza@example.com", "phone": "+44 7700 900123", "plan": "gold"}
