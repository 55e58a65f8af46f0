"""The guards of note writes (memory.services.notes.notes): a new note's kind, content and confidence are checked,
then the personal-identifier guard checks text, key and structured value before anything is stored or embedded;
what is refused is recorded as kinds and counts, never content."""

from __future__ import annotations

from core.exceptions import InvalidInput, NotFound
from memory.models import MemoryNote, PiiRejection
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


def note_fields_clean(
    *, tenant, end_user, content: str, quote: str, key: str, value, pii_policy: str
) -> tuple[str, str, str, dict | None]:
    """A new note's content, quote, key and value as the guard lets them be stored (memory_note_create): each
    redacted or refused by `pii_policy`, the key always refused, in that order."""
    content = note_text_clean(tenant=tenant, end_user=end_user, text=content, stage="note", pii_policy=pii_policy)
    quote = (
        note_text_clean(tenant=tenant, end_user=end_user, text=quote, stage="note", pii_policy=pii_policy)
        if quote
        else ""
    )
    key = note_key_clean(tenant=tenant, end_user=end_user, key=key)
    value = note_value_clean(tenant=tenant, end_user=end_user, value=value, pii_policy=pii_policy)
    return content, quote, key, value


def note_request_check(*, tenant, end_user, kind: str, content: str, confidence: float) -> str:
    """The content of a new note (memory_note_create), stripped, once the request is one a note can be made of (InvalidInput, or
    NotFound for another tenant's user, with a sentence that says what to fix)."""
    if end_user.tenant_id != tenant.pk:
        raise NotFound("That user does not exist.")
    if kind not in MemoryNote.Kind.values:
        raise InvalidInput(f"'{kind}' is not a note kind: use one of {', '.join(MemoryNote.Kind.values)}.")
    content = (content or "").strip()
    if not content:
        raise InvalidInput("A note needs a content sentence.")
    if not 0 <= float(confidence) <= 1:
        raise InvalidInput("Confidence must be between 0 and 1.")
    return content
