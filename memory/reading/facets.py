"""What a change is a change of, when its words share little with the note it changes: "跳槽了，现在在小红书" changes
"用户在美团做运营", "got promoted to senior" changes "The user is a junior developer", "We finally relocated —
Bristol" changes "The user lives in Leeds". A job, a promotion and a move each name a kind of note (the user's
employer, their title, where they live); memory.reading.changes adds a weight to the notes of that kind.

A workplace or a home said again with another value ("这阵子我在平安这边上班", "we've been in Vancouver since March")
is a change with no change word at all: one works at one employer and lives in one place, so a new one replaces the
one note that holds the old one, and only when exactly one does.

A note about someone else ("用户的哥哥在北京", "The user's brother lives in Ottawa") is that person's: a sentence in
which the user speaks of themselves does not change it.
"""

from __future__ import annotations

import re

from memory.reading.about import KIN_WORDS

FACET_WEIGHT = 0.35  # a note of the kind the change is about (as much as a shared slot, memory.reading.targets)

_PROMOTED = re.compile(
    r"\bpromot(?:ed|ion)\b|\bmade (?:a |an |the )?(?:senior|lead|head|manager|partner|director|principal)\b|"
    r"\bstepp?(?:ed|ing)? up (?:to|as)\b|\b(?:bumped|moved) up to\b|升职|提拔|转正|"
    r"升(?:了|为|到|任|成)?[\u4e00-\u9fff]{0,5}?(?:组长|主管|经理|总监|主任|店长|领班|高级|资深|副|正|总)",
    re.IGNORECASE,
)
_NEW_JOB = re.compile(
    r"\b(?:changed|switched|new|swapped|started (?:a|my) new) (?:jobs?|employers?|companies|company|firms?|roles?)\b|"
    r"\bjob (?:change|switch|hop)|\bjoined\b|\bgot (?:a |the )?job\b|\bgot hired\b|\bhired (?:at|by)\b|"
    r"\bstarted (?:working )?(?:at|with|for)\b|\bquit (?:my )?(?:job|work)\b|\blaid off\b|\bmade redundant\b|"
    r"\blost my job\b|\bretired\b|\bnot (?:with|at) [\w&' -]{1,30}? any ?more\b|\bno longer (?:with|at|work(?:ing)? (?:at|for))\b|"
    r"\bfreelanc\w*|\bself-employed\b|\bhanded in my notice\b|\bleft (?:my job|the company|work)\b|"
    r"\bgot (?:an |the )?(?:job )?offer\b|辞了|裸辞|不干了|离职了|拿了.{1,12}?offer|报到|\b(?:I'm|I am|I've been) (?:now |currently )?(?:at|with) [A-Z]|"
    r"\bwork(?:ing)? (?:at|for) .{1,40}\b(?:now|these days|nowadays)\b|"
    r"\b(?:part|full)[- ]time\b|跳槽|跳(?:去|到)了?|不在.{1,8}(?:上班|干)?了|兼职|全职|换(?:了)?(?:份|个)?工作|换(?:了)?(?:家|个)?公司|新工作|新公司|新单位|入职|辞职|离职|被裁|裁员|失业|退休|"
    r"(?:去|到|进)了?(?:一家)?.{1,10}?(?:上班|工作|实习)|现在在.{1,10}?(?:上班|工作|实习|做)|"
    r"转岗|被?(?:转|调)(?:去|到)(?:了)?做|\bresign(?:ed|ing)\b|\bjoining\b",
    re.IGNORECASE,
)
# the user moving, not a class or a meeting that moved ("gym's moved to tues/thurs")
_MOVED = re.compile(
    r"\b(?:I|we)(?:'ve| have| had)?\s+(?:\w+\s+){0,2}?(?:moved|relocated|emigrated|settled)\b(?!\s+(?:her|him|them|it|the|my|our|his)\b)|"
    r"\bmov(?:ed|ing) (?:house|out|abroad|back home|in with)\b|\brelocat(?:ed|ing)\b|\bemigrat(?:ed|ing)\b|"
    r"\b(?:based|living|live) in\b|\bsettled (?:down )?in\b|\b(?:I'm|I am|we're|we are) (?:now )?(?:up|down|out|over) in\b|\b(?:the|our|my) (?:big )?move (?:to|out)\b|自(?:从|打)(?:我们?)?(?:搬|去|来|到)了?|安顿|安家|落脚|扎根|搬家|搬(?:到|去|来|回|出|进)|换(?:了)?(?:房子|住处)|住(?:到|进)|定居|落户|回国|租房|买了房",
    re.IGNORECASE,
)
# the user's employer ("works at Barclays", "用户在招商银行上班", "用户在美团做运营", "用户在一家游戏公司")
_EMPLOYER = re.compile(
    r"\bworks? (?:at|for|in)\b|\bemployed\b|\bjob at\b|"
    r"(?<![现正实存])在.{1,14}?(?:上班|工作|实习|做|任职|打工|当)|在一家|(?:公司|单位|集团|银行|医院|学校)(?:上班|工作)?[。.]?$",
    re.IGNORECASE,
)
# the user's trade or title ("works as a graphic designer", "The user is a junior developer", "用户是普通程序员")
_TITLE = re.compile(
    r"\bworks? as\b|\bworks? (?:full|part)[- ]time\b|\bjob\b|\bcareer\b|\bthe user is an? (?!\w+ (?:of|with)\b)|职业|职位|岗位|"
    r"^用户(?:是|当)(?:一名|一个|名|个)?",
    re.IGNORECASE,
)
# a rank or a trade the occupation slot's lexicon does not list ("a junior analyst", "a sous chef", "组长")
_JOB_WORD = re.compile(
    r"\b(?:junior|senior|lead|head|chief|principal|trainee|apprentice|intern|analyst|consultant|manager|"
    r"director|officer|clerk|assistant|technician|scientist|researcher|programmer|architect|editor|writer|"
    r"journalist|chef|cook|baker|driver|pilot|mechanic|electrician|plumber|carpenter|builder|cleaner|"
    r"cashier|barista|waiter|waitress|bartender|sommelier|paramedic|pharmacist|dentist|vet|surgeon|"
    r"therapist|solicitor|barrister|banker|trader|broker|recruiter|marketer|salesperson|receptionist|"
    r"librarian|lecturer|professor|postdoc|tutor|coach|firefighter|soldier|farmer)s?\b|"
    r"组长|主管|经理|总监|主任|专员|助理|实习生|销售|运营|产品经理|会计|出纳|司机|厨师|店长|文员|客服|质检|"
    r"工程师|程序员|设计师|老师|教师|医生|护士|律师|记者|编辑",
    re.IGNORECASE,
)
# a note whose subject is one of the user's people ("用户的哥哥在北京", "The user's brother lives in Ottawa")
_OTHERS_NOTE = re.compile(
    rf"^\W*(?:the user's|用户的|用户)\s*(?:[\w-]+\s+){{0,2}}?(?:{KIN_WORDS})(?![A-Za-z])|^\W*用户(?:家)?(?:{KIN_WORDS})|"
    r"^\W*用户的?[老亲]?(?:爸|妈|爹|娘)",
    re.IGNORECASE,
)
_PLACE_SAID = re.compile(
    r"\b(?:in|to)\s+(?P<en>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)|(?:在|到|去)(?P<zh>[\u4e00-\u9fff]{2,4})"
)
_EMPLOYER_SAID = re.compile(
    r"\b(?:at|for|with)\s+(?P<en>[A-Z][\w&'-]+(?:\s+[A-Z][\w&'-]+)?)|"
    r"(?<![现正实存])在(?P<zh>[\u4e00-\u9fffA-Za-z0-9]{2,8}?)(?:这边|那边|那儿|这儿)?(?:上班|工作|实习|打工|任职)",
)
_WORK_NEWS = re.compile(r"(?<![现正实存])在.{1,10}?(?:上班|工作|实习|打工)|\bwork(?:ing)? (?:at|for)\b", re.IGNORECASE)


