"""How people say a forget or a change in chat: shorthand ("can u delete"), a bare name ("forget priya"), a pronoun
after the thing was named, "those two", a relative the user's own note is not about; a job left, a promotion, a
raise, a new phone, a diet given up, a child's new school, a move said as settling in, and a change whose new value
comes in a second short sentence. Through the real chat turn and extraction; every test has a second user with the
same words, who must keep everything."""

import pytest

pytestmark = pytest.mark.django_db


def _active(person) -> dict[int, str]:
    return {n.pk: n.content for n in person.notes()}


def _left(person) -> str:
    return " ".join(_active(person).values())


@pytest.mark.parametrize(
    ("facts", "request_text", "gone", "kept"),
    [
        (
            ["I have a membership at Anytime Fitness.", "I drink oat milk."],
            "can u delete the gym membership thing",
            "Anytime",
            "oat",
        ),
        (
            ["My physio is called Dariusz.", "I go climbing on Sundays."],
            "forget dariusz, all done with physio",
            "Dariusz",
            "climbing",
        ),
        (
            ["I got a parking fine last month.", "I cycle to work."],
            "that parking fine... honestly let's just pretend I never mentioned it, ok?",
            "parking",
            "cycle",
        ),
        (
            ["我在办离婚手续。", "我离婚的律师姓周。", "我喜欢吃火锅。"],
            "手续都办完了 离婚那两条可以删了",
            "离婚",
            "火锅",
        ),
        (["我在学书法。", "我每周去游泳。"], "书法那个删掉 游泳那条留着", "书法", "游泳"),
        (
            ["My girlfriend Marta is a nurse.", "Marta and I go bouldering on Fridays.", "I like hiking."],
            "Marta and I split up. delete anything with her in it",
            "Marta",
            "hiking",
        ),
        (["我在吃维生素D。", "我喜欢爬山。"], "维生素那个 帮我清一下", "维生素", "爬山"),
        (
            ["My grandad has dementia.", "I volunteer at a food bank."],
            "the one about my grandad's dementia, take it out please",
            "dementia",
            "food",
        ),
        (
            ["I grew up in Sligo.", "I collect fountain pens."],
            "Could you take where I grew up out of your memory?",
            "Sligo",
            "fountain",
        ),
        (
            ["I have a dentist appointment on Friday.", "I play darts."],
            "Scratch the dentist, I went already.",
            "dentist",
            "darts",
        ),
        (["我去年辞职了。", "我养了两只鸭子。"], "辞职那档子事翻篇了 你那边也清干净吧", "辞职", "鸭子"),
    ],
)
def test_a_forget_said_in_chat_shorthand_by_name_or_by_pronoun_takes_that_note(
    two_people, facts, request_text, gone, kept
):
    alice, bob = two_people(facts)
    assert gone in _left(alice)
    alice.say(request_text)
    assert gone not in _left(alice) and kept in _left(alice), _active(alice)
    assert gone in _left(bob) and kept in _left(bob), _active(bob)


@pytest.mark.parametrize(
    ("facts", "request_text", "word"),
    [
        (
            ["I had knee surgery last year.", "I like gardening."],
            "delete what I said about my brother's knee surgery",
            "knee",
        ),
        (["我女儿在学钢琴。", "我喜欢喝茶。"], "我外甥学钢琴那个删了", "钢琴"),
    ],
)
def test_a_forget_about_a_relative_leaves_the_notes_of_others(two_people, facts, request_text, word):
    """A forget that names a brother or a nephew does not take the user's own note or their daughter's."""
    alice, _bob = two_people(facts)
    before = _active(alice)
    alice.say(request_text)
    assert _active(alice) == before and word in _left(alice)


def test_two_notes_with_the_name_said_are_asked_about(two_people):
    alice, bob = two_people(["My cousin Priya lives in Toronto.", "My sister-in-law Priya is on maternity leave."])
    before = _active(alice)
    turn = alice.say("forget priya")
    assert _active(alice) == before  # nothing guessed
    assert any("Toronto" in h and "maternity" in h for h in turn.context.hints), turn.context.hints
    assert "Toronto" in _left(bob) and "maternity" in _left(bob), _active(bob)


