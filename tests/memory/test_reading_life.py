"""Changes of a life the words of a note do not share (a break-up, a degree finished, a new rota, a hobby given up),
the relative a sentence is about, forgets that speak of the user and not their people, and what a message says
beside a secret, through the real chat turn and extraction. Every test has a second user with the same words, who
must keep everything."""

import pytest

pytestmark = pytest.mark.django_db


def _active(person) -> dict[int, str]:
    return {n.pk: n.content for n in person.notes()}


def _holding(person, word: str) -> list[int]:
    return [pk for pk, content in _active(person).items() if word in content]


@pytest.mark.parametrize(
    ("facts", "change", "old", "new", "kept"),
    [
        (
            ["My boyfriend is called Tom.", "I play squash on Fridays."],
            "Tom and I split up in March. I'm seeing someone called Leo now",
            "boyfriend",
            "Tom and",
            "squash",
        ),
        (
            ["I'm a final-year law student.", "I like hiking."],
            "Graduated on Friday!! done with uni",
            "student",
            "raduated",
            "hiking",
        ),
        (["我在读研二，学的是材料。", "我喜欢打羽毛球。"], "答辩过了 正式毕业啦", "研二", "毕业", "羽毛球"),
        (["我周末喜欢去爬山。", "我养了一只仓鼠。"], "爬山最近没去了 迷上骑行了", "喜欢去爬山", "骑行", "仓鼠"),
        (
            ["I work nights on Mondays and Tuesdays.", "I have choir on Thursday evenings."],
            "rota's changed, my nights are Fridays and Saturdays now so choir is fine",
            "Mondays",
            "Fridays",
            "choir on Thursday",
        ),
        (["我在备考教师资格证。", "我喜欢喝咖啡。"], "教资考过啦 现在在准备考公", "备考教师", "考公", "咖啡"),
        (
            ["我女儿在实验小学上二年级。", "我儿子在二中读初一。"],
            "闺女转学了，现在在育才小学",
            "实验小学",
            "育才",
            "二中",
        ),
    ],
)
def test_a_change_of_life_replaces_the_note_it_is_about_and_no_other(two_people, facts, change, old, new, kept):
    """A break-up names who the user is with, a degree finished what they study, a
    new rota their hours, a hobby given up that hobby, a change of a daughter's school the daughter's note; a plan
    said after the change ("现在在准备考公") is the new value, not a reason to keep the old one."""
    alice, bob = two_people(facts)
    before = _holding(alice, old)
    assert len(before) == 1, _active(alice)
    alice.say(change)
    active = _active(alice)
    assert before[0] not in active, active
    assert any(new in content for content in active.values()), active
    assert any(kept in content for content in active.values()), active
    assert len(_holding(bob, old)) == 1 and not _holding(bob, new), _active(bob)


@pytest.mark.parametrize(
    ("fact", "musing"),
    [
        ("我在银行上班。", "现在在考虑要不要辞职去读书"),
        ("I live in Leeds.", "if we moved to Bath I reckon we'd be happier"),
    ],
)
def test_a_plan_or_a_hypothetical_changes_nothing(two_people, fact, musing):
    alice, _bob = two_people([fact])
    before = _active(alice)
    alice.say(musing)
    assert set(before) <= set(_active(alice)), _active(alice)


@pytest.mark.parametrize(
    ("facts", "request_text", "gone", "kept"),
    [
        (
            ["I see a therapist every week.", "My brother is a therapist in Leeds."],
            "I'd rather you didn't keep anything about my therapy, tbh",
            "every week",
            "brother",
        ),
        (["我膝盖做过手术。", "我儿子在学跆拳道。"], "我跆拳道受伤那个删掉吧", None, "跆拳道"),
        (
            ["I have a huge overdraft.", "I play the ukulele."],
            "can we pretend I never told you about the overdraft?",
            "overdraft",
            "ukulele",
        ),
    ],
)
def test_a_forget_in_the_users_own_words_spares_their_peoples_notes(two_people, facts, request_text, gone, kept):
    """A forget that speaks of the user ("my therapy", "我…受伤") does not take a note about one of their people
    that shares its word; "pretend I never told you" is a forget, not a game."""
    alice, bob = two_people(facts)
    alice.say(request_text)
    left = " ".join(_active(alice).values())
    assert kept in left, left
    if gone:
        assert gone not in left, left
    assert all(any(word in content for content in _active(bob).values()) for word in (kept, gone or kept))


