"""Areas of a person's life, for naming notes by what they are about rather than by the words they share.

"Don't keep my health stuff" names "The user takes amlodipine daily" and "我开什么车你就别记了" names "用户开一辆白色的
比亚迪汉" although neither shares a word or much of a sentence vector with its request: the request names an area
and the note is an instance of it. Each area has everyday examples in English and Chinese (written for the areas,
not copied from any evaluation set); a text's areas are its likeness to each area's closest examples, softened
into shares, and two texts are in one area as far as their shares agree (memory.reading.targets uses it as a
feature beside the cosine of the two texts).
"""

from __future__ import annotations

import re
import threading

import numpy as np

AREAS: dict[str, list[str]] = {
    "health": [
        "my health",
        "I have asthma and use an inhaler.",
        "I take pills for my heart.",
        "I was diagnosed with diabetes.",
        "I see a therapist for my anxiety.",
        "I had knee surgery last year.",
        "I'm allergic to penicillin.",
        "my illness and my doctor's appointments",
        "我的身体状况",
        "我有哮喘。",
        "我每天要吃药。",
        "我得了糖尿病。",
        "我在看心理医生。",
        "我去年做了手术。",
        "我的病和看医生的事",
        "我对青霉素过敏。",
    ],
    "family": [
        "my family",
        "I have two kids.",
        "My wife is a nurse.",
        "My parents live with us.",
        "My brother lives in Toronto.",
        "My daughter just started school.",
        "我的家人",
        "我有两个孩子。",
        "我老婆是护士。",
        "我爸妈跟我们住。",
        "我哥在深圳工作。",
        "我女儿刚上小学。",
    ],
    "pets": [
        "my pets",
        "I have a dog called Rex.",
        "I walk my dog every evening.",
        "My cat is fourteen years old.",
        "I keep two rabbits.",
        "我的宠物",
        "我养了一只狗叫旺旺。",
        "我每天晚上遛狗。",
        "我家猫十四岁了。",
        "我养了两只兔子。",
    ],
    "work": [
        "my job",
        "I work as an accountant.",
        "I'm a software engineer at a bank.",
        "My boss is difficult.",
        "I work night shifts at the hospital.",
        "I'm between jobs right now.",
        "I run my own small business.",
        "我的工作",
        "我是会计。",
        "我在银行做程序员。",
        "我老板很难相处。",
        "我在医院上夜班。",
        "我现在没工作。",
        "我自己开了个小店。",
        "My manager at the office is called Dave.",
        "My colleagues and I have lunch together.",
        "I've been at this company for five years.",
        "我们部门领导姓王。",
        "我在公司干了五年了。",
        "我跟同事关系不错。",
        "I work for the city council.",
        "我在一家外企上班。",
    ],
    "money": [
        "my finances",
        "My salary is 8,000 a month.",
        "Our budget is 300,000.",
        "I have a lot of credit card debt.",
        "I'm saving for a deposit.",
        "我的收入和存款",
        "我月薪八千。",
        "我们的预算是三十万。",
        "我欠了不少信用卡。",
        "我在攒首付。",
        "I'm paying off a personal loan.",
        "I still owe my sister money.",
        "我在还消费贷，还差三万。",
        "我欠朋友一笔钱。",
    ],
    "home": [
        "where I live",
        "I live in a flat in Leeds.",
        "We own a house in the suburbs.",
        "My rent is 1,200 a month.",
        "We're moving to a bigger apartment.",
        "I have a mortgage on my house.",
        "我住的地方",
        "我住在成都的一套公寓里。",
        "我们在郊区有套房子。",
        "我房租每月三千五。",
        "我们要搬到大一点的房子。",
        "我在还房贷。",
    ],
    "vehicle": [
        "my car",
        "I drive a grey Ford.",
        "I just bought an electric car.",
        "I ride a motorbike.",
        "My car is ten years old.",
        "我的车",
        "我开一辆黑色的大众。",
        "我刚买了一辆电车。",
        "我骑摩托车。",
        "我的车开了十年了。",
    ],
    "commute": [
        "my commute",
        "I take the train to work.",
        "I cycle to the office every day.",
        "My commute is an hour each way.",
        "I get the bus at 8 to the office.",
        "我上下班的路",
        "我坐地铁上班。",
        "我每天骑车去公司。",
        "我通勤单程一个小时。",
        "我坐八点的班车去上班。",
    ],
    "food": [
        "what I eat",
        "I'm vegetarian.",
        "I don't eat spicy food.",
        "My favourite dish is ramen.",
        "I drink two coffees a day.",
        "I'm on a low-carb diet.",
        "我的饮食",
        "我吃素。",
        "我不吃辣。",
        "我最喜欢吃拉面。",
        "我每天喝两杯咖啡。",
        "我在控制碳水。",
    ],
    "hobbies": [
        "my hobbies",
        "I play tennis on Sundays.",
        "I'm learning the violin.",
        "I paint watercolours.",
        "I go hiking most weekends.",
        "I collect vinyl records.",
        "我的爱好",
        "我周日打网球。",
        "我在学小提琴。",
        "我在学国画。",
        "我周末经常去爬山。",
        "我收集黑胶唱片。",
        "I take dance classes twice a week.",
        "I knit in the evenings.",
        "我每周去上两次舞蹈课。",
        "我晚上喜欢织毛衣。",
    ],
    "study": [
        "my studies",
        "I'm studying for a master's degree.",
        "I'm preparing for the civil service exam.",
        "I'm learning Japanese.",
        "I'm in my final year at university.",
        "我的学业",
        "我在读研究生。",
        "我在准备考公务员。",
        "我在学日语。",
        "我大四了。",
    ],
    "travel": [
        "my trips",
        "I'm going to Japan in April.",
        "We spent our holiday in Bali.",
        "I fly to Berlin for work every month.",
        "我的旅行",
        "我四月去日本。",
        "我们假期去了巴厘岛。",
        "我每个月出差去北京。",
    ],
    "love": [
        "my love life",
        "I'm dating someone new.",
        "My ex and I broke up last year.",
        "My girlfriend lives in another city.",
        "I'm getting married next spring.",
        "我的感情",
        "我最近在约会。",
        "我和前任去年分手了。",
        "我女朋友在外地。",
        "我明年春天结婚。",
        "I've started seeing someone.",
        "My boyfriend and I have been together two years.",
        "I went on a few dates with a guy from the app.",
        "我最近在跟一个人接触。",
        "我和男朋友在一起两年了。",
        "我相亲认识了一个姑娘。",
    ],
}
# how a person names a whole area ("my health stuff", "我的病情"): a request that names one means every note in it
AREA_NAMES: dict[str, list[str]] = {
    "health": [
        "my health",
        "my medical stuff",
        "my medication",
        "my medical history",
        "我的健康",
        "我的病情",
        "我吃的药",
        "身体",
        "病",
    ],
    "family": ["my family", "my relatives", "my folks", "我的家人", "我家里的情况", "家里人", "家人", "亲戚"],
    "pets": ["my pets", "我的宠物"],
    "work": [
        "my job",
        "my work",
        "my career",
        "my workplace",
        "我的工作",
        "我的职业",
        "工作",
        "单位",
        "上班",
        "我在哪上班",
        "在哪工作",
    ],
    "money": [
        "my finances",
        "my money",
        "my income",
        "my debts",
        "my salary",
        "how much I make",
        "how much I earn",
        "what I earn",
        "我的收入",
        "工资",
        "我挣多少",
        "我的财务",
        "我的钱",
        "钱",
        "收入",
        "存款",
    ],
    "home": ["my home", "my housing", "my address", "我的住处", "我的住址", "我的房子"],
    "vehicle": ["my car", "what I drive", "我的车", "我开的车"],
    "commute": ["my commute", "how I get to work", "我的通勤", "我怎么上班"],
    "food": ["my diet", "what I eat", "my eating habits", "我的饮食", "我吃什么"],
    "hobbies": ["my hobbies", "what I do for fun", "我的爱好", "我的兴趣"],
    "study": ["my studies", "my education", "my schooling", "我的学业", "我的学习"],
    "travel": ["my travel plans", "my trips", "我的旅行", "我的出行计划"],
    "love": ["my love life", "my dating life", "my relationship", "我的感情", "我的恋爱"],
}
AREA_NAME_LIKENESS = 0.85  # a phrase this close to an area's name names the whole area
SOFTNESS = 0.05  # how sharply a text's likeness to the areas becomes its shares
_vectors: tuple[list[str], list[np.ndarray]] | None = None
_name_vectors: np.ndarray | None = None
_lock = threading.Lock()


