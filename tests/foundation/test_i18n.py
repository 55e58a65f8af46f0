"""Sentences services write for the user come from gettext in the user's language (Chinese when they wrote
Chinese), whatever language the request or worker that runs the service has active."""

from __future__ import annotations

import pytest
from django.utils import translation

from assistants.llm.errors import ModelError
from assistants.services.agent import model_error_sentence as _error_sentence
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


@pytest.mark.parametrize("active", ["en", "zh-hans"])
def test_the_offline_reply_and_task_hints_are_in_the_users_language(active):
    from assistants.llm.offline import offline_reply
    from tasks.models import TaskState
    from tasks.services.task_hints import hint_offer, hint_progress

    with translation.override(active):
        zh = offline_reply([{"role": "user", "content": "你好"}])
        en = offline_reply([{"role": "user", "content": "hello"}])
        assert zh == "（离线模型）\n关于你刚才说的「你好」：目前没有连接语言模型，我只能根据以上信息作答。"
        assert en.startswith('(offline model)\nAbout "hello": no language model is connected')
        shop = TaskState(
            task_name="开店计划",
            required_fields=[{"name": "城市"}, {"name": "预算"}],
            collected={"预算": {"value": "40 万"}},
            pending_fields=["城市"],
            state=TaskState.State.COLLECTING_INFO,
        )
        assert hint_progress(shop, True, ["预算"]) == "已记下预算：40 万（进度 1/2）。接下来请告诉我城市。"
        assert hint_offer(shop, True, or_new=True) == "你之前的开店计划还差城市，要继续吗？还是新建一个？"
        shop.task_name = "Shop plan"
        assert hint_offer(shop, False) == "Your earlier shop plan still needs the 城市. Shall we continue?"
        assert translation.get_language() == active


@pytest.mark.parametrize("active", ["en", "zh-hans"])
def test_the_offline_models_tool_sentences_are_in_the_users_language(active):
    from assistants.llm.offline_tools import offline_tool_lines

    def turn(text: str) -> list[dict]:
        calls = [
            {"id": "a", "type": "function", "function": {"name": "order_status", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "search_memory", "arguments": "{}"}},
        ]
        return [
            {"role": "user", "content": text},
            {"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "tool", "tool_call_id": "a", "content": '{"status": "timeout", "result": "1 s"}'},
            {"role": "tool", "tool_call_id": "b", "content": '{"status": "ok", "result": "{\\"results\\": []}"}'},
        ]

    with translation.override(active):
        assert offline_tool_lines(turn("我的订单到哪了？")) == [
            "order_status 没有成功：1 s",
            "我在你的记录里没有找到相关内容。",
        ]
        assert offline_tool_lines(turn("Where is my order?")) == [
            "order_status did not work: 1 s",
            "I found nothing about that in your notes.",
        ]
        assert translation.get_language() == active