def test_losing_ones_mind_is_no_forget(two_people):
    alice, _bob = two_people(["I have a cat called Mochi."])
    alice.say("if Mochi ever got out I'd lose my mind")
    alice.say("honestly I'd lose it")
    assert "Mochi" in _left(alice), _active(alice)


@pytest.mark.parametrize(
    ("facts", "change", "old", "new", "kept"),
    [
        (["我在字节做产品经理。", "我喜欢打羽毛球。"], "字节那边我已经不干了 先歇一阵", "字节", "不干", "羽毛球"),
        (
            ["I'm a junior analyst at Barclays.", "I play the cello."],
            "moved up to senior analyst last month",
            "junior",
            "senior",
            "cello",
        ),
        (["我月薪一万块。", "我每月存两千。"], "加薪了 现在到手13000", "一万", "13000", "两千"),
        (
            ["I use an iPhone 11.", "I have an iPad for work."],
            "old phone died so I got a Pixel 8",
            "iPhone",
            "Pixel",
            "iPad",
        ),
        (
            ["I'm vegan.", "I drink oat milk."],
            "I'm not vegan anymore, eating fish again",
            "is vegan.",
            "not vegan",
            "oat",
        ),
        (
            ["My son goes to Oakfield Primary.", "My niece goes to Oakfield Grammar."],
            "my lad started at Riverside Academy this week",
            "Oakfield Primary",
            "Riverside",
            "niece",
        ),
        (["我住在福州。", "我老家在莆田。"], "已经在厦门安顿下来了", "福州", "厦门", "莆田"),
        (["我的爱好是玩桌游。", "我喜欢喝乌龙茶。"], "桌游退坑了 最近迷上飞盘", "玩桌游", "飞盘", "乌龙茶"),
        (["我开一辆白色的卡罗拉。", "我住在苏州。"], "卡罗拉上个月出掉了 提了台理想L6", "白色", "理想", "苏州"),
        (
            ["I drive a Honda Jazz.", "I live in Bristol."],
            "traded the jazz in last week, picked up a Kia Niro",
            "Honda",
            "Niro",
            "Bristol",
        ),
        (
            ["I'm vegetarian.", "I drink oat milk."],
            "fyi im vegan now, my doctor is fine with it",
            "vegetarian",
            "vegan",
            "oat",
        ),
        (
            ["I work at Acme Logistics.", "I like jazz."],
            "not at Acme anymore. contracting now",
            "Acme",
            "contracting",
            "jazz",
        ),
        (
            ["我住在南京江宁。", "我喜欢打台球。"],
            "从江宁搬到鼓楼了 虽然房租贵了点 但上班近多了",
            "江宁",
            "鼓楼",
            "台球",
        ),
        (["我儿子在红星小学上学。", "我喜欢打台球。"], "我儿子这学期转去育才小学了", "红星", "育才", "台球"),
        (
            ["I'm a payroll analyst.", "I play the banjo."],
            "Just to let you know, I have been appointed Head of Payroll.",
            "analyst",
            "Head of Payroll",
            "banjo",
        ),
    ],
)
def test_a_change_said_in_chat_replaces_the_note_it_is_about_and_no_other(two_people, facts, change, old, new, kept):
    alice, bob = two_people(facts)
    before = [pk for pk, c in _active(alice).items() if old in c]
    assert len(before) == 1, _active(alice)
    alice.say(change)
    active = _active(alice)
    assert before[0] not in active, active
    assert any(new in c for c in active.values()), active
    assert kept in _left(alice), active
    assert old in _left(bob) and new not in _left(bob), _active(bob)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("gonna sit the CFA level 1 in the spring", ["going to", "CFA"]),
        ("hoping to cycle from Land's End to John o' Groats next summer", ["hoping", "cycle"]),
        ("fyi I switched my bank to Starling", ["Starling"]),
        ("大学的时候在新加坡交换过 待了一个学期", ["新加坡"]),
        ("每个月房租大概4500 有点肉疼", ["4500"]),
        ("Born in Accra, been in Leeds for years now", ["born", "Accra"]),
        ("Used to teach maths in Lisbon", ["used to", "maths"]),
        ("Anyway, took up aerial hoop this month, it's brutal.", ["aerial hoop"]),
        ("been doing intermittent fasting since June", ["intermittent fasting"]),
        ("Lived in Porto for six years before the kids came along", ["Porto"]),
    ],
)
def test_a_subjectless_plan_or_fact_keeps_its_meaning(two_people, text, words):
    alice, bob = two_people(["I like tea."])
    alice.say(text)
    assert any(all(w in c for w in words) for c in _active(alice).values()), _active(alice)
    assert not any(words[-1] in c for c in _active(bob).values()), _active(bob)