# the company, the office or the school moved, not the user ("公司搬家了", "the office relocated to Slough")
_NOT_THE_USER = re.compile(
    r"^\W*(?:(?:so|oh|btw|and|also)\W+)*(?:our |my |the )?(?:office|company|firm|school|gym|shop|team|clinic)\b|"
    r"^\W*(?:我们)?(?:公司|单位|店|学校|办公室|健身房|门店)",
    re.IGNORECASE,
)
# where the user lived before ("Before Vancouver I lived in Calgary", "以前住在武汉"): no present value
_BEFORE = re.compile(
    r"\b(?:before|previously|used to|back (?:in|when)|lived|was living|grew up|as a kid)\b|以前|之前|曾经|过去|小时候",
    re.IGNORECASE,
)


def change_facet(sentence: str) -> str | None:
    """ "promotion", "job" or "move": the kind of change a sentence states, if it states one of these."""
    if _PROMOTED.search(sentence):
        return "promotion"
    if _NEW_JOB.search(sentence):
        return "job"
    if _MOVED.search(sentence) and not _NOT_THE_USER.search(sentence) and not _BEFORE.search(sentence):
        return "move"
    return None


def others_note(content: str) -> bool:
    """Whether a note is about one of the user's people rather than the user."""
    return bool(_OTHERS_NOTE.search(content or ""))


