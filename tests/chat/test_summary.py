"""The offline summariser used by compaction: merges, keeps facts, drops greetings, caps, marks changed values."""

from assistants.llm.offline import offline_summary_merge
from assistants.services.tokens import token_count


def merge(summary, *texts, max_tokens=600, role="user"):
    return offline_summary_merge(
        old_summary=summary, messages=[{"role": role, "content": t} for t in texts], max_tokens=max_tokens
    )


def test_greetings_are_dropped_and_facts_kept_in_the_users_language():
    summary = merge(
        "", "你好！谢谢勇哥", "我是做餐饮的，预算大概四十万", "Hi there!", "I am a vegetarian and I live in Leeds"
    )
    assert "你好" not in summary and "Hi there" not in summary
    assert "- 用户：我是做餐饮的，预算大概四十万" in summary
    assert "- User: I am a vegetarian and I live in Leeds" in summary


def test_merging_never_starts_over_and_early_facts_survive_many_merges_under_the_cap():
    summary = merge("", "My daughter's name is Lily", "预算 40 万")
    filler = [
        "How do delivery platforms charge?",
        "What decor style would you pick?",
        "Okay, let me think about it",
        "I hear business is slow everywhere lately",
        "外卖平台的抽成一般怎么算？",
        "嗯嗯明白了",
        "Tell me more about marketing ideas for a small shop like mine, with examples please",
    ]
    for i in range(200):
        summary = merge(
            summary, filler[i % len(filler)], f"Another thought number {i} about the menu and decor", max_tokens=120
        )
        assert token_count(summary) <= 120
    assert "My daughter's name is Lily" in summary and "预算 40 万" in summary


def test_a_changed_value_is_marked_so_the_old_one_is_not_current():
    summary = merge("", "我看中南山区一个 100 平米的铺子")
    summary = merge(summary, "那我把面积砍到 60 平米呢")
    assert "100 平米的铺子（面积已改为 60 平米）" in summary
    summary = merge("", "We found a 900 square feet space downtown")
    summary = merge(summary, "Let's go with 650 square feet instead")
    assert "900 square feet space downtown (Size later changed to 650 square feet)" in summary


def test_the_offline_models_own_replies_add_nothing():
    summary = offline_summary_merge(
        old_summary="- 用户：预算 40 万",
        max_tokens=600,
        messages=[
            {
                "role": "assistant",
                "content": "（离线模型）已确认的关键信息：预算: 40 万；面积 100 平米",
                "offline": True,
            }
        ],
    )
    assert summary == "- 用户：预算 40 万"
