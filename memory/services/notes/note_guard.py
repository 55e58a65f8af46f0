"""The personal-identifier guard of note writes (memory.services.notes.notes): text, key and structured value are
checked before anything is stored or embedded; what is refused is recorded as kinds and counts, never content."""

from __future__ import annotations

from core.exceptions import InvalidInput
from memory.models import PiiRejection
from memory.services.identifiers.pii import pii_find, pii_find_in_value, pii_redact


def pii_reject(*, tenant, end_user, counts: dict[str, int], stage: str) -> None:
    """Record what the PII guard refused: kinds and counts, never the content."""
    for kind, count in counts.items():
        PiiRejection.objects.for_tenant(tenant).create(
            tenant=tenant, end_user=end_user, pii_kind=kind, stage=stage, count=count
        )


def note_text_clean(
    *, tenant, end_user, text: str, stage: str, refuse: bool = False, pii_policy: str | None = None
) -> str:
    """Text with no identifier left: refused (InvalidInput) or redacted by `pii_policy` (the effective policy's;
    default the tenant's). A correction (`refuse=True`: staff, API, web) is always refused: the person is there to
    take the identifier out."""
    if not pii_find(text):
        return text
    redacted, counts = pii_redact(text)
    pii_reject(tenant=tenant, end_user=end_user, counts=counts, stage=stage)
    if (pii_policy or tenant.pii_policy) == "redact" and not refuse:
        return redacted
    raise InvalidInput(PII_ERROR, code="personal_identifier", details={"kinds": sorted(counts)})


PII_ERROR = (
    "A note cannot hold a personal identifier (a phone number, ID, card or account number, e-mail, "
    "address, licence plate, messaging handle or IP address): remove it and try again."
)


def note_key_clean(*, tenant, end_user, key: str) -> str:
    """A key is a slot name: one with an identifier is refused whatever the pii_policy (a redacted key means
    nothing)."""
    key = (key or "").strip()[:100]
    found = pii_find(key)
    if found:
        counts: dict[str, int] = {}
        for m in found:
            counts[m.kind] = counts.get(m.kind, 0) + 1
        pii_reject(tenant=tenant, end_user=end_user, counts=counts, stage="note_key")
        raise InvalidInput(PII_ERROR, code="personal_identifier", details={"kinds": sorted(counts), "field": "key"})
    return key


def note_value_clean(*, tenant, end_user, value, refuse: bool = False, pii_policy: str | None = None):
    """A structured value with an identifier anywhere in it: refused, or dropped under the redact policy."""
    found = pii_find_in_value(value) if value is not None else []
    if not found:
        return value
    counts: dict[str, int] = {}
    for m in found:
        counts[m.kind] = counts.get(m.kind, 0) + 1
    pii_reject(tenant=tenant, end_user=end_user, counts=counts, stage="note_value")
    if (pii_policy or tenant.pii_policy) == "redact" and not refuse:
        return None
    raise InvalidInput(PII_ERROR, code="personal_identifier", details={"kinds": sorted(counts), "field": "value"})
