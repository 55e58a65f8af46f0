"""The model gateway (core.llm): one client per process and setting, and one reading of a JSON answer."""

from __future__ import annotations

import pytest
from django.test import override_settings
from pydantic import BaseModel

from core import llm


class Answer(BaseModel):
    city: str


def test_one_client_per_setting_reused_across_calls():
    with override_settings(OPENAI_BASE_URL="http://127.0.0.1:1/v1", OPENAI_API_KEY="k", LLM_MAX_RETRIES=2):
        first = llm.model_client()
        assert llm.model_client() is first
        assert llm.model_client(max_retries=0) is not first  # the job ledger's calls retry themselves
        assert llm.model_client(max_retries=0).max_retries == 0 and first.max_retries == 2
    with override_settings(OPENAI_BASE_URL="http://127.0.0.1:2/v1", OPENAI_API_KEY="k"):
        assert llm.model_client() is not first  # another endpoint, another client


@pytest.mark.parametrize("text", ['{"city": "成都"}', '```json\n{"city": "成都"}\n```', '```\n{"city": "成都"}```'])
def test_json_answers_with_or_without_a_fence(text):
    assert llm.parse_json_answer(text, Answer).city == "成都"


@pytest.mark.parametrize("text", ["", "成都", '{"town": "成都"}', "[1, 2]"])
def test_a_json_answer_that_does_not_match_is_refused(text):
    with pytest.raises(llm.ModelAnswerInvalid):
        llm.parse_json_answer(text, Answer)
