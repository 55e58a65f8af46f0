"""What gets written to long-term memory (issue 9, bench workload 5), on phrasings other than the bench set's:
one note per fact however often and however it is restated, separate notes for separate facts in one sentence,
corrections that replace the old note, passing moods left out, and no identifier in any note."""

import pytest

from memory.models import MemoryNote
from memory.services.writing.rules import read_message, split_clauses


def facts(text):
    return [c for c in read_message(text) if not c.whim]


def slots(text):
    return {c.key for c in facts(text)}


# --- one sentence, several facts -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, first, second",
    [
        ("I'm vegan and my budget is roughly 300 dollars a month.", "diet", "budget"),
        ("I live in Lisbon and I have two dogs.", "location", "pet"),
        ("I work as an architect but my budget is only 10k.", "occupation", "budget"),
        ("我吃素，预算差不多每月三千块。", "diet", "budget"),
        ("我住在苏州，而且我养了一只猫。", "location", "pet"),
    ],
)
def test_clauses_with_their_own_subject_become_separate_notes(text, first, second):
    found = {c.key: c for c in facts(text)}
    assert {first, second} <= set(found), found
    # each note rests on its own clause: the hedge of one does not lower the other, the text is not shared
    assert found[first].quote != found[second].quote
    assert found[first].content != found[second].content


def test_a_hedge_in_one_clause_does_not_mark_the_other():
    found = {c.key: c for c in facts("I'm vegetarian and my budget is about 500 dollars.")}
    assert found["budget"].hedged and found["budget"].value == {"amount": 500, "currency": "USD", "approx": True}
    assert not found["diet"].hedged and found["diet"].confidence > found["budget"].confidence


@pytest.mark.parametrize("text", ["I like cats and dogs.", "I sleep and eat at odd hours."])
def test_and_inside_one_statement_does_not_split_it(text):
    assert len(split_clauses(text)) == 1


def test_a_relatives_job_is_not_the_users():
    found = {c.key for c in facts("I have a son and my husband works as an engineer.")}
    assert "occupation" not in found and "family" in found
    assert "occupation" not in {c.key for c in facts("我老公是医生。")}


# --- restatements ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, kept",
    [
        ("As I mentioned before, I teach maths.", "I teach maths"),
        ("Just to remind you, my budget is 8k.", "my budget is 8k"),
        ("我之前说过，我是会计。", "我是会计"),
        ("再提醒一下，我不吃香菜。", "我不吃香菜"),
    ],
)
def test_reminders_around_a_restatement_are_not_facts(text, kept):
    found = facts(text)
    assert found and all(kept in c.quote for c in found), [(c.key, c.quote) for c in found]
    assert not any(w in c.content.lower() for c in found for w in ("mentioned", "remind", "说过", "提醒"))


@pytest.mark.parametrize("text", ["I'm allergic to dogs.", "Dogs make me sneeze, I'm allergic.", "我对狗毛过敏。"])
def test_an_allergy_to_an_animal_is_no_pet(text):
    assert slots(text) == {"allergy"}


def test_a_shop_named_only_as_the_subject_of_its_size_is_no_second_note():
    assert slots("My cafe is 45 square meters.") == {"shop_size"}


def test_negation_by_cannot_is_read():
    [c] = [c for c in facts("I can't eat spicy food at all.") if c.key == "diet"]
    assert c.value == {"option": "spicy", "negated": True}


@pytest.mark.parametrize(
    "ways",
    [
        [
            "I prefer the aisle seat on trains.",
            "Remember, I always book an aisle seat on trains.",
            "You know I take the aisle seat on trains.",
        ],
        ["I live in Valencia.", "As I said, I'm based in Valencia.", "Valencia is where I live."],
        ["我对芒果过敏。", "记住我芒果过敏。", "我说过我对芒果过敏，别推荐芒果甜品。"],
        ["我住在青岛。", "我之前说过，我在青岛住。", "顺便说一下，我家在青岛。"],
        ["I'm allergic to cats.", "Remember, cats make me sneeze, I'm allergic.", "Again: cat allergy."],
    ],
)
def test_a_fact_restated_in_other_words_stays_one_active_note(make_person, ways):
    person = make_person()
    for text in ways:
        person.say(text)
    active = person.notes()
    assert len(active) == 1, [(n.kind, n.key, n.content) for n in active]


# --- corrections -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "before, after, new_word, old_word",
    [
        ("My favourite band is Queen.", "Actually my favourite band is Blur now, not Queen.", "Blur", "Queen"),
        ("I live in Nanjing.", "I moved, I live in Wuhan now.", "Wuhan", "Nanjing"),
        ("我住在厦门。", "我已经搬到福州了。", "福州", "厦门"),
        ("我最喜欢的水果是苹果。", "其实最喜欢的水果是香蕉，不是苹果了。", "香蕉", "苹果"),
    ],
)
def test_a_correction_leaves_only_the_new_fact_active(make_person, before, after, new_word, old_word):
    person = make_person()
    person.say(before)
    person.say(after)
    active = person.notes()
    assert any(new_word in n.content for n in active), [n.content for n in active]
    assert not any(old_word in n.content and new_word not in n.content for n in active), [n.content for n in active]
    assert person.notes(status=MemoryNote.Status.SUPERSEDED)


# --- statements with no marker, passing moods, identifiers ---------------------------------------------------------


@pytest.mark.parametrize(
    "text, word",
    [
        ("I drive an old Volvo estate.", "Volvo"),
        ("Our bistro seats 30 guests.", "30 guests"),
        ("我会说法语和德语。", "法语"),
        ("我穿 38 码的鞋。", "38"),
    ],
)
def test_plain_first_person_statements_are_facts(text, word):
    found = facts(text)
    assert any(word in c.content for c in found), [(c.kind, c.content) for c in found]


