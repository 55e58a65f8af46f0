"""A fact said again in other words is the note the user already has: one note, however it is said, and nothing
the user said is lost when the second wording adds something. Words that only look like a relative ("mother
tongue", 夜猫子, "person") do not make two statements about different people. Through the real chat turn and
extraction; every test has a second user with the same first facts, who keeps exactly their own notes."""

import pytest

pytestmark = pytest.mark.django_db


def _about(person, word: str) -> list[str]:
    return [n.content for n in person.notes() if word.lower() in n.content.lower()]


@pytest.mark.parametrize(
    ("fact", "again", "word"),
    [
        ("I don't eat pork.", "pork is a no-go for me, I never touch it", "pork"),
        ("My mother tongue is Welsh.", "Welsh is my first language", "welsh"),
        ("我对芒果过敏。", "芒果我是一口都不能碰 一碰就起疹子", "芒果"),
        ("我不吃芹菜。", "芹菜我是真的一口都碰不了", "芹菜"),
    ],
)
def test_a_fact_said_again_in_other_words_stays_one_note(two_people, fact, again, word):
    alice, bob = two_people([fact])
    before_bob = {n.pk: n.content for n in bob.notes()}
    assert len(_about(alice, word)) == 1
    alice.say(again)
    assert len(_about(alice, word)) == 1, [n.content for n in alice.notes()]
    assert {n.pk: n.content for n in bob.notes()} == before_bob


@pytest.mark.parametrize(
    ("fact", "more", "first", "second"),
    [
        ("I collect vinyl records.", "My vinyl collection is mostly 70s jazz.", "collect", "jazz"),
        ("我在学做陶艺。", "陶艺课在周六下午", "学做", "周六"),
    ],
)
def test_a_second_fact_about_the_same_thing_is_never_lost(two_people, fact, more, first, second):
    alice, bob = two_people([fact])
    alice.say(more)
    said = " ".join(n.content for n in alice.notes())
    assert first in said and second in said, said
    assert second not in " ".join(n.content for n in bob.notes())


@pytest.mark.parametrize(
    ("fact", "more", "first", "second"),
    [
        ("我每周去两次健身房。", "健身房离我公司很近", "两次", "公司"),
        ("I'm allergic to peanuts.", "I'm also allergic to shellfish.", "peanut", "shellfish"),
        ("I speak Spanish.", "I speak some Japanese too.", "Spanish", "Japanese"),
    ],
)
def test_a_second_statement_of_a_slot_that_holds_many_adds_to_it(two_people, fact, more, first, second):
    """Exercise, allergies, languages hold more than one thing: a second one said with no word of change is added,
    never put in the place of the first."""
    alice, bob = two_people([fact])
    alice.say(more)
    said = " ".join(n.content for n in alice.notes())
    assert first in said and second in said, said
    assert second not in " ".join(n.content for n in bob.notes())
