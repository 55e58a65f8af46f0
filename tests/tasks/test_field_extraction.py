"""The offline field rules are general: other phrasings, other values, both languages, fields defined as data."""

import pytest

from tasks.examples import EXAMPLE_TASK_TYPES
from tasks.services.field_extraction import bare_answer, field_kind, fields_extract, is_question

ZH_FIELDS = EXAMPLE_TASK_TYPES[0]["required_fields"]
EN_FIELDS = EXAMPLE_TASK_TYPES[1]["required_fields"]


def values(text, fields):
    return {name: found.value for name, found in fields_extract(text=text, fields=fields).items()}


@pytest.mark.parametrize(
    "text,expected",
    [
        ("项目名称：蓝鲸数据平台", {"项目名称": "蓝鲸数据平台"}),
        ("这个项目就叫《晨曦》吧", {"项目名称": "晨曦"}),
        ("2026年3月15日之前必须交付", {"截止时间": "2026年3月15日"}),
        ("争取三周内搞定", {"截止时间": "三周内"}),
        ("下周五上线", {"截止时间": "下周五"}),
        ("我们一共十二个人", {"团队规模": "十二个人"}),
        ("人手大约8名工程师", {"团队规模": "8名工程师"}),
        ("预算一百五十万元", {"预算": "一百五十万元"}),
        ("经费 8000 块", {"预算": "8000 块"}),
        (
            "项目叫青鸟，年底前完成，6个人，预算30万",
            {"项目名称": "青鸟", "截止时间": "年底", "团队规模": "6个人", "预算": "30万"},
        ),
        ("你们几点下班？", {}),
    ],
)
def test_chinese_fields(text, expected):
    assert values(text, ZH_FIELDS) == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("Project name: Northwind Portal", {"project name": "Northwind Portal"}),
        ("we named it Falcon", {"project name": "Falcon"}),
        ("It has to ship by March 3rd, 2027", {"deadline": "March 3rd, 2027"}),
        ("we need it within 6 weeks", {"deadline": "within 6 weeks"}),
        ("twelve developers will work on it", {"team size": "twelve developers"}),
        ("it's a 3-person team", {"team size": "3-person team"}),
        ("we can spend 120,000 dollars", {"budget": "120,000 dollars"}),
        ("budget: €40k", {"budget": "€40k"}),
        ("Do you offer refunds?", {}),
    ],
)
def test_english_fields(text, expected):
    assert values(text, EN_FIELDS) == expected


def test_kinds_are_inferred_for_task_types_defined_as_data():
    assert field_kind({"name": "装修面积"}) == "text"
    assert field_kind({"name": "城市"}) == "place"
    assert field_kind({"name": "预计花费"}) == "amount"
    assert field_kind({"name": "活动日期"}) == "date"
    assert field_kind({"name": "guests", "description": "how many people come"}) == "count"
    custom = [{"name": "城市"}, {"name": "面积", "aliases": ["平米数"]}, {"name": "预算"}]
    assert values("在成都，面积大概90平米，预算15万", custom) == {"城市": "成都", "面积": "90平米", "预算": "15万"}


def test_bare_answers_and_questions():
    assert bare_answer("星河", ZH_FIELDS[0]).value == "星河"
    assert bare_answer("15", ZH_FIELDS[2]).normalized == 15
    assert bare_answer("你们周末上班吗", ZH_FIELDS[0]) is None
    assert is_question("Is the office open on Sunday") and is_question("周末上班吗") and not is_question("预算20万")
