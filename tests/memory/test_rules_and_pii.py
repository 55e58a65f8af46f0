"""The offline reader and the PII guard on phrasings other than the seeds', in Chinese and English."""

import pytest

from memory.services.identifiers.pii import pii_find, pii_redact
from memory.services.writing.rules import read_message


def facts(text):
    return {(c.kind, c.key): c for c in read_message(text) if not c.whim}


@pytest.mark.parametrize(
    "text, key, value",
    [
        (
            "我在杭州西湖区开了一家 80 平的咖啡馆，每个月营业额大概 12 万",
            ("business_status", "revenue"),
            {"amount": 120000, "period": "month", "approx": True},
        ),
        ("我在杭州西湖区开了一家 80 平的咖啡馆", ("business_status", "shop_size"), {"amount": 80}),
        ("启动资金一共 50 万左右", ("constraint", "budget"), {"amount": 500000, "approx": True}),
        ("店里有 5 个员工", ("business_status", "staff"), {"amount": 5}),
        (
            "We opened a 40 square meter bakery last year, daily sales are around 3k",
            ("business_status", "revenue"),
            {"amount": 3000, "period": "day", "approx": True},
        ),
        ("My budget is 20,000 dollars", ("constraint", "budget"), {"amount": 20000, "currency": "USD"}),
        ("Actually my budget is 30k now, not 20k", ("constraint", "budget"), {"amount": 30000}),
        ("I moved to Seattle", ("profile", "location"), {"place": "Seattle"}),
        ("我现在住在上海", ("profile", "location"), {"place": "上海"}),
        ("I'm vegetarian", ("preference", "diet"), {"option": "vegetarian"}),
        ("我开车上下班", ("preference", "commute"), {"option": "car"}),
    ],
)
def test_structured_values(text, key, value):
    found = facts(text)
    assert key in found, found
    assert found[key].value == value


@pytest.mark.parametrize(
    "text, kind, must_contain",
    [
        ("我不吃香菜", "preference", "用户不吃香菜"),
        ("I hate cilantro", "preference", "The user hates cilantro"),
        ("I'm allergic to peanuts", "constraint", "allergic to peanuts"),
        ("我准备明年去成都开分店", "plan", "成都"),
        ("I decided to go with the cheaper supplier", "conclusion", "cheaper supplier"),
    ],
)
def test_free_form_facts_keep_the_users_language(text, kind, must_contain):
    [c] = [c for c in read_message(text) if c.kind == kind]
    assert must_contain in c.content


@pytest.mark.parametrize(
    "text",
    [
        "帮我算算开店要多少钱？",
        "What should I do next?",
        "你好",
        "thanks!",
        "介绍一下我的通勤习惯",
        "Can you tell me about coffee shops?",
    ],
)
def test_questions_and_small_talk_give_nothing(text):
    assert read_message(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I really hope you're feeling better now.",
        "I'm always here for you, no matter what.",
        "I'll keep ya posted!",
        "I wish you all the best with the move.",
        "I'll definitely check it out.",
        "We should totally give that a try.",
        "我会告诉你的。",
        "我一直支持您。",
    ],
)
def test_words_to_the_listener_and_pointers_to_elsewhere_are_no_facts(text):
    # said to the other person, or about something named only elsewhere: nothing durable about the user
    assert [c for c in read_message(text) if not c.whim] == []


@pytest.mark.parametrize(
    "text, must_contain",
    [
        ("As I told you, I moved to Porto last spring.", "Porto"),
        ("I work as a pharmacist, thank you for asking.", "pharmacist"),
        ("我最近在学吉他，你也可以试试。", "吉他"),
        ("我开的是一辆迷你 Cooper。", "迷你"),
    ],
)
def test_a_fact_beside_words_to_the_listener_is_kept(text, must_contain):
    assert any(must_contain in c.content for c in read_message(text) if not c.whim)


def test_hedge_lowers_confidence_and_marks_approx():
    [sure] = read_message("预算 10 万")
    [hedged] = read_message("预算差不多 10 万吧")
    assert hedged.value == {"amount": 100000, "approx": True} and "approx" not in sure.value
    assert hedged.confidence < sure.confidence


@pytest.mark.parametrize(
    "text, kind",
    [
        ("手机 13912345678", "cn_mobile"),
        ("+86 139-1234-5678", "cn_mobile"),
        ("一三九一二三四五六七八", "cn_mobile"),
        ("身份证号 11010519491231002X", "cn_id_number"),
        ("卡号 6222 0212 3456 7890 128", "bank_card"),
        ("订单 6222 0212 3456 7890 125", None),
        ("card 4111-1111-1111-1111", "bank_card"),
        ("mail me at jo.doe+x@mail.example.org", "email"),
        ("jo (at) example (dot) com", "email"),
        ("护照号 E12345678", "passport"),
        ("passport no. K1234567", "passport"),
        ("My passport number is 912345678, I am renewing it.", "passport"),
        ("my UK passport is 533380006", "passport"),
        ("call +44 20 7946 0958", "phone"),
        ("(415) 555-2671", "phone"),
        ("SSN 078-05-1120", "ssn"),
        ("IBAN DE89 3704 0044 0532 0130 00", "iban"),
        ("座机 0755-86001234", "phone"),
    ],
)
def test_identifiers_are_found(text, kind):
    kinds = {m.kind for m in pii_find(text)}
    if kind is None:  # a 19-digit number that fails Luhn is not a card
        assert "bank_card" not in kinds
    else:
        assert kind in kinds
        assert kind not in {m.kind for m in pii_find(pii_redact(text)[0])}


@pytest.mark.parametrize(
    "text",
    [
        "预算 40 万，日流水 4000，60 平米",
        "2024年3月开业",
        "I earn 5000 a month",
        "营业额 1200000 元",
        "my shop is 120 sqm",
    ],
)
def test_amounts_and_dates_are_not_identifiers(text):
    assert pii_find(text) == []


@pytest.mark.parametrize(
    "text, target",
    [
        ("忘掉我之前说的咖啡偏好", "咖啡偏好"),
        ("请忘记我的通勤习惯", "我的通勤习惯"),
        ("把我之前说的预算忘掉吧", "预算"),
        ("删掉我说过的住址", "住址"),
        ("别再记我喝咖啡的事了", "我喝咖啡"),
        ("forget that I drink coffee", "I drink coffee"),
        ("Please forget my budget", "my budget"),
        ("delete what I said about my commute", "my commute"),
    ],
)
def test_forget_requests_are_recognised(text, target):
    from memory.services.forgetting.forget_requests import forget_target

    assert forget_target(text) == target


@pytest.mark.parametrize(
    "text",
    [
        "我忘了带钥匙",
        "我忘记密码了怎么办",
        "帮我删除这个文件",
        "I forget things easily",
        "remove the onions from the recipe",
        "我老是忘记吃早饭",
    ],
)
def test_ordinary_sentences_are_not_forget_requests(text):
    from memory.services.forgetting.forget_requests import forget_target

    assert forget_target(text) is None
