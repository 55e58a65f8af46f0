"""Topics (slots) of long-term notes, in Chinese and English: how a statement is recognised as being about a
slot, what canonical options a slot has, and the topic words added to a note's search features.

This is a general lexicon of what people tell a consultant about themselves (how they commute, what they drink,
their budget, shop, revenue, job, family ...), not a list of example sentences. It serves three purposes:
- extraction: a clause about "地铁/subway ... 上班/to work" belongs to the slot `commute`, whatever the phrasing;
- supersede: two statements about the same slot are the same fact or a change of it;
- recall: a note carries its slot's topic words, so "介绍一下我的通勤习惯" finds "我平时上下班都是坐地铁" even
  though the offline embedder is lexical (it shares no word with the note, but shares the topic `commute`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache


@dataclass(frozen=True)
class Topic:
    slot: str
    kind: str
    terms: tuple[str, ...]  # any of these (zh substring / en word) puts a statement on this topic
    topic_words: tuple[str, ...]  # added to the note's search features (both languages)
    options: dict[str, tuple[str, ...]] = field(default_factory=dict)  # canonical value -> surface forms
    needs_option: bool = False  # the topic only counts when one of its options is named too
    exclude: str = ""  # text removed before looking for this topic ("咖啡馆" is a shop, not a drink)
    requires: str = ""  # a pattern the text must also match ("a cat" is only the user's pet when they have one)


TOPICS: tuple[Topic, ...] = (
    Topic(
        "commute",
        "preference",
        ("通勤", "上下班", "上班", "下班", "去公司", "commute", "commuting", "to work", "to the office"),
        ("通勤", "上下班", "出行", "交通", "commute", "transport", "travel to work"),
        {
            "subway": ("地铁", "轻轨", "subway", "metro", "underground", "tube"),
            "bus": ("公交", "巴士", "bus"),
            "car": ("开车", "自驾", "drive", "driving", "car"),
            "bike": ("骑车", "自行车", "单车", "电动车", "bike", "bicycle", "cycle", "cycling"),
            "walk": ("步行", "走路", "walk", "walking", "on foot"),
            "taxi": ("打车", "出租车", "网约车", "taxi", "uber", "cab"),
        },
        needs_option=True,
    ),
    Topic(
        "drink",
        "preference",
        ("咖啡", "喝茶", "奶茶", "饮料", "coffee", "tea", "espresso"),
        ("饮品", "喝什么", "咖啡", "drink", "beverage", "coffee"),
        {
            "americano": ("美式", "americano"),
            "latte": ("拿铁", "latte"),
            "cappuccino": ("卡布奇诺", "cappuccino"),
            "espresso": ("浓缩", "espresso"),
            "mocha": ("摩卡", "mocha"),
            "flat_white": ("澳白", "flat white"),
            "tea": ("喝茶", "绿茶", "红茶", "tea"),
            "milk_tea": ("奶茶", "milk tea"),
            "coffee": ("咖啡", "coffee"),
        },
        exclude=r"(?:咖啡|奶茶|茶)(?:馆|店|厅|铺|吧|加盟)|coffee ?shops?|tea ?shops?|tea ?houses?|caf[eé]s?\b",
    ),
    Topic(
        "diet",
        "preference",
        (
            "吃素",
            "素食",
            "吃辣",
            "不吃辣",
            "吃不了辣",
            "不能吃辣",
            "怕辣",
            "忌口",
            "饮食",
            "清淡",
            "vegetarian",
            "vegan",
            "spicy",
            "diet",
        ),
        ("饮食", "口味", "吃饭", "diet", "food", "eating"),
        {
            "vegetarian": ("吃素", "素食", "vegetarian"),
            "vegan": ("纯素", "vegan"),
            "spicy": ("吃辣", "辣", "spicy", "hot food"),
            "light": ("清淡", "bland", "light food"),
        },
    ),
    Topic("allergy", "constraint", ("过敏", "allergic", "allergy", "allergies"), ("过敏", "健康", "allergy", "health")),
    Topic(
        "health",
        "constraint",
        ("胃不好", "失眠", "高血压", "糖尿病", "怀孕", "stomach", "insomnia", "diabetes", "pregnant"),
        ("健康", "身体", "health"),
    ),
    Topic(
        "budget",
        "constraint",
        ("预算", "启动资金", "本钱", "资金", "手头", "budget", "afford", "set aside", "can spend"),
        ("预算", "资金", "钱", "budget", "money", "funds"),
    ),
    Topic(
        "shop_size",
        "business_status",
        ("平米", "平方米", "平方", "㎡", "面积", "square meters", "square metres", "sqm", "square feet", "sq ft"),
        ("面积", "店面", "铺子", "size", "area", "floor space"),
    ),
    Topic(
        "revenue",
        "business_status",
        ("流水", "营业额", "营收", "收入", "月入", "revenue", "sales", "turnover", "income"),
        ("流水", "营业额", "收入", "生意", "revenue", "sales", "income"),
    ),
    Topic("rent", "business_status", ("房租", "租金", "月租", "rent"), ("房租", "租金", "成本", "rent", "costs")),
    Topic(
        "orders",
        "business_status",
        ("订单", "出单", "能出", "单量", "orders"),
        ("订单", "单量", "生意", "orders", "sales"),
    ),
    Topic("lease", "plan", ("租约", "租期", "合同到期", "lease", "tenancy"), ("租约", "租期", "lease")),
    Topic(
        "opening_date",
        "plan",
        ("开业", "开张", "opening", "launch"),
        ("开业", "开张", "opening", "launch"),
        exclude=r"opening (?:time|hours)|开门",
    ),
    Topic(
        "staff",
        "business_status",
        ("员工", "店员", "伙计", "雇了", "employees", "staff", "workers"),
        ("员工", "人手", "staff", "employees", "team"),
    ),
    Topic(
        "business",
        "business_status",
        (
            "开了家",
            "开了一家",
            "开了个",
            "开了间",
            "经营",
            "开店",
            "面馆",
            "餐厅",
            "饭店",
            "咖啡馆",
            "奶茶店",
            "外卖",
            "run a",
            "own a",
            "opened a",
            "my shop",
            "my restaurant",
            "my store",
            "my business",
        ),
        ("生意", "店", "经营", "餐饮", "business", "shop", "store", "restaurant"),
    ),
    Topic(
        "occupation",
        "profile",
        (
            "职业",
            "我的工作",
            "工作是",
            "程序员",
            "工程师",
            "老师",
            "医生",
            "护士",
            "设计师",
            "会计",
            "律师",
            "学生",
            "work as",
            "job",
            "engineer",
            "developer",
            "teacher",
            "doctor",
            "nurse",
            "designer",
            "student",
            "accountant",
            "lawyer",
        ),
        ("职业", "工作", "job", "occupation", "work"),
    ),
    Topic("name", "profile", ("我叫", "名字", "my name", "call me"), ("名字", "称呼", "name")),
    Topic("age", "profile", ("岁", "years old"), ("年龄", "age")),
    Topic(
        "family",
        "profile",
        (
            "孩子",
            "儿子",
            "女儿",
            "老婆",
            "老公",
            "妻子",
            "丈夫",
            "结婚",
            "kids",
            "children",
            "son",
            "daughter",
            "wife",
            "husband",
            "married",
        ),
        ("家庭", "家人", "family"),
    ),
    Topic(
        "pet",
        "profile",
        (
            "猫",
            "狗",
            "犬",
            "宠物",
            "金毛",
            "柯基",
            "泰迪",
            "cat",
            "cats",
            "dog",
            "dogs",
            "pet",
            "pets",
            "puppy",
            "kitten",
            "retriever",
            "labrador",
            "poodle",
            "corgi",
        ),
        ("宠物", "pet", "animal"),
        # owning one, not being allergic to them or liking them
        requires=r"\b(?:have|has|had|own|owns|adopted|got|my|our)\b|养|我家|我的|我们家|家里|家有",
    ),
    Topic(
        "location",
        "profile",
        ("住在", "在北京", "在上海", "老家", "live in", "living in", "based in"),
        ("地点", "城市", "位置", "location", "city", "place"),
    ),
    Topic(
        "exercise",
        "preference",
        (
            "跑步",
            "健身",
            "游泳",
            "瑜伽",
            "爬山",
            "徒步",
            "打球",
            "运动",
            "running",
            "gym",
            "swimming",
            "yoga",
            "hiking",
            "exercise",
            "workout",
            "jogging",
        ),
        ("运动", "锻炼", "爱好", "exercise", "sport", "hobby"),
    ),
    Topic(
        "seat",
        "preference",
        ("靠窗", "过道", "走道", "window seat", "window seats", "aisle seat", "aisle seats"),
        ("座位", "出行", "seat", "travel"),
        {"window": ("靠窗", "窗边", "window"), "aisle": ("过道", "走道", "靠走廊", "aisle")},
    ),
    Topic(
        "opening_hours",
        "business_status",
        (
            "开门",
            "关门",
            "营业时间",
            "开店时间",
            "打烊",
            "open at",
            "opens at",
            "close at",
            "closes at",
            "opening time",
            "opening hours",
            "closing time",
            "business hours",
        ),
        ("营业时间", "开门", "hours", "opening"),
    ),
    Topic(
        "trip",
        "plan",
        ("旅行", "旅游", "出差", "度假", "trip", "vacation", "holiday", "travelling", "traveling"),
        ("旅行", "出行", "trip", "travel"),
    ),
    Topic(
        "language",
        "preference",
        ("说中文", "说英语", "用中文", "用英文", "speak", "language", "in english", "in chinese"),
        ("语言", "language"),
    ),
)

TOPIC_BY_SLOT = {t.slot: t for t in TOPICS}

_LATIN = re.compile(r"[a-z]")


@lru_cache(maxsize=4096)
def _word_rx(term: str) -> re.Pattern:
    return re.compile(rf"(?<![a-z]){re.escape(term)}(?![a-z])")


@lru_cache(maxsize=4096)
def _form_rx(form: str) -> re.Pattern:
    return _word_rx(form) if _LATIN.match(form) else re.compile(re.escape(form))


@lru_cache(maxsize=64)
def _exclude_rx(pattern: str) -> re.Pattern:
    return re.compile(pattern)


def _has(text: str, term: str) -> int:
    """Position of `term` in lower-cased `text` (-1 if absent); English terms match whole words only."""
    if _LATIN.match(term):
        m = _word_rx(term).search(text)
        return m.start() if m else -1
    return text.find(term)


def find_option(topic: Topic, text: str, after: int = -1) -> tuple[str, bool] | None:
    """The option of `topic` named in `text`: the first one after position `after` (a change marker) if given,
    else the last one that is not negated. Returns (option, negated)."""
    low = text.lower()
    hits = []
    for option, forms in topic.options.items():
        for form in forms:
            for m in _form_rx(form).finditer(low):
                hits.append((m.start(), option, _negated(low, m.start())))
    if not hits:
        return None
    hits.sort()
    # prefer the most specific option at the same place (拿铁 over 咖啡 in "拿铁咖啡")
    if after >= 0:
        later = [h for h in hits if h[0] > after and not h[2]]
        if later:
            generic = [h for h in later if h[1] != "coffee"]
            return ((generic or later)[0][1], False)
    positive = [h for h in hits if not h[2]]
    specific = [h for h in positive if h[1] != "coffee"] or positive
    if specific:
        return (specific[-1][1], False)
    return (hits[-1][1], True)


_NEG_ZH = ("不", "没", "别", "不再", "戒", "怕")
_NEG_EN = re.compile(
    r"\b(?:don't|do not|doesn't|does not|never|no longer|not|stopped|quit|no|can't|cannot|can not|"
    r"won't|avoid|unable to|hate|dislike|can't stand)\s+(?:[\w'-]+\s+){0,3}$"
)


def _negated(low: str, pos: int) -> bool:
    before = low[max(0, pos - 4) : pos]
    if any(n in before for n in _NEG_ZH):
        return True
    return bool(_NEG_EN.search(low[max(0, pos - 40) : pos]))


def topics_in(text: str) -> list[Topic]:
    """Topics a text is about, in lexicon order. Topics that need an option only count when one is named."""
    found = []
    for topic in TOPICS:
        low = (text or "").lower()
        if topic.exclude:
            low = _exclude_rx(topic.exclude).sub(" ", low)
        if any(_has(low, term) >= 0 for term in topic.terms):
            if topic.requires and not _exclude_rx(topic.requires).search(low):
                continue
            if topic.needs_option and find_option(topic, low) is None:
                continue
            found.append(topic)
        elif topic.needs_option is False and topic.options and find_option(topic, low) and topic.slot == "drink":
            found.append(topic)
    return found


def query_topics(text: str) -> set[str]:
    """Slots a question mentions (by their terms or their topic words): "我的通勤习惯" -> {"commute"}."""
    low = (text or "").lower()
    slots = set()
    for topic in TOPICS:
        words = topic.terms + topic.topic_words + tuple(f for forms in topic.options.values() for f in forms)
        if any(_has(low, w.lower()) >= 0 for w in words if len(w) >= 2 or not _LATIN.match(w)):
            slots.add(topic.slot)
    return slots


def topic_words_for(slot: str) -> str:
    topic = TOPIC_BY_SLOT.get(slot)
    return " ".join(topic.topic_words) if topic else ""