_FIRST_PERSON = re.compile(r"\b(?:my|me|i|mine)\b|我", re.IGNORECASE)


def others_unnamed(phrase: str, content: str) -> bool:
    """The note is about one of the user's people and the phrase speaks of neither them nor any relative ("my hockey
    injury" / "The user's daughter plays hockey", "我跆拳道受伤那个" / "用户的儿子在学跆拳道")."""
    from memory.reading.kinship import kin
    from memory.reading.mentions import names_in

    found = _OTHERS_NOTE.search(content or "")
    if not found or kin(phrase) or not _FIRST_PERSON.search(phrase):
        return False
    who = re.search(KIN_WORDS, found.group(), re.IGNORECASE)
    named = {n.lower() for n in names_in(content)} | ({who.group().lower()} if who else set())
    return not any(n in phrase.lower() for n in named)


# the phrase speaks of one of the user's people ("my dad's golf injury", "我表弟学游泳那个")
_THEIRS = re.compile(
    rf"\b(?:my|our) (?:{KIN_WORDS})(?:'s|s'|s? (?=(?:goes|go|is|are|was|were|has|had|does|did|plays|works|lives|attends|"
    rf"started|likes|loves|hates)\b))|^\W*我(?:的|家)?(?:{KIN_WORDS})",  # "which school my kid goes to"
    re.IGNORECASE,
)


def someone_elses(phrase: str, content: str) -> bool:
    """The phrase is about one of the user's people and the note about the user alone ("my dad's golf injury" /
    "The user plays golf on Saturdays"): the mirror of others_unnamed."""
    from memory.reading.kinship import kin

    return bool(_THEIRS.search(phrase or "")) and not others_note(content) and not kin(content)


def _residence_note(content: str) -> bool:
    from memory.reading.mentions import residence

    return bool(residence(content)) and not others_note(content)


def _work_note(content: str) -> str | None:
    """ "employer", "title" or None: which of the user's work a note holds."""
    if others_note(content):
        return None
    if _EMPLOYER.search(content):
        return "employer"
    if re.search(r"\bworks? as\b|\bworks? (?:full|part)[- ]time\b|职业|职位|岗位", content, re.IGNORECASE):
        return "title"
    return "title" if _TITLE.search(content) and (_JOB_WORD.search(content) or _about_work(content)) else None


def _about_work(content: str) -> bool:
    """A note on the occupation slot, or one the encoder puts in the area of work ("is a junior analyst")."""
    from memory.reading.domains import AREAS, area_shares, first_person
    from memory.reading.intents import encode
    from memory.services.writing.topics import topics_in

    if any(t.slot == "occupation" for t in topics_in(content)):
        return True
    shares = area_shares(encode([first_person(content)]))[0]
    return list(AREAS)[int(shares.argmax())] == "work"


def facet_weights(sentence: str, notes: list, *, someone: bool = False) -> dict[int, float]:
    """id(note) -> the weight the note gets as the kind of note the sentence's change is about. A sentence that
    opens on someone else (`someone`) weighs only the notes of a partnership, which always has two people in it."""
    life = _life_facets(sentence, notes)
    if someone:
        return {key: w for name in _SHARED for key, w in life.get(name, {}).items()}
    weights: dict[int, float] = {}
    for found in life.values():
        for key, weight in found.items():
            weights[key] = max(weights.get(key, 0.0), weight)
    facet = change_facet(sentence)
    if facet == "move":
        return {**weights, **{id(n): FACET_WEIGHT for n in notes if _residence_note(n.content)}}
    if facet is None:
        return weights
    kinds = {id(n): kind for n in notes if (kind := _work_note(n.content))}
    first = "title" if facet == "promotion" else "employer"
    if first not in kinds.values():  # "Changed jobs!" and only a title is known: that is the note
        first = "employer" if first == "title" else "title"
    return {**weights, **{key: FACET_WEIGHT if kind == first else FACET_WEIGHT / 2 for key, kind in kinds.items()}}


