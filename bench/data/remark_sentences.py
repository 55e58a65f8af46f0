"""Remarks of several sentences, each about two or three unrelated things, and questions about one of their
sentences worded apart from it (source of bench/sentence_rows.py). Written for this check; nothing comes from the
seeds, LoCoMo or the other sets. Per language: one user's remarks in the order said, then (question, index of
the remark that answers it)."""

EN_REMARKS = [
    "The train was packed again this morning and I stood the whole way. On the bright side, I finally booked the "
    "dentist for the cracked molar, it's on the 14th.",
    "My sister called last night, she's thinking of moving to Denver. Also, the basil on my balcony died, I think "
    "I watered it too much.",
    "Work is a mess this week with the audit. By the way, we adopted a grey rabbit from the shelter on Saturday, "
    "the kids named him Pebble.",
    "I tried that new ramen place near the station, way too salty. Unrelated, but my knee has been clicking since "
    "I started running again.",
    "It rained all weekend so we stayed in. I did finish the jigsaw puzzle of the Amsterdam canals, a thousand pieces!",
    "My boss wants the quarterly slides by Friday. Meanwhile my car failed its inspection because of the brake "
    "pads, so that's another bill.",
    "We watched a documentary about octopuses, fascinating stuff. Oh, and I signed up for evening Spanish classes "
    "at the library, starting in May.",
    "The neighbours' dog barked until 2am. I'm exhausted. At least my tax refund came through, more than I expected.",
    "Grandma turned ninety on Sunday and the whole family came over. Then on Monday my laptop screen cracked when I "
    "dropped my bag.",
    "I'm trying to cut down on coffee, just one cup a day now. Also we picked a date for the wedding: the second "
    "Saturday of October.",
    "Traffic was terrible because of the marathon. Anyway, I've started volunteering at the food bank on Tuesday "
    "evenings.",
    "My phone keeps dying by lunchtime, I need a new battery. And my son lost his first tooth yesterday, he was so "
    "proud.",
]
EN_QUESTIONS = [
    ("When is my appointment to get my tooth fixed?", 0),
    ("What happened to the herbs I was growing?", 1),
    ("What pet did we get recently?", 2),
    ("Why has my leg been bothering me?", 3),
    ("What did I put together over the rainy days?", 4),
    ("Why did the vehicle check go badly?", 5),
    ("Am I taking any language lessons?", 6),
    ("Did I get money back from the government?", 7),
    ("What broke on my computer?", 8),
    ("When are we getting married?", 9),
    ("What charity work do I do?", 10),
    ("What milestone did my boy reach?", 11),
]

ZH_REMARKS = [
    "今天地铁挤得要命，我一路站到公司。不过好消息是，我终于约上了补牙，定在十四号。",
    "我姐昨晚打电话说想搬去成都。另外阳台上那盆薄荷死了，可能是浇水太多。",
    "这周公司在审计，忙得一团糟。对了，我们周六从救助站领养了一只灰色的兔子，孩子们给它起名叫团子。",
    "我去试了车站旁边新开的拉面店，太咸了。说点别的，我重新开始跑步以后膝盖一直咔咔响。",
    "周末下了两天雨，我们就没出门。我把那幅西湖的一千片拼图拼完了！",
    "老板要我周五前交季度汇报的幻灯片。同时我的车年检没过，说是刹车片不行，又得花钱。",
    "我们看了一部讲章鱼的纪录片，特别有意思。哦对了，我报了图书馆的晚间日语班，五月开课。",
    "邻居家的狗一直叫到凌晨两点，我累坏了。还好个税退税到账了，比我想的多。",
    "奶奶周日过九十大寿，全家人都来了。结果周一我包掉地上，笔记本电脑屏幕摔裂了。",
    "我在努力少喝咖啡，现在一天只喝一杯。还有，我们把婚礼日子定下来了：十月的第二个星期六。",
    "因为马拉松比赛，路上堵得不行。总之，我开始每周二晚上去食物银行做志愿者了。",
    "我手机一到中午就没电，得换块电池了。还有我儿子昨天掉了第一颗乳牙，可骄傲了。",
]
ZH_QUESTIONS = [
    ("我去看牙是哪天？", 0),
    ("我种的那盆植物怎么样了？", 1),
    ("我们最近养了什么宠物？", 2),
    ("我的腿为什么不舒服？", 3),
    ("下雨那几天我在家做了什么？", 4),
    ("我的汽车检测为什么没通过？", 5),
    ("我在学什么外语吗？", 6),
    ("我有没有从税务局拿回钱？", 7),
    ("我的电脑哪里坏了？", 8),
    ("我们什么时候办喜事？", 9),
    ("我平时做什么公益？", 10),
    ("我家小孩最近有什么成长的事？", 11),
]

# Said by the same user too: one sentence each, near the questions' topics but not their answers.
EN_DISTRACTORS = [
    "My old dentist retired and moved to Spain years ago.",
    "I've never been much of a gardener, to be honest.",
    "The pet shop downtown closed last month.",
    "I used to play football at school until I was sixteen.",
    "We own far too many board games.",
    "I'd love an electric car one day.",
    "I studied French at school but forgot most of it.",
    "Filling in the tax forms always takes me a whole evening.",
    "I bought my laptop second-hand three years ago.",
    "My parents got married in a tiny chapel by the sea.",
    "My friend runs a charity shop on the high street.",
    "Kids grow up so fast, don't they.",
]
ZH_DISTRACTORS = [
    "我以前的牙医几年前退休去了海南。",
    "说实话我一直不太会养花。",
    "市中心那家宠物店上个月关门了。",
    "我上学的时候一直踢足球，踢到十六岁。",
    "我们家的桌游多得放不下了。",
    "我一直想有一天买辆电动车。",
    "我上学时学过法语，现在差不多都忘了。",
    "每次填个税申报表都要花我一整晚。",
    "我的笔记本电脑是三年前买的二手货。",
    "我爸妈当年在海边一个小教堂结的婚。",
    "我朋友在街上开了一家慈善二手店。",
    "小孩子长得真快啊。",
]
