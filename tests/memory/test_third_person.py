"""A note in the user's own words reads as a sentence about the user: the verb after "the user" agrees in the
third person when it is a base form, past forms and modals stay, and adverbs before the verb are passed over."""

import pytest

from memory.services.writing.rules import third_person


@pytest.mark.parametrize(
    ("said", "note"),
    [
        ("I go to the gym on Mondays", "The user goes to the gym on Mondays."),
        ("I have two cats", "The user has two cats."),
        ("I try new recipes every week", "The user tries new recipes every week."),
        ("I usually drink americano", "The user usually drinks americano."),
        ("I kind of like hiking", "The user kind of likes hiking."),
        ("I still work remotely", "The user still works remotely."),
        ("I totally agree", "The user totally agrees."),
        ("I had a setback with the screenplay", "The user had a setback with the screenplay."),
        ("I won the regional quiz final", "The user won the regional quiz final."),
        ("I came across this shop while browsing", "The user came across this shop while browsing."),
        ("I could cycle to work", "The user could cycle to work."),
        ("I live in Leeds and I work at a bank", "The user lives in Leeds and the user works at a bank."),
        ("I'm a teacher", "The user is a teacher."),
    ],
)
def test_english_words_become_a_sentence_about_the_user(said, note):
    assert third_person(said, chinese=False) == note


def test_chinese_words_name_the_user():
    assert third_person("我平时坐地铁上班", chinese=True) == "用户平时坐地铁上班。"