# Other changes of a life and the notes they change: a break-up or a new partner changes who the user is with
# (the one note of it, whoever else shares the partner's name), a degree finished or an exam passed what they study,
# a new rota their working hours. (sentence, note, whether the sentence says a change by itself)
_LIFE = {
    "partner": (
        re.compile(
            r"\b(?:broke up|split (?:up|with)|called it quits|divorc\w*|separated|dumped|seeing someone|"
            r"new (?:girlfriend|boyfriend|partner|fianc[ée]e?)|got (?:married|engaged|hitched)|tied the knot)\b|"
            r"分手|分了|离婚|离了|新(?:男|女)?(?:朋友|对象)|现在的对象|脱单|结婚|订婚|领证|在一起了",
            re.IGNORECASE,
        ),
        re.compile(
            r"\b(?:wife|husband|spouse|partner|girlfriend|boyfriend|fianc[ée]e?|married|engaged|single)\b|"
            r"老婆|妻子|老公|丈夫|男朋友|女朋友|对象|单身|已婚|结婚|订婚",
            re.IGNORECASE,
        ),
        True,
    ),
    "study": (
        re.compile(
            r"\bgraduat\w*|\bdone with (?:uni|university|college|school)\b|\bfinished (?:my )?(?:degree|uni|"
            r"university|studies|course|phd|masters?)\b|\bpassed (?:my |the )?\w*\s?(?:exams?|boards|bar)\b|"
            r"\bdropped out\b|\bI passed\b|\bofficially (?:a|an)\b|\b(?:newly )?qualified (?:as|now)\b|毕业|答辩(?:也)?过|(?:考|考试|面试)(?:也)?过[了啦]|考上|上岸|退学|肄业",
            re.IGNORECASE,
        ),
        re.compile(
            r"\b(?:student|studying|studies|degree|uni|university|college|course|exams?|phd|masters?)\b|"
            r"在读|读研|读博|研[一二三]|博[一二三四五]|备考|考研|专业|学生|复习|资格证",
            re.IGNORECASE,
        ),
        True,
    ),
    "schedule": (
        _SCHEDULE := re.compile(
            r"\b(?:rota|shifts?|nights|(?:\d|four|three)[- ]day (?:work ?)?week|days? off|hours|9 to 5|"
            r"nine to five|monday to friday)\b|双休|单休|大小周|排班|倒班|夜班|白班|早班|晚班|作息|"
            r"[\d一二三四五六七八九十两]+点(?:半|前|后|以后|以前)?(?:就|才)?(?:睡|起|睁眼|醒)",
            re.IGNORECASE,
        ),
        _SCHEDULE,
        False,
    ),
}


