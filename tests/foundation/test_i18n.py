"""Sentences services write for the user come from gettext in the user's language (Chinese when they wrote
Chinese), whatever language the request or worker that runs the service has active."""

from __future__ import annotations

import pytest
from django.utils import translation

from assistants.llm.errors import ModelError
from assistants.services.chat import _error_sentence
from assistants.services.pinned import pinned_label


@pytest.mark.parametrize("active", ["en", "zh-hans", None])
def test_the_users_language_wins_over_the_active_one(active):
    with translation.override(active):
        error = ModelError("x", reason="timeout")
        assert _error_sentence(error, True) == "语言模型没有及时回答，这条回复来自离线模型；你的消息已经保存。"
        assert _error_sentence(error, False) == (
            "The language model did not answer in time, so this reply comes "
            "from the offline model; your message is saved."
        )
        assert pinned_label("limit:装修", chinese=True) == "装修上限"
        assert pinned_label("rules", chinese=False) == "Rules for the assistant"
        assert translation.get_language() == active  # the service restored the language it found


def test_an_unknown_reason_or_key_still_reads_well():
    assert (
        _error_sentence(ModelError("x", reason="odd"), True)
        == "语言模型出错了，这条回复来自离线模型；你的消息已经保存。"
    )
    assert pinned_label("something_new", chinese=True) == "something_new"
