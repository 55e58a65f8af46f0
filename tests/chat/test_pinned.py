"""Pinned facts: core constraints as structured data, in Chinese and English, replaced when the user changes
them, removed when withdrawn, always in context."""

import pytest

from assistants.llm import sections
from assistants.services.pinned import pinned_facts_apply, pinned_facts_extract
from tenancy.models import ChatSession, Message
from tests.chat.helpers import make_session, say, section


@pytest.mark.parametrize(
    "text, key, value",
    [
        ("我们手头能投的资金一共 25 万元", "budget", "25 万元"),
        ("预算改成50万吧", "budget", "50万"),
        ("打算在杭州开一家烘焙店", "category", "烘焙店"),
        ("打算在杭州开一家烘焙店", "city", "杭州"),
        ("铺子选在滨江区", "district", "滨江区"),
        ("店面大概 45 平方米", "size", "45 平方米"),
        ("国庆之前要开业", "deadline", "国庆"),
        ("我儿子对芒果过敏", "allergy", "芒果"),
        ("我们团队一共 6 个人", "headcount", "6 个人"),
        ("人工成本别超过百分之二十", "limit:人工", "别超过百分之二十"),
        ("Our budget is about 120k dollars", "budget", "120k dollars"),
        ("We want to open a bike repair shop in Denver", "category", "bike repair shop"),
        ("We want to open a bike repair shop in Denver", "city", "Denver"),
        ("The unit is 75 sqm", "size", "75 sqm"),
        ("It has to be ready by October 3rd", "deadline", "October 3rd"),
        ("My wife is allergic to shellfish", "allergy", "shellfish"),
        ("There will be 12 guests", "headcount", "12 guests"),
        ("Keep marketing under $5k", "limit:marketing", "at most $5k"),
    ],
)
def test_constraints_are_recognised_in_both_languages(text, key, value):
    found, _ = pinned_facts_extract(text)
    assert found.get(key) == value


@pytest.mark.parametrize(
    "text",
    [
        "你好，今天天气不错",
        "What do you think about that?",
        "还是按我最开始说的那个预算帮我算算",
        "Can you explain rent to me",
    ],
)
def test_small_talk_and_questions_pin_nothing(text):
    found, _ = pinned_facts_extract(text)
    assert not {k: v for k, v in found.items() if k != "rules"}


def test_rules_for_the_assistant_are_kept_and_accumulate():
    facts = pinned_facts_apply({}, "以后回答都用中文，不要超过五句话", message_id=1)
    facts = pinned_facts_apply(facts, "Please always call me Sam", message_id=2)
    assert "以后回答都用中文" in facts["rules"]["value"] and "call me Sam" in facts["rules"]["value"]


def test_a_changed_value_replaces_the_old_one_with_its_source_message():
    facts = pinned_facts_apply({}, "看中一个 100 平米的铺子", message_id=5)
    assert facts["size"]["value"] == "100 平米" and facts["size"]["message_id"] == 5
    facts = pinned_facts_apply(facts, "把面积砍到60平米", message_id=7)
    assert facts["size"] == {"value": "60平米", "message_id": 7, "updated_at": facts["size"]["updated_at"]}


def test_a_withdrawn_value_is_removed():
    facts = pinned_facts_apply({}, "I want to open a bakery in Austin", message_id=1)
    facts = pinned_facts_apply(facts, "I'm not opening in Austin anymore", message_id=2)
    assert "city" not in facts and facts["category"]["value"] == "bakery"
    facts = pinned_facts_apply({}, "想开面馆", message_id=1)
    facts = pinned_facts_apply(facts, "我不开面馆了，改做奶茶店", message_id=2)
    assert facts["category"]["value"] == "奶茶店"


@pytest.mark.django_db
def test_pinned_facts_are_stored_on_the_session_and_always_in_context():
    session = make_session(window_turns=1, budget_window_tokens=200)
    say(session, "My budget is $80,000 and I'm allergic to peanuts")
    for i in range(8):
        say(session, f"Tell me something interesting about cooking, part {i}, with enough words to fill the window up.")
    stored = ChatSession.objects.for_tenant(session.tenant).get(pk=session.pk).pinned_facts
    first = Message.objects.for_tenant(session.tenant).filter(session=session).order_by("id").first()
    assert stored["budget"]["value"] == "$80,000" and stored["budget"]["message_id"] == first.pk
    result = say(session, "What should I cook tonight?")
    pinned = section(result.context.messages, sections.PINNED)
    assert "Budget: $80,000" in pinned and "Allergy: peanuts" in pinned
    assert "$80,000" in result.reply and "peanuts" in result.reply