_LIFE.update(
    {
        # a raise or a cut changes what the user earns
        "pay": (
            re.compile(
                r"涨薪|加薪|降薪|涨工资|调薪|\bpay (?:rise|raise|cut)\b|\b(?:got|get) a raise\b|\bappraisal\b", re.I
            ),
            re.compile(
                r"月薪|年薪|工资|薪水|收入|到手|\bsalary\b|\bearns?\b|\bincome\b|\bCTC\b|\bper (?:year|annum)\b", re.I
            ),
            True,
        ),
        # a new phone replaces the one the user had (not a tablet or a laptop)
        "phone": (
            re.compile(
                r"换了?(?:个|部|台)?(?:新)?手机|新手机|(?:换|买)了.{0,6}(?:华为|小米|苹果|iPhone|OPPO|vivo|三星|荣耀)|"
                r"\bnew phone\b|\bgot (?:a|an|the) (?:new )?(?:iphone|pixel|galaxy|samsung|phone)\b|"
                r"\bswitched to (?:an? )?(?:iphone|android|pixel|samsung)\b",
                re.I,
            ),
            re.compile(r"手机|\bphone\b|iPhone|Android|Pixel|Galaxy", re.I),
            True,
        ),
        # a child's new school changes the note of the school that child goes to
        "school": (
            re.compile(
                r"\bstarted (?:at|in) [A-Z]|\bnew school\b|\bmoved schools\b|转学|转校|上(?:小学|初中|高中)了|升(?:初中|高中|初一|高一)",
                re.I,
            ),
            re.compile(
                r"\bschool\b|\bprimary\b|\bacademy\b|\bgrammar\b|\belementary\b|\bnursery\b|小学|中学|幼儿园|学校|初中|高中",
                re.I,
            ),
            True,
        ),
        # a hobby dropped or switched changes the note of what the user does for fun ("乐高太烧钱了 转坑手工皮具了")
        "hobby": (
            re.compile(
                r"转坑|退坑|出坑|弃坑|入坑|不玩了|改玩|\b(?:took|taken|picked) up\b|\bgave up\b|\bditched\b|"
                r"\bswapped (?:\w+ ){1,3}for\b|\bhung up (?:my|the) (?:boots|racket|gloves|skates|bike)\b",
                re.I,
            ),
            re.compile(
                r"爱好|兴趣|在玩|喜欢玩|在练|在学|\bhobby\b|\bplays?\b|\blearning\b|\bpractis|\bpractic|\binto\b", re.I
            ),
            True,
        ),
        # a car sold or traded in is replaced by the one the user drives now ("飞度出掉了 提了台比亚迪海豹")
        "car": (
            re.compile(
                r"提了(?:一)?[台辆部]|提车|换车|新车|出掉|(?:车|它)卖了|\btraded (?:\w+ ){0,3}in\b|\bnew car\b|"
                r"\bsold (?:my|the|our) (?:car|\w+ car)\b|\bpicked up a (?:used |new |secondhand )?[A-Z]",
                re.I,
            ),
            re.compile(r"车|开一?辆|\bdrives?\b|\bcar\b|\bSUV\b|\bhatchback\b", re.I),
            True,
        ),
        # a diet given up or taken on changes the note of what the user eats
        "diet": (
            re.compile(
                r"破戒|开荤|不(?:再)?吃素|(?:又|也|开始)(?:吃点?|吃)(?:肉|鸡|鱼|猪|牛|羊)|\b(?:eat(?:ing)?|started eating) "
                r"(?:meat|fish|chicken)(?: again)?\b|\b(?:no longer|not|stopped being) (?:vegan|vegetarian|veggie)\b|"
                r"\bwent (?:vegan|vegetarian|veggie|pescatarian)\b|\bgave up (?:meat|being vegan|being vegetarian)\b",
                re.I,
            ),
            re.compile(
                r"素食者|素食主义|吃素|是素|\b(?:is|am|went|being) (?:a |an |strict )?(?:vegetarian|vegan|pescatarian|veggie)s?\b"
                r"(?! (?:restaurant|canteen|cafe|café|place|shop|option|menu|food))",
                re.I,
            ),
            True,
        ),
    }
)


_SHARED = ("partner", "school")  # facets of the user's people as much as of the user


def _life_facets(sentence: str, notes: list) -> dict[str, dict[int, float]]:
    """{facet: {id(note): weight}} for the life facets the sentence speaks of (_LIFE)."""
    found: dict[str, dict[int, float]] = {}
    for name, (said, held, _) in _LIFE.items():
        if said.search(sentence):
            mine = [n for n in notes if held.search(n.content) and (name in _SHARED or not others_note(n.content))]
            found[name] = {id(n): FACET_WEIGHT for n in mine}
    return found


def partner_notes(sentence: str, notes: list) -> set[int]:
    """{id(note)} of the notes of who the user is with, when the sentence speaks of a break-up or a new partner."""
    return set(_life_facets(sentence, notes).get("partner", {}))


def life_change(sentence: str) -> bool:
    """Whether the sentence states a change of the user's life by itself: a job, a move, a partner, a degree."""
    return change_facet(sentence) is not None or any(said.search(sentence) for said, _, c in _LIFE.values() if c)


def _value(rx: re.Pattern, text: str) -> str:
    m = rx.search(text)
    return (m.group("en") or m.group("zh") or "") if m else ""


def states_value(text: str) -> bool:
    """Whether `text` says where the user works or lives (the notes are then read for the one it may replace)."""
    from memory.reading.mentions import residence

    return bool(_WORK_NEWS.search(text) or residence(text))


def value_replaced(sentence: str, notes: list) -> set[int]:
    """{id(note)} when the sentence says where the user now works or lives and exactly one of their notes holds
    another employer or home; empty otherwise."""
    from memory.reading.mentions import residence

    if _BEFORE.search(sentence):
        return set()
    if _WORK_NEWS.search(sentence) and not others_note(sentence):
        said, held = _value(_EMPLOYER_SAID, sentence), [n for n in notes if _work_note(n.content) == "employer"]
    elif residence(sentence):
        said, held = _value(_PLACE_SAID, sentence), [n for n in notes if _residence_note(n.content)]
    else:
        return set()
    if not said or len(held) != 1 or said.lower() in held[0].content.lower():
        return set()
    return {id(held[0])}
