"""Whom a first-person sentence is about: the user (their life, their family), or someone else and the world ("my
colleague's cousin bought a flat in Dubai", "I think young people are under too much pressure").

A sentence that names another person or gives an opinion (the cue words below) is compared with examples of both
sides (written for the sides, not copied from any evaluation set); it is about others when it is closer to their
examples by MARGIN. A sentence with no cue is about the user, as before: the cue only lets the encoder be asked.
"""

from __future__ import annotations

import re

from memory.reading.sides import TwoSides

CUE = re.compile(
    r"\b(?:colleague|co-?worker|friend|neighbou?r|boss|classmate|room-?mate|flat-?mate|guy|bloke|someone|somebody|"
    r"a (?:man|woman|lady)|apparently|reportedly|said|says|told me|heard|used to say|i think|i feel like|"
    r"i reckon|i believe|in my opinion|imo)\b|"
    r"同事|朋友|邻居|同学|室友|老板|领导|有人|网友|据说|听说|说过|常说|我觉得|我认为|我感觉|我看|我总觉得|在我看来",
    re.IGNORECASE,
)
SELF = [
    "I'm a nurse at the children's hospital.",
    "My wife is a teacher.",
    "My son is nine.",
    "I live in Leeds with my partner.",
    "I run every morning before work.",
    "My friend and I run a bakery together.",
    "I work with my brother at his company.",
    "I think I'm allergic to cats.",
    "My boss lets me work from home on Fridays.",
    "I share a flat with two friends.",
    "我是护士。",
    "我老婆是老师。",
    "我儿子九岁了。",
    "我和朋友合伙开了一家面包店。",
    "我每天早上跑步。",
    "我跟两个同学合租。",
    "老板让我每周五在家办公。",
    "我觉得我对猫过敏。",
    "I think my favourite colour is green.",
    "我觉得我更喜欢夏天。",
]
OTHERS = [
    "My colleague's brother just bought a house in Spain.",
    "Some guy at work said his uncle won the lottery.",
    "My neighbour got a new car, apparently.",
    "My friend's dog is huge.",
    "I think young people have it hard these days.",
    "I feel like movies are getting worse every year.",
    "My grandma used to say that early birds catch the worm.",
    "I heard the new mall is opening next month.",
    "People say the city is getting too expensive.",
    "I think the weather has been awful lately.",
    "I reckon prices here are always going up.",
    "I feel like the service at restaurants is getting worse these days.",
    "My classmate's sister is a famous singer.",
    "我同事的哥哥在西班牙买了房。",
    "听说有个人中了两次彩票。",
    "我邻居换了辆新车。",
    "我朋友家的狗特别大。",
    "我觉得现在的年轻人压力太大了。",
    "我感觉电影越来越难看了。",
    "我奶奶常说早起的鸟儿有虫吃。",
    "据说新商场下个月开业。",
    "大家都说这个城市越来越贵。",
    "我觉得最近的天气太糟糕了。",
    "我感觉这里的东西总是越来越贵。",
    "我同学的姐姐是个明星。",
    "我朋友的儿子去年上了大学。",
    "A friend of mine just had twins.",
]
# an opinion about oneself ("I think I'm allergic", "我觉得我更适合…") is about the user: no encoder is asked
_OPINION_OF_SELF = re.compile(
    r"\b(?:i think|i feel like|i reckon|i believe)\s+(?:i|i'm|i've|my|me)\b|(?:我觉得|我认为|我感觉|我总觉得)(?:我|自己)",
    re.I,
)
MARGIN = 0.0
_SIDES = TwoSides(SELF, OTHERS)