def _area_vectors() -> tuple[list[str], list[np.ndarray]]:
    global _vectors
    from memory.reading.intents import encode

    with _lock:
        if _vectors is None:
            names = list(AREAS)
            _vectors = (names, [encode(AREAS[name]) for name in names])
        return _vectors


_THIRD = (
    (re.compile(r"\bthe user's\b", re.I), "my"),
    (re.compile(r"\bthe user\b", re.I), "I"),
    (re.compile("用户"), "我"),
)


def first_person(note: str) -> str:
    """A note as its user would say it ("The user's dog" -> "my dog", "用户有" -> "我有"): the areas' examples are
    said that way, and the encoder weighs the person a sentence is in."""
    for rx, word in _THIRD:
        note = rx.sub(word, note)
    return note


def area_shares(vectors: np.ndarray) -> np.ndarray:
    """Each row of unit `vectors` as shares over the areas (rows sum to 1): the mean cosine of its two closest
    examples in each area, softened by SOFTNESS."""
    _names, banks = _area_vectors()
    scores = np.stack([np.sort(vectors @ bank.T, axis=1)[:, -2:].mean(axis=1) for bank in banks], axis=1)
    scaled = (scores - scores.max(axis=1, keepdims=True)) / SOFTNESS
    shares = np.exp(scaled)
    return shares / shares.sum(axis=1, keepdims=True)


# the words that only say "things of": "my health info", "工作上的事", "考公相关的东西"
_GENERIC = re.compile(
    r"\s+(?:info|information|stuff|things|details|data|notes|bits|side)\b|(?:相关的|有关的|方面的|上的|上)?(?:东西|事情?|信息|内容|资料)$|"
    r"(?<=[\u4e00-\u9fff])(?:上|方面)$",
    re.IGNORECASE,
)


def area_named(phrase: str) -> str | None:
    """The area of life `phrase` names as a whole ("my health stuff", "我的病情", "how much I make"), or None when
    it names one thing in an area."""
    global _name_vectors
    from memory.reading.intents import encode

    with _lock:
        if _name_vectors is None:
            _name_vectors = encode([name for names in AREA_NAMES.values() for name in names])
    phrase = _GENERIC.sub("", phrase or "").strip()
    if not phrase:
        return None
    likeness = _name_vectors @ encode([phrase])[0]
    if float(likeness.max()) < AREA_NAME_LIKENESS:
        return None
    areas = [area for area, names in AREA_NAMES.items() for _ in names]
    return areas[int(likeness.argmax())]


def names_an_area(phrase: str) -> bool:
    """Whether `phrase` names a whole area of life rather than one thing in it."""
    return area_named(phrase) is not None