@pytest.mark.parametrize(
    "text",
    [
        "Tonight I'm craving sushi.",
        "I'm kind of into knitting videos this week, haha.",
        "I just read an article about Mars, crazy.",
        "今晚有点想吃烧烤。",
        "哈哈，我突然想去爬山。",
        "嗯，让我想想。",
        "Ping me when you land.",
        "给我讲个故事吧。",
        "联系我就行。",
    ],
)
def test_moods_and_requests_are_not_durable_facts(text):
    assert facts(text) == [], [(c.kind, c.content) for c in facts(text)]


@pytest.mark.parametrize(
    "text",
    [
        "My work phone: 020 7946 0321",
        "我的微信号是 wxid_abc123，随时联系。",
        "My visa card ends 1881, full number 4012888888881881.",
    ],
)
def test_identifier_talk_leaves_no_note(make_person, text):
    person = make_person()
    person.say(text)
    assert person.notes(status=None) == [], [n.content for n in person.notes(status=None)]


# --- hedges, standing instructions, dated plans, business figures ------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "The opening is at the end of May, I think.",
        "I'm pretty sure the fair is in Porto.",
        "Our rent is something like 2,000 a month.",
        "开业时间应该是十月底吧。",
        "我好像对花粉过敏，不太确定。",
    ],
)
def test_a_hedge_anywhere_in_the_sentence_marks_its_facts(text):
    found = facts(text)
    assert found and all(c.hedged and c.confidence < 0.8 for c in found), [(c.key, c.confidence) for c in found]


@pytest.mark.parametrize(
    "text, slot, amount, period",
    [
        ("Our rent is 3,500 dollars a month.", "rent", 3500, "month"),
        ("店铺房租每月八千。", "rent", 8000, "month"),
        ("We ship about 200 orders a week.", "orders", 200, "week"),
        ("每天能出三百单。", "orders", 300, "day"),
    ],
)
def test_rent_and_order_volume_are_figures_with_their_period(text, slot, amount, period):
    [c] = [c for c in facts(text) if c.key == slot]
    assert c.value["amount"] == amount and c.value["period"] == period


@pytest.mark.parametrize(
    "text",
    [
        "From now on, always reply to me in French.",
        "Never recommend anything with nuts to me.",
        "以后都用繁体字回复我。",
        "别再给我推荐羊肉了。",
    ],
)
def test_standing_instructions_are_durable_preferences(text):
    found = facts(text)
    assert found and found[0].kind in {"preference", "constraint"}, found


@pytest.mark.parametrize("text", ["The move is on March 3rd.", "周五去见房东。"])
def test_a_dated_event_without_a_subject_is_a_plan(text):
    assert [c.kind for c in facts(text)] == ["plan"]


def test_a_subjectless_change_only_changes_a_known_fact(make_person):
    person = make_person()
    person.say("The dentist appointment got moved to Friday.")  # nothing known to change: no note
    assert person.notes(status=None) == []
    person.say("My dentist appointment is on Monday.")
    person.say("The dentist appointment moved to Wednesday.")
    [active] = person.notes()
    assert "Wednesday" in active.content
    assert person.notes(status=MemoryNote.Status.SUPERSEDED)


@pytest.mark.parametrize(
    "text, identifier",
    [
        ("My work phone: 020 7946 0321", "020 7946 0321"),
        ("mobile 0412 345 678", "0412 345 678"),
        ("我的座机 (0571) 8888 1234", "8888 1234"),
        ("微信号是 chen_shop88", "chen_shop88"),
        ("QQ：1234567890", "1234567890"),
    ],
)
def test_labelled_phone_numbers_and_handles_are_identifiers(text, identifier):
    from memory.services.identifiers.pii import pii_redact

    redacted, counts = pii_redact(text)
    assert counts and identifier not in redacted, redacted


@pytest.mark.parametrize("text", ["order number 1234567 arrived", "my account is closed", "我们有 12 个员工"])
def test_unlabelled_numbers_and_words_are_not_identifiers(text):
    from memory.services.identifiers.pii import pii_find

    assert pii_find(text) == []


@pytest.mark.parametrize(
    "before, after, gone",
    [
        ("我在杭州上班。", "我已经不在杭州了，现在去了南京。", "杭州"),
        ("I run a pottery studio.", "I don't run the pottery studio anymore, I sold it.", "pottery"),
    ],
)
def test_saying_a_value_is_no_longer_so_ends_its_note(make_person, before, after, gone):
    person = make_person()
    person.say(before)
    assert any(gone in n.content for n in person.notes())
    person.say(after)
    assert person.notes(status=MemoryNote.Status.SUPERSEDED)
    assert not any(
        gone in n.content and not any(w in n.content for w in ("不", "n't", "not")) for n in person.notes()
    ), [n.content for n in person.notes()]


def test_a_free_form_restatement_of_a_slot_refreshes_it(make_person):
    person = make_person()
    person.say("My budget is 80,000 dollars.")
    person.say("Like I said, we've got 80,000 dollars for the whole project.")
    [note] = person.notes()
    assert note.key == "budget" and note.value == {"amount": 80000, "currency": "USD"}


@pytest.mark.parametrize(
    "text", ["From now on always show me what the other customers said.", "以后把大家的记录都发给我。"]
)
def test_a_standing_instruction_about_other_people_is_not_stored(text):
    assert not any("other" in c.content or "大家" in c.content for c in facts(text)), facts(text)
