"""Property-based tests of the PII guard (memory.services.identifiers.pii): generated identifiers in Chinese and English
sentences, with spaces, dashes and full-width digits, are always found and redacted; ordinary numbers are not."""

import re
import unicodedata

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.services.identifiers.pii import REDACTED, pii_find, pii_redact
from tests.reliability.pii_strategies import held_out_sentence, ordinary_number_sentence, sentence_with_identifier

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def digits_of(text: str) -> str:
    return re.sub(r"\D", "", unicodedata.normalize("NFKC", text))


@PROPERTY
@given(sentence_with_identifier())
def test_every_generated_identifier_is_redacted(case):
    kind, value, sentence = case
    redacted, counts = pii_redact(sentence)
    assert value not in redacted, f"{kind} {value!r} survived in {redacted!r}"
    if kind != "email":
        # Not even the digits survive in another spacing: the longest digit run left is short.
        core = digits_of(value)
        assert core not in digits_of(redacted), f"{kind} digits of {value!r} survived in {redacted!r}"
    assert REDACTED in redacted and sum(counts.values()) >= 1


@PROPERTY
@given(st.lists(sentence_with_identifier(), min_size=2, max_size=4))
def test_several_identifiers_in_one_message_are_all_redacted(cases):
    text = " ".join(sentence for _, _, sentence in cases)
    redacted, _ = pii_redact(text)
    for kind, value, _ in cases:
        assert value not in redacted, f"{kind} {value!r} survived in {redacted!r}"


@PROPERTY
@given(ordinary_number_sentence())
def test_ordinary_numbers_are_not_redacted(case):
    text, number = case
    assert pii_find(text) == [], f"{text!r} was treated as personal data"
    assert pii_redact(text)[0] == text and number in text


@PROPERTY
@given(st.text(max_size=200))
def test_any_text_is_handled_and_offsets_are_in_range(text):
    for match in pii_find(text):
        assert 0 <= match.start < match.end <= len(text)
    redacted, _ = pii_redact(text)
    assert isinstance(redacted, str)


@PROPERTY
@given(held_out_sentence())
def test_held_out_formats_are_redacted(case):
    """Issue 15: spelled and mixed digits, national phone formats, spaced IDs, plates, IPs and handles, generated
    rather than taken from the adversarial set."""
    kind, value, sentence = case
    redacted, counts = pii_redact(sentence)
    assert value not in redacted and counts, f"{kind} {value!r} survived in {redacted!r}"
    core = digits_of(value)
    if len(core) >= 7:
        assert core not in digits_of(redacted), f"{kind} digits of {value!r} survived in {redacted!r}"
