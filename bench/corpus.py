"""Synthetic but varied note and message text, Chinese and English, from a seeded generator (no data files)."""

from __future__ import annotations

import random

EN_SUBJECTS = [
    "budget",
    "shop",
    "apartment",
    "trip",
    "team",
    "daughter",
    "car",
    "garden",
    "wedding",
    "course",
    "restaurant",
    "clinic",
    "bakery",
    "startup",
    "thesis",
    "marathon",
    "kitchen",
    "office",
    "warehouse",
    "cafe",
    "studio",
    "podcast",
    "newsletter",
    "farm",
    "gym",
]
EN_VERBS = [
    "prefers",
    "needs",
    "plans",
    "costs",
    "moved to",
    "avoids",
    "switched to",
    "expects",
    "opens in",
    "budgets for",
    "books",
    "orders",
    "hired",
    "sells",
    "rents",
]
EN_OBJECTS = [
    "oat milk latte",
    "aisle seats",
    "a 60 square meter space",
    "vegetarian meals",
    "early mornings",
    "the Berlin office",
    "two new staff",
    "weekly reports",
    "handmade candles",
    "a quiet room",
    "the red model",
    "remote work",
    "gluten-free bread",
    "night shifts",
    "the spring launch",
    "bullet-point answers",
    "Thai food",
    "a used van",
    "the harbor district",
    "organic coffee",
]
EN_PLACES = [
    "Shenzhen",
    "Austin",
    "Leeds",
    "Portland",
    "Berlin",
    "Chengdu",
    "Toronto",
    "Lisbon",
    "Osaka",
    "Denver",
    "Hangzhou",
    "Madrid",
    "Seattle",
    "Xiamen",
    "Dallas",
]
ZH_SUBJECTS = [
    "预算",
    "面馆",
    "公寓",
    "出差",
    "团队",
    "女儿",
    "车",
    "花园",
    "婚礼",
    "课程",
    "餐厅",
    "诊所",
    "烘焙店",
    "创业公司",
    "论文",
    "马拉松",
    "厨房",
    "办公室",
    "仓库",
    "咖啡馆",
    "工作室",
    "播客",
    "农场",
    "健身房",
]
ZH_VERBS = [
    "喜欢",
    "需要",
    "打算",
    "花费",
    "搬到",
    "避免",
    "换成",
    "预计",
    "开在",
    "准备",
    "预订",
    "招了",
    "卖",
    "租了",
]
ZH_OBJECTS = [
    "燕麦拿铁",
    "靠过道的座位",
    "60 平米的店面",
    "素食",
    "早起",
    "柏林办公室",
    "两名新员工",
    "周报",
    "手工蜡烛",
    "安静的房间",
    "红色款",
    "远程办公",
    "无麸质面包",
    "夜班",
    "春季上新",
    "简短的回答",
    "川菜",
    "二手面包车",
    "海港片区",
    "有机咖啡",
]
ZH_PLACES = [
    "深圳",
    "奥斯汀",
    "利兹",
    "波特兰",
    "柏林",
    "成都",
    "多伦多",
    "里斯本",
    "大阪",
    "丹佛",
    "杭州",
    "马德里",
    "西雅图",
    "厦门",
    "达拉斯",
]


def note_text(rng: random.Random) -> str:
    n = rng.randint(2, 400)
    if rng.random() < 0.5:
        return (
            f"The user's {rng.choice(EN_SUBJECTS)} {rng.choice(EN_VERBS)} {rng.choice(EN_OBJECTS)} "
            f"in {rng.choice(EN_PLACES)}, about {n} {rng.choice(['k', 'days', 'people', 'sqm', 'yuan'])}."
        )
    return (
        f"用户的{rng.choice(ZH_SUBJECTS)}{rng.choice(ZH_VERBS)}{rng.choice(ZH_OBJECTS)}，"
        f"在{rng.choice(ZH_PLACES)}，大约 {n} {rng.choice(['万', '天', '人', '平米', '元'])}。"
    )


def query_text(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return f"What did I say about my {rng.choice(EN_SUBJECTS)} and {rng.choice(EN_OBJECTS)}?"
    return f"我之前说的{rng.choice(ZH_SUBJECTS)}和{rng.choice(ZH_OBJECTS)}是怎么安排的？"


def chat_line(rng: random.Random, lang: str) -> str:
    """One user turn of a long conversation: questions, small talk and passing facts, never the turn-1 fact."""
    if lang == "zh":
        return rng.choice(
            [
                f"帮我想想{rng.choice(ZH_SUBJECTS)}的事，{rng.choice(ZH_PLACES)}那边有什么建议？",
                f"今天在忙{rng.choice(ZH_SUBJECTS)}，有点累。",
                f"我{rng.choice(ZH_VERBS)}{rng.choice(ZH_OBJECTS)}，你觉得怎么样？",
                f"{rng.choice(ZH_PLACES)}的天气最近怎么样？",
                f"再说说{rng.choice(ZH_OBJECTS)}，大概要花多少时间？",
                "好的，谢谢，我再想想。",
            ]
        )
    return rng.choice(
        [
            f"Can you help me think about the {rng.choice(EN_SUBJECTS)}? Any ideas for {rng.choice(EN_PLACES)}?",
            f"Busy day with the {rng.choice(EN_SUBJECTS)} today, a bit tired.",
            f"I'm thinking about {rng.choice(EN_OBJECTS)}, what do you think?",
            f"How's the weather in {rng.choice(EN_PLACES)} these days?",
            f"Tell me more about {rng.choice(EN_OBJECTS)}, how long would it take?",
            "Okay, thanks, let me think about it.",
        ]
    )
