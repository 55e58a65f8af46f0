"""Acceptance scenario (seed 000): the noodle shop, in Chinese and in English. Early facts leave the window but
reach turn 11 through the merged summary and the pinned facts; the system prompt is never touched; the size the
user changed is not presented as current."""

import re

import pytest

from assistants.llm import sections
from assistants.services.compaction import session_compact
from tests.chat.helpers import make_session, say, section, verbatim

PROMPT_ZH = "你是抖音勇哥，说话直接、不留情面。粉丝咨询开店问题，按你的方法论给建议：房租别超营业额 15%。"
TURNS_ZH = [
    "勇哥你好，我准备开店，预算总共 40 万，帮我参谋参谋",
    "我在深圳，之前没开过店",
    "想做面馆，家里传下来的手擀面手艺",
    "人手的话大概 3 个员工",
    "我看中南山区一个 100 平米的铺子",
    "租金大概一个月三万吧",
    "那我把面积砍到 60 平米呢",
    "行，就这么定了",
    "装修我想搞点网红风格，但装修不超两成",
    "好的谢谢勇哥",
]
TURN_11_ZH = "还是按我最开始说的那个预算帮我算算，60 平米的店这钱怎么分配？"

PROMPT_EN = "You are a blunt restaurant consultant. Keep rent under 15% of revenue."
TURNS_EN = [
    "Hi! I'm planning to open a place and my total budget is $400,000.",
    "I'm based in Austin and I've never run a business before.",
    "I want to open a ramen shop, my family has a noodle recipe.",
    "I'll have about 3 employees at the start.",
    "I found a 1,000 square feet space on South Congress.",
    "Rent there is around $9k a month.",
    "Actually let's cut the space down to 600 square feet.",
    "Okay, that's settled then.",
    "Keep renovation under 20% of the budget, I don't want to overspend.",
    "Thanks a lot!",
]
TURN_11_EN = (
    "Go back to the budget I mentioned at the very start and work out how to split it for the 600 square feet shop."
)


def run_scenario(session, turns, *, compact):
    for text in turns:
        say(session, text)
        if compact:
            session_compact(tenant_id=session.tenant_id, session_id=session.pk)
            session.refresh_from_db()


@pytest.mark.django_db
@pytest.mark.parametrize("compact", [True, False], ids=["compacted", "compaction-pending"])
def test_noodle_shop_turn_11_uses_the_first_budget_chinese(compact):
    session = make_session(system_prompt=PROMPT_ZH, window_turns=2, summary_trigger_messages=2)
    run_scenario(session, TURNS_ZH, compact=compact)
    result = say(session, TURN_11_ZH)
    messages = result.context.messages

    assert messages[0] == {"role": "system", "content": PROMPT_ZH}  # byte-identical, first
    if compact:
        assert all(TURNS_ZH[0] not in text for text in verbatim(messages))  # turn 1 is no longer verbatim
    else:  # the job has not run yet: nothing is summarised, so nothing may be missing
        assert all(turn in verbatim(messages) for turn in TURNS_ZH)
    pinned = section(messages, sections.PINNED)
    assert re.search(r"预算: 40\s*万", pinned) and "面馆" in pinned and re.search(r"面积: 60\s*平米", pinned)
    assert "100" not in pinned  # the changed size is not presented as current
    summary = section(messages, sections.SUMMARY)
    if compact:
        assert re.search(r"40\s*万", summary)  # the budget also survives in the summary
    for stale in re.finditer(r"100\s*平米", summary):  # if the old size is mentioned, it is marked as replaced
        assert "已改为 60" in summary[stale.end() : stale.end() + 40]
    assert result.error is None
    assert result.reply.startswith("（离线模型）")
    assert re.search(r"按你的预算 40\s*万", result.reply) and "8 万" in result.reply  # 装修不超两成 of 40 万


@pytest.mark.django_db
def test_noodle_shop_turn_11_uses_the_first_budget_english():
    session = make_session(system_prompt=PROMPT_EN, window_turns=2, summary_trigger_messages=2)
    run_scenario(session, TURNS_EN, compact=True)
    result = say(session, TURN_11_EN)
    messages = result.context.messages

    assert messages[0] == {"role": "system", "content": PROMPT_EN}
    assert all(TURNS_EN[0] not in text for text in verbatim(messages))
    pinned = section(messages, sections.PINNED)
    assert "Budget: $400,000" in pinned and "ramen shop" in pinned and "Size: 600 square feet" in pinned
    assert "1,000" not in pinned
    summary = section(messages, sections.SUMMARY)
    assert "$400,000" in summary
    for stale in re.finditer(r"1,000 square feet", summary):
        assert "later changed to 600 square feet" in summary[stale.end() : stale.end() + 80]
    assert result.reply.startswith("(offline model)")
    assert "$400,000" in result.reply and "$80,000" in result.reply  # renovation at most 20%