@pytest.mark.parametrize("text", ["summarise the plot of Macbeth in 4 bullet points", "用表格对比一下这两款电动车"])
def test_a_task_with_its_format_is_no_standing_preference(two_people, text):
    alice, _bob = two_people(["I like tea."])
    before = _active(alice)
    alice.say(text)
    assert _active(alice) == before, _active(alice)


@pytest.mark.parametrize(
    ("facts", "request_text", "gone", "kept"),
    [
        (
            ["I sleepwalk sometimes.", "I drink chamomile tea before bed.", "I'm scared of flying."],
            "delete the bit about me wandering around the house while asleep",
            "sleepwalk",
            "chamomile",
        ),
        (["我睡觉磨牙。", "我睡前喝牛奶。", "我有恐飞症。"], "我半夜会咬牙那个删了吧", "磨牙", "牛奶"),
    ],
)
def test_a_paraphrase_the_first_encoder_finds_as_close_as_another_note_is_settled_by_the_second(
    two_people, facts, request_text, gone, kept
):
    """Two notes about equally close to the first encoder: the second (multilingual-e5) says which one is meant."""
    alice, bob = two_people(facts)
    alice.say(request_text)
    assert gone not in _left(alice) and kept in _left(alice), _active(alice)
    assert gone in _left(bob), _active(bob)


def test_the_second_encoder_names_nothing_the_first_did_not_find(two_people):
    alice, _bob = two_people(["I'm allergic to penicillin.", "I live in Hull.", "I like peanut butter."])
    before = _active(alice)
    alice.say("forget my blood type")
    assert _active(alice) == before, _active(alice)


def test_a_security_answer_given_after_its_quoted_question_is_kept_nowhere_and_the_rest_is_kept(two_people):
    alice, bob = two_people(["I like tea."])
    alice.say("工行密保问题'小学班主任姓什么'我填的是'欧阳' 对了我现在在一家药企做质检")
    stored = " ".join(n.content + " " + (n.quote or "") for n in alice.notes(status=None))
    assert "欧阳" not in stored, stored
    assert any("质检" in c for c in _active(alice).values()), _active(alice)
    assert "质检" not in _left(bob)


@pytest.mark.parametrize(
    "text",
    [
        "南京跟苏州比 哪个更适合养老啊",  # a question with no question mark
        "有点想明年辞职去读研 还没想好",  # a soft wish, a decision not made
        "Say I quit the bank, would I get my pension?",  # a premise said with "say"
    ],
)
def test_a_question_or_a_wish_with_a_change_word_replaces_nothing(two_people, text):
    alice, bob = two_people(["我在银行上班。", "我住在南京。"])
    before = _active(alice)
    alice.say(text)
    assert _active(alice) == before, _active(alice)
    assert "银行" in _left(bob) and "南京" in _left(bob), _active(bob)


@pytest.mark.parametrize(
    "text", ["我表哥去年考上公务员了 全家都挺高兴", "my brother-in-law quit his job at the bank, wild"]
)
def test_a_relatives_news_is_theirs_and_changes_no_note_of_the_user(two_people, text):
    alice, _bob = two_people(["我在银行上班。", "I like tea."])
    before = _active(alice)
    alice.say(text)
    assert _active(alice) == before, _active(alice)


