"""Privacy: erase everything about one end user (with a receipt), and export it. (Interface fixed; issue 7.)"""
from __future__ import annotations


def user_erase_request(*, tenant, end_user, requested_by: str):
    """Queue the erasure job and return its JobRecord (the API answers 202 {"job": id})."""
    raise NotImplementedError("issue 7")


def user_erase(*, tenant_id: int, end_user_id: int, requested_by: str, job_id: int | None = None) -> dict:
    """Delete every row about the user; return counts per table; write the ErasureReceipt. Idempotent."""
    raise NotImplementedError("issue 7")


def user_export(*, tenant, end_user) -> dict:
    """Everything held about one end user, as one JSON-serialisable document."""
    raise NotImplementedError("issue 7")