@pytest.mark.parametrize(
    ("text", "secret", "kept"),
    [
        ("门禁密码58213# 对了我们刚搬到无锡了", "58213", "无锡"),
        ("my security answer is Biscuit (first dog) - btw we adopted a parrot called Kiwi", "Biscuit", "Kiwi"),
        ("my passphrase is purple monkey dishwasher", "monkey", None),
    ],
)
def test_what_a_message_says_beside_a_secret_is_kept_and_the_secret_nowhere(two_people, text, secret, kept):
    """The clause after a secret's value is kept when a break and a joining word open it; words that follow the
    value with no break may be more of the secret and are dropped with it."""
    alice, bob = two_people(["I like tea."])
    alice.say(text)
    everything = " ".join(n.content + " " + (n.quote or "") for n in alice.notes(status=None))
    assert secret not in everything, everything
    if kept:
        assert kept in " ".join(_active(alice).values()), _active(alice)
    assert not any(kept and kept in c for c in _active(bob).values())


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("used to run a pub in Whitby, ten years of it", ["pub", "used to"]),
        ("以前在部队当过五年兵 现在退伍了", ["当过", "兵"]),
        ("每个月定投500块买基金", ["500", "基金"]),
    ],
)
def test_what_the_user_did_before_or_does_every_month_is_kept_without_a_subject(two_people, text, words):
    alice, bob = two_people(["I like tea."])
    alice.say(text)
    kept = " ".join(_active(alice).values())
    assert all(w in kept for w in words), kept
    assert not any(w in " ".join(_active(bob).values()) for w in words)


@pytest.mark.parametrize(
    ("text", "word"),
    [("Please use metric units with me, kilos and centimetres", "metric"), ("以后叫我大刘就行 哈哈", "大刘")],
)
def test_a_style_instruction_is_kept_as_the_users_preference(two_people, text, word):
    """How the user wants to be answered or called is theirs to keep, not a plan read from "以后"."""
    alice, bob = two_people(["I like tea."])
    alice.say(text)
    notes = alice.notes()
    assert any(word in n.content and n.kind == "preference" for n in notes), [(n.kind, n.content) for n in notes]
    assert not any(n.kind == "plan" and word in n.content for n in notes), [n.content for n in notes]
    assert not any(word in n.content for n in bob.notes())


def test_dropping_down_to_part_time_is_a_change_not_a_forget(two_people):
    alice, bob = two_people(["I work full-time as a pharmacist.", "I have a teenage son."])
    alice.say("I've dropped down to part-time, four days a week")
    active = " ".join(_active(alice).values())
    assert "part-time" in active and "full-time" not in active and "son" in active, active
    assert "full-time" in " ".join(_active(bob).values())


@pytest.mark.parametrize(
    ("facts", "request_text", "gone", "kept"),
    [
        (
            ["My ex-girlfriend is called Megan.", "I play badminton."],
            "Megan is old news. No need for you to keep her around.",
            "Megan",
            "badminton",
        ),
        (["我前男友叫阿伟。", "我喜欢爬山。"], "阿伟早就是过去式了，你也没必要存着他", "阿伟", "爬山"),
    ],
)
def test_a_forget_that_names_someone_by_a_pronoun_takes_the_one_just_named(two_people, facts, request_text, gone, kept):
    alice, bob = two_people(facts)
    assert any(gone in c for c in _active(alice).values()), _active(alice)
    alice.say(request_text)
    left = " ".join(_active(alice).values())
    assert gone not in left and kept in left, left
    assert gone in " ".join(_active(bob).values())


def test_no_need_to_save_money_is_not_a_forget(two_people):
    alice, _bob = two_people(["我在攒钱买房。"])
    alice.say("其实也没必要存钱吧，开心最重要")
    assert any("攒钱" in c for c in _active(alice).values()), _active(alice)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("we brought home a new guinea pig last week, called Biscuit", ["guinea pig", "Biscuit"]),
        ("家里新添了只仓鼠，叫豆豆", ["仓鼠", "豆豆"]),
    ],
)
def test_a_new_pet_of_any_kind_is_kept_with_the_name_given_to_it(two_people, text, words):
    """Animals other than cats and dogs are pets too, and "…, called Biscuit" names the one just told of."""
    alice, bob = two_people(["I like tea."])
    alice.say(text)
    active = list(_active(alice).values())
    assert any(all(w in c for w in words) for c in active), active
    assert all(words[0] in c for c in active if words[1] in c), active  # no note of the name alone
    assert not any(words[1] in c for c in _active(bob).values())