@pytest.mark.parametrize(
    ("facts", "request_text", "gone", "kept"),
    [
        (["我血脂有点高。", "我喜欢游泳。"], "血脂这个 你那边就别存着了 我自己清楚", "血脂", "游泳"),
        (["我在一家券商做研究员。", "我养了一只柯基。"], "跟我工作有关的都删了吧 周末不想看到", "券商", "柯基"),
    ],
)
def test_a_chinese_forget_with_a_clause_after_it_spaced_not_punctuated(two_people, facts, request_text, gone, kept):
    alice, bob = two_people(facts)
    alice.say(request_text)
    assert gone not in _left(alice) and kept in _left(alice), _active(alice)
    assert gone in _left(bob), _active(bob)


@pytest.mark.parametrize(
    ("text", "stored", "not_stored"),
    [
        ("我其实不会滑雪 别老给我推荐雪场了", "不会滑雪", "推荐"),
        ("在东京这边 月薪40万日元", "40万日元", None),
        ("小李下个月结婚 新娘是她同事 真替她高兴", None, "结婚"),
    ],
)
def test_a_space_between_chinese_clauses_is_read_as_a_comma(two_people, text, stored, not_stored):
    """Chat Chinese often parts clauses with a space: a fact said that way is kept, a request beside it is not, and a
    friend's news (a nickname opens it) is still theirs."""
    alice, bob = two_people(["我喜欢喝乌龙茶。"])
    alice.say(text)
    if stored:
        assert stored in _left(alice), _active(alice)
    if not_stored:
        assert not_stored not in _left(alice), _active(alice)
    assert _left(bob) == "用户喜欢喝乌龙茶。", _active(bob)


@pytest.mark.parametrize(
    ("fact", "again", "about"),
    [
        ("我很怕狗。", "狗我是真怵 路上见了都绕着走", "狗"),  # no word shared but the dog
        ("我是哈尔滨人。", "哈尔滨是我老家 正宗东北银儿", "哈尔滨"),
        ("我韩语说得很流利。", "韩语我说得贼溜 追剧都不看字幕", "韩语"),
        ("I hate coriander.", "Honestly coriander, I hate it, tastes like soap", "coriander"),
    ],
)
def test_a_fact_told_again_as_one_clause_of_a_longer_remark_stays_one_note(two_people, fact, again, about):
    alice, bob = two_people([fact, "我喜欢喝乌龙茶。"])
    alice.say(again)
    about_it = [c for c in _active(alice).values() if about.lower() in c.lower()]
    assert len(about_it) == 1, _active(alice)
    assert len([c for c in _active(bob).values() if about.lower() in c.lower()]) == 1, _active(bob)


def test_a_second_fact_about_the_same_relative_is_a_second_note(two_people):
    alice, _bob = two_people(["我女儿在学芭蕾。"])
    alice.say("我女儿对花生过敏")
    assert any("芭蕾" in c for c in _active(alice).values()), _active(alice)
    assert any("花生" in c for c in _active(alice).values()), _active(alice)


@pytest.mark.parametrize(
    ("text", "junk"),
    [
        ("周末跑去扬州吃早茶 撑死我了 蟹黄汤包绝了", "撑死"),
        ("My brother's just moved to Dundee for his new job, gonna miss him.", "miss"),
        ("might get a second cat next year, we'll see", "see"),
        ("笑死 我家猫会自己开门", "笑死"),
        ("I'll really miss my old flat in Leeds", "miss"),  # whatever is missed, no plan
    ],
)
def test_a_feeling_of_the_minute_said_as_an_exclamation_is_no_note(two_people, text, junk):
    alice, bob = two_people(["我喜欢喝乌龙茶。"])
    alice.say(text)
    assert not any(junk in c for c in _active(alice).values()), _active(alice)
    assert "乌龙茶" in _left(alice) and "乌龙茶" in _left(bob), (_active(alice), _active(bob))


@pytest.mark.parametrize("text", ["我钥匙又忘了", "我手机忘了，烦死"])
def test_the_user_saying_they_forgot_something_forgets_no_note(two_people, text):
    alice, bob = two_people(["我的钥匙扣是小熊。", "我的手机是小米的。"])
    alice.say(text)
    assert "小熊" in _left(alice) and "小米" in _left(alice), _active(alice)
    assert "小熊" in _left(bob) and "小米" in _left(bob), _active(bob)
