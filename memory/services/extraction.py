"""Extraction of long-term notes from a user message. (Interface fixed; issue 4 fills it.)"""


def memory_extract_for_message(*, tenant_id: int, message_id: int) -> dict:
    """Write the durable, explicitly stated, PII-free facts of one message as notes. Idempotent per message.
    Returns counts for the job ledger: {"written": n, "refreshed": n, "superseded": n, "dropped": {...}}."""
    return {"written": 0}
