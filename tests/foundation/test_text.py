"""The shared text toolkit (core.text): one answer to "is this Chinese", sentences, Chinese numerals on cn2an."""

from __future__ import annotations

import pytest

from core.text import (
    cn_number,
    cn_numerals_to_digits,
    has_chinese,
    language_of,
    mostly_chinese,
    share_of,
    split_sentences,
)


@pytest.mark.parametrize(
    ("text", "has", "mostly"),
    [
        ("我的预算大概 40 万", True, True),
        ("My budget is about 400k", False, False),
        ("I met 王伟 at the conference yesterday", True, False),  # a Chinese name keeps an English text English
        ("用 Python 写一个脚本", True, True),
        ("", False, False),
        (None, False, False),
    ],
)
def test_language(text, has, mostly):
    assert has_chinese(text) is has
    assert mostly_chinese(text) is mostly
    assert language_of(text) == ("zh" if has else "en")


def test_mostly_chinese_takes_the_callers_ratio():
    text = "周报 weekly report"  # 2 CJK characters, 12 Latin letters
    assert not mostly_chinese(text)
    assert mostly_chinese(text, latin_per_cjk=8)


def test_sentences_in_both_languages():
    assert split_sentences("我在杭州。店有 60 平！Is that big? Yes. ") == [
        "我在杭州。",
        "店有 60 平！",
        "Is that big?",
        "Yes.",
    ]
    assert split_sentences("  ") == []


@pytest.mark.parametrize(
    ("token", "value"),
    [
        ("5", 5.0),
        ("1,000", 1000.0),
        ("2.5", 2.5),
        ("五", 5.0),
        ("二十", 20.0),
        ("两", 2.0),
        ("两千", 2000.0),
        ("一百二十", 120.0),
        ("十五万", 150000.0),
        ("", None),
        ("预算", None),
    ],
)
def test_cn_number(token, value):
    assert cn_number(token) == value


def test_numerals_in_running_text_become_digits_and_words_stay():
    assert cn_numerals_to_digits("预算四千，员工十五个，一共两家店") == "预算4000，员工15个，一共两家店"
    assert cn_numerals_to_digits("十点见") == "十点见"  # cn2an cannot read it: left as written


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("装修不超过两成", 0.2),
        ("marketing under 15 percent", 0.15),
        ("百分之十五", 0.15),
        ("三分之一", 1 / 3),
        ("二十分之一", 0.05),
        ("about half of it", 0.5),
        ("one fifth", 0.2),
        ("a quarter", 0.25),
        ("on behalf of the team", None),
        ("the third floor", None),
        ("预算四十万", None),
    ],
)
def test_share_of(text, share):
    assert share_of(text) == pytest.approx(share) if share is not None else share_of(text) is None