KIN_WORDS = (
    r"wife|husband|spouse|partner|missus|wifey|hubby|girlfriend|boyfriend|fianc[ée]e?|son|daughter|\blads?\b|\blass\b|kids?|child(?:ren)?|baby|mum|mom|"
    r"mother|dad|father|parents?|brother|sister|sibling|grand(?:ma|mother|pa|father|son|daughter|kids?|child(?:ren)?)|"
    r"cousin|aunt|uncle|nephew|"
    r"niece|老婆|妻子|太太|爱人|老公|丈夫|先生|媳妇|男朋友|女朋友|对象|儿子|女儿|孩子|娃|宝宝|闺女|妈妈?|爸爸?|母亲|父亲|"
    r"父母|爸妈|婆婆|公公|岳父|岳母|丈母娘|老丈人|in-laws?|(?:mother|father)-in-law|哥哥?|姐姐?|弟弟?|妹妹?|奶奶|爷爷|外婆|姥姥|外公|姥爷|表[哥姐弟妹]|堂[哥姐弟妹]|舅舅|姑姑|阿姨|叔叔|"
    # and the other people of one's life
    r"colleague|co-?worker|friend|mate|buddy|neighbou?r|boss|manager|classmate|room-?mate|flat-?mate|"
    r"同事|朋友|闺蜜|哥们|邻居|老板|领导|上司|同学|室友"
)
# the relative (or friend, colleague) a sentence is about, named as its subject ("My brother just moved…", "我老公下周就45了")
SUBJECT_KIN = re.compile(
    rf"^\W*(?:(?:so|well|oh|btw|and|also)\W+)*(?:my|our)\s+(?:\w+\s+){{0,2}}?(?:{KIN_WORDS})\b|"
    rf"^\W*(?:我们|我|俺|咱)(?:家|的)?(?:那个|这个)?(?:{KIN_WORDS})|"
    rf"^\W*(?:{KIN_WORDS})(?:'s|’s)\s",  # "husband's gone full keto": the "my" left out
    re.IGNORECASE,
)
# what happened to them or is about to ("just moved", "got an offer", "turns 45 next week", "刚拿到", "下周")
_NEWS = re.compile(
    r"\b(?:just|got|gets|turns|turned|next (?:week|month|year)|last (?:week|month|night)|yesterday|tomorrow|"
    r"today|tonight|moved|started|quit|landed|bought|won|passed|retired|graduated|recently|lately|gone|finally|"
    r"after \w+ing)\b|"  # "my sister's after moving to Cork": the Irish perfect
    r"刚|下周|上周|下个月|上个月|昨天|明天|今天|马上|就要|前几天|前阵子|跳槽|搬(?:去|到|回|家)|升职|辞职|离职|入职|考上|承包了|"
    r"买了|中了|拿到|住院|居然|竟然|开始|调到|[减瘦胖涨长]到|终于|生了|怀孕|结婚|离婚|订婚|\b(?:married|engaged|pregnant)\b",
    re.IGNORECASE,
)
# … unless it changes the user's own family ("we had another baby", "我妈去世了")
_OWN_FAMILY = re.compile(
    r"\b(?:had|having|expecting) (?:a|our|another|my) (?:baby|son|daughter|child)|gave birth|pregnant|passed away|"
    r"\bdied\b|生了|怀孕|去世|走了|过世|\bmoved in with (?:me|us)\b|\bliving with (?:me|us)\b|搬来(?:和|跟)(?:我|我们)|"
    r"(?:和|跟)(?:我|我们)(?:一起)?住",
    re.IGNORECASE,
)


_NOT_FAMILY = re.compile(
    r"colleague|co-?worker|friend|mate|buddy|neighbou?r|boss|manager|classmate|room-?mate|flat-?mate|"
    r"同事|朋友|闺蜜|哥们|邻居|老板|领导|上司|同学|室友",
    re.IGNORECASE,
)


def relative_news(sentence: str) -> bool:
    """News of a relative ("My wife got a job offer from Microsoft!", "我弟刚搬去郑州了"): what happened to them,
    not a lasting fact about the user. A change of a note about that relative is still read as one
    (memory.reading.changes)."""
    m = SUBJECT_KIN.search(sentence or "")
    if not (m and _NEWS.search(sentence[m.end() :])):
        return False
    return bool(_NOT_FAMILY.search(m.group())) or not _OWN_FAMILY.search(sentence)  # a colleague's baby is news


def about_others(sentence: str) -> bool:
    """Whether a sentence with a cue word is about someone else or the world rather than the user."""
    if not CUE.search(sentence or "") or _OPINION_OF_SELF.search(sentence):
        return False
    return _SIDES.lean(sentence) >= MARGIN
