"""Verifying a webhook delivery on the receiving side.

from memory_platform.webhooks import verify_signature
ok = verify_signature(secret, request.headers["X-Timestamp"], raw_body, request.headers["X-Signature"])
"""

from __future__ import annotations

import hashlib
import hmac
import time


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """`sha256=<hex>`: HMAC-SHA256 of `<timestamp>.<body>` under the endpoint's secret."""
    return "sha256=" + hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def verify_signature(secret: str, timestamp: str, body: bytes, received: str, *, tolerance_seconds: int = 300) -> bool:
    """True when `received` (the X-Signature header) signs this exact body at this time, and the time is within
    `tolerance_seconds` of now (an old delivery replayed by someone else is refused)."""
    try:
        fresh = abs(time.time() - int(timestamp)) <= tolerance_seconds
    except (TypeError, ValueError):
        return False
    return fresh and hmac.compare_digest(signature(secret, timestamp, body), received or "")
