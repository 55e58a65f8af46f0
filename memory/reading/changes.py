"""Which of a user's notes a message changes: a statement that says something has changed ("I moved to Berlin",
"涨薪了，现在月薪1.8万", "Zoe dropped violin and picked up drums") replaces the note it is about, found by meaning.

A replacement needs more evidence than an addition: the sentence must say that something changed (a change word:
"now", "switched", "搬", "改", "不再"), state it (not ask, not plan, not imagine), and be closer to one note than to
every other by a clear margin. A sentence that only mentions a topic ("climbing tonight, my forearms are crying",
"咖啡店的事我们接着聊") has no change word and replaces nothing.
"""

from __future__ import annotations

import re

from core.text import split_sentences
from memory.reading.about import SUBJECT_KIN
from memory.reading.facets import facet_weights, life_change, others_note, partner_notes, states_value, value_replaced
from memory.reading.kinship import kin, kin_shared
from memory.reading.measures import measure_changed
from memory.reading.mentions import names_in
from memory.reading.renames import PUT_RIGHT, RENAMED, Change, renamed
from memory.reading.targets import notes_scored

FLOOR = 0.2  # the note a change is about scores at least this (cosine + words + slot, memory.reading.targets)
MARGIN = 0.1  # … and this much more than the next note
MEASURE_WEIGHT = 0.3  # the sentence gives a measure the note holds another amount of ("74 kg" / "weighs 80 kg")
MEASURE_FLOOR = 0.3  # without a change word, the note a new amount changes is about the same thing by meaning too
MAX_SENTENCE = 120  # a longer sentence is left to the rules' clauses: one note would hold too much

CHANGE = re.compile(
    r"\b(?:now|these days|nowadays|any ?more|no longer|not \w+ any ?more|instead(?: of)?|actually|switched|"
    r"switching|changed|moved|relocated|dropped|picked up|left|quit|finished|graduated|retired|promoted|appointed|joined|"
    r"cancell?ed|stopped|started|became|pushed|postponed|brought forward|overtaken|replaced|up to|down to|"
    r"hiked|raised|cut|increased|decreased|reduced|lowered|bumped|went (?:up|down)|turned \d+|miscounted|autocorrect|i meant|not \w+,? (?:but|it'?s)|"
    r"new job|got (?:a |an )?(?:new|promoted|married|engaged|divorced)|relocat(?:ed|ing)|separated|split up|"
    r"broke up|sold|traded (?:\w+ ){0,3}?in|ended up|passed away|died|adopted|put (?:down|to sleep)|finally|"
    r"renamed|taken up|took up|hung up|gave up|(?:went|gone|going) (?:to )?(?:part|full)[- ]time|"
    r"push(?:ed|ing)? (?:\w+ ){0,3}back|called it quits|finali[sz]ed|upped|bumped (?:it )?up|ramped up|"
    r"cut (?:back|down)|lately|recently|from now on|since|ditched|swapped|packed in|new (?:flat|place|house|apartment|"
    r"home|pad)|resign(?:ed|ing)|handed in my notice|joining|flitted|"
    r"went (?:(?:dairy|gluten|meat|sugar|alcohol|booze|caffeine|nut)[- ]free|vegan|vegetarian|veggie|keto|pescatarian|"
    r"teetotal|sober|freelance|self[- ]employed|part[- ]time|full[- ]time))\b|新租|新买|新换|新搬|卖了|卖掉|出掉|最后(?:买|选|去|定)|去世|过世|离世|"
    r"领养|收养|领了(?:一)?[只条]|转坑|退坑|出坑|弃坑|提了(?:一)?[台辆部]|放一放|先放放|先搁|搁置|"
    r"走了(?=.{0,6}(?:😭|😢|难过|难受|伤心|哭))|改(?:在)?(?:周|星期|礼拜)|"
    r"现在|如今|目前|已经|不再|不是.{1,12}[，,]?(?:是|而是)|其实|说错|改(?:成|为|去|学|用|到|了)|改[\u4e00-\u9fff]{1,4}了|换(?:了|成|到)?|搬|"
    r"挪|升|涨|降|转(?:岗|行|到|学|了|去|入|进)|戒|毕业|离职|辞职|跳槽|入职|退休|脱单|结婚|离婚|分手|满\d+岁|满[一二三四五六七八九十]+岁|"
    r"变成|变了|接到|不去了|不学了|不做了|不干了|不吃.{0,6}了|开始|[加减增涨降瘦胖长掉]到|破戒|开荤|调到|提到|升到|终于|"
    r"上(?:[一二三四五六]年级|小学|初中|高中|大学|幼儿园)|不在.{1,8}了|改名|改叫|这阵子|这段时间|这些天|近来|"
    r"放弃|迷上|爱上|喜欢上|入坑|改玩|[不没](?:怎么|再)?[\u4e00-\u9fff]{1,2}[了啦]|(?:考|答辩|面试)(?:也)?过[了啦]|"
    r"考上|[多少]了|自(?:从|打)",
    re.IGNORECASE,
)
# a plan, a wish or a hypothetical is not yet a change of what is so
NOT_YET = re.compile(
    r"\b(?:plan(?:ning)?|thinking (?:of|about)|might|maybe|perhaps|considering|going to|gonna|want to|"
    r"would like|would love|wish|dream(?:ing)? (?:of|about)|someday|one day|hope|hoping|if|should i)\b|"
    r"(?<!\bin )(?<!\bof )(?<!\bby )\bmay\b|打算|计划|考虑|要不要|也许|可能|或许|如果|假如|想要|准备|好想|真想|"
    r"多想|希望|要是|但愿|想(?:去|搬|换|买|学|要|让)|有机会|将来|"
    # a wish said softly, or a decision not yet made ("有点想明年辞职", "还没想好", "still undecided")
    r"(?:有点|挺|很|还|总|一直)想|想(?:明年|今年|下个月|下半年|过段时间|以后)|没想好|没决定|还在犹豫|"
    r"\b(?:undecided|not sure yet|haven'?t decided)\b|^\W*(?:say|suppose|imagine) (?:i|we)\b",
    re.IGNORECASE,
)
# a question, with or without its mark: "杭州跟成都比 哪个更适合年轻人定居啊", "should I move to Leeds"
_QUESTION = re.compile(
    r"[?？]\s*$|[吗呢嘛][。.!！]?\s*$|哪个|哪里|哪儿|哪家|什么|为什么|为啥|怎么样|多少钱|是不是|要不要|该不该|好不好|行不行|"
    r"^\W*(?:should|would|could|can|is|are|do|does|did|which|what(?! an? )|how|why|where|when)\b",
    re.IGNORECASE,
)


_ON_THE_SCALES = re.compile(
    r"秤|称了|一称|称重|体重|减肥|减了|掉|瘦|胖|\bweigh|\bscales?\b|\blost\b|\bgained\b|\bdiet", re.I
)


def _same_thing(sentence: str, note_text: str) -> bool:
    """A new amount said without a change word is about the note's thing: a word in common ("瘦到58公斤" / "体重65
    公斤" share the unit; "7点起床" / "11点睡觉" share nothing), or an age said bare after the note's age."""
    from memory.reading.measures import bare_numbers, measures
    from memory.services.writing.restating import fact_terms

    if fact_terms(sentence) & fact_terms(note_text):
        return True
    if "weight" in measures(sentence) and "weight" in measures(note_text) and _ON_THE_SCALES.search(sentence):
        return True  # "今早上秤68kg" after "用户体重75公斤": the user's weight, not 2 kg of apples
    return bool(bare_numbers(sentence)) and "age" in measures(note_text) and not measures(sentence)


# between a change and a plan: the plan is of what comes after ("教资考过啦 现在在准备考公", "rota's changed, … so
# band's gonna be a problem")
_CLAUSE_BREAK = re.compile(r"[，,;；。.!！…]|\s(?:so|and|but|then)\s|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])", re.I)


def _not_yet(sentence: str) -> bool:
    """A plan, a wish or a hypothetical governs the sentence: not one that only follows a change said before it."""
    plan = NOT_YET.search(sentence)
    if plan is None:
        return False
    change = CHANGE.search(sentence)
    return not (change and change.end() <= plan.start() and _CLAUSE_BREAK.search(sentence, change.end(), plan.start()))


# a time gone by, remembered ("想起大学那会儿在福州实习", "back in 2015 I lived in Aberdeen"), unless the sentence also
# says what is so now ("以前在腾讯，现在在字节")
_LOOKING_BACK = re.compile(
    r"\b(?:back (?:in|when|then)|when i was (?:a |at |in |little|younger|\d)|as a (?:kid|child|student|teen)|"
    r"growing up|years ago|in my (?:twenties|teens|uni|college)|reminds? me of|miss(?:ed)? (?:the days|those))\b|"
    r"那会儿?|那时候?|那阵子|当年|小时候|上学(?:的)?时候|(?:大学|高中|初中|读书|念书)(?:的)?时候|想起|怀念|回忆",
    re.IGNORECASE,
)
# … or a change made then that holds since ("I moved to Nottingham back in March")
_NOW = re.compile(
    r"\b(?:now|these days|nowadays|currently|any ?more|no longer|moved|relocated|joined|switched)\b|现在|如今|目前|眼下|不再|"
    r"搬(?:到|去|来)了?",
    re.I,
)


def _stated(sentence: str) -> bool:
    """Said as what is so: not a question, a plan, a wish or a memory of the past, and short enough to be one
    fact."""
    looking_back = _LOOKING_BACK.search(sentence) and not _NOW.search(sentence)
    return (
        len(sentence) <= MAX_SENTENCE and not looking_back and not _not_yet(sentence) and not _QUESTION.search(sentence)
    )


def _may_change(sentence: str) -> bool:
    return _stated(sentence) and bool(CHANGE.search(sentence) or life_change(sentence))


def says_change(text: str) -> bool:
    """Whether a sentence of `text` could state a change (the user's notes are read only then): a change word, a
    name put right, a new form of address, a number with what it measures, or where the user works or lives."""
    from memory.reading.measures import says_measure

    sentences = split_sentences(text)
    if sentences and all(_QUESTION.search(s) for s in sentences):
        return False  # a question states no new value, whatever it names
    return (
        any(_may_change(s) for s in sentences)
        or any(rx.search(text) for rx in RENAMED)
        or bool(PUT_RIGHT.search(text))
        or bool(_CALL_ME.search(text))
        or says_measure(text)
        or states_value(text)
    )


_OWNER = re.compile(
    r"^\W*(?:(?:so|well|oh|btw|and|also)\W+)*(?:my|our)\s+|^\W*(?:我们|我|俺|咱)(?:家|的)?(?:那个|这个)?", re.I
)


_NAMING = re.compile(r"叫|名叫|名字|\b(?:called|named|name is)\b", re.IGNORECASE)
# the user is in it too: "Priya and I got engaged", "老周现在成我领导了", "Sam is now my manager"
_WITH_ME = re.compile(
    r"\s*(?:(?:and|&)\s+(?:I|me)\b|和我|跟我|与我|同我|(?:现在|已经)?(?:成了?|变成了?|当上了?|是)了?我|"
    r"(?:is|'s|became|has become)\s+(?:now\s+)?my\b)",
    re.IGNORECASE,
)


def _named_subject(sentence: str, notes: list) -> str | None:
    """The person a sentence opens on by a name one of the user's notes gives ("用户的闺蜜叫阿琳" -> "阿琳搬去成都了",
    "Tom moved to Leeds" after "My friend Tom lives in York")."""
    name = _opening_name(sentence, notes)
    if name and _WITH_ME.match(re.sub(r"^[\W_]+", "", sentence)[len(name) :]):
        return None  # "Priya and I got engaged": the user too
    return name


def _opening_name(sentence: str, notes: list) -> str | None:
    """The name of the user's notes the sentence opens on, if any."""
    head = re.sub(r"^[\W_]+", "", sentence)
    known = {name for n in notes for name in names_in(getattr(n, "content", "")) if len(name) >= 2}
    return next((name for name in known if head.startswith(name)), None)


_THEM = re.compile(r"\b(?:she|he|her|him|his|they|them|their)\b|[他她它]", re.IGNORECASE)


def _names_them(sentence: str, content: str) -> bool:
    """Whether a sentence speaks of the person a note is about: by the relative's word, the name the note gives
    ("我和陈宇已经分手了" / "用户的男朋友叫陈宇"), or a pronoun."""
    return bool(
        kin_shared(sentence, content) or any(n in sentence for n in names_in(content)) or _THEM.search(sentence)
    )


def _about_another(sentence: str, note, notes: tuple = ()) -> bool:
    """The sentence's subject is a relative (or friend) the note is not about ("My brother just moved to Cardiff"
    does not move the user; "室友都搬走了" does change "用户和两个室友合租"), or someone it names whom the note
    does not ("阿琳搬去成都了" does not move the user)."""
    named = _named_subject(sentence, list(notes))
    if named is not None:  # only a note of what that person does changes, not the note that says who they are
        content = getattr(note, "content", "")
        return named not in content or bool(_NAMING.search(content) and kin(content))  # a pet's note changes
    m = SUBJECT_KIN.search(sentence)
    if m is None:  # the user speaks of themselves: a note about one of their people is not theirs to change
        return others_note(note.content) and not _names_them(sentence, note.content)
    who = _OWNER.sub("", m.group()).strip().lower()
    return not kin_shared(m.group(), note.content) and not (who and who in note.content.lower())


def change_read(text: str, notes: list) -> Change | None:
    """The note `text` changes, with the sentence that says so; None when no sentence states a change of a
    known fact clearly enough: no change word (or new amount of a measure the note holds, or a new employer or
    home), a question or a plan, a relative's news, or no note clearly closest."""
    if not notes:
        return None
    best: Change | None = renamed(text, notes)
    if best is not None:
        return best
    units = _units(text)
    whole_text = text.strip() if len(split_sentences(text)) > 1 else None
    found_in = {}
    for sentence in units:
        if not _stated(sentence) or (sentence == whole_text and not all(map(_stated, split_sentences(text)))):
            continue  # the whole of a short message is one statement only when each of its sentences is one
        found = found_in[sentence] = _sentence_change(sentence, notes)
        if found is not None and (best is None or found.score > best.score):
            best = found
    whole = found_in.get(text.strip()) if len(units) > 1 else None
    if best is not None and whole is not None and whole.note is best.note:
        best = whole  # "not with Deloitte anymore fyi. freelancing": the change and its new value, one note
    return best or _clause_change(units, notes) or _new_address(text, notes)


def _clause_change(sentences: list[str], notes: list) -> Change | None:
    """When no sentence says a change clearly, one clause of a sentence may ("fyi I'm pescatarian now, doc wanted
    me back on fish": the reason after the change dilutes it); not in a sentence about someone else ("my brother
    just moved to Galway, so I'm the last one left in Dublin")."""
    best = None
    for sentence in sentences:
        clauses = [c.strip() for c in _CLAUSE_CUT.split(sentence) if len(c.strip()) >= 6]
        if len(clauses) < 2 or SUBJECT_KIN.search(sentence) or _THEM.search(sentence):
            continue
        for clause in clauses:
            found = _sentence_change(clause, notes) if _stated(clause) else None
            if found is not None and (best is None or found.score > best.score):
                best = found
    return best


_CLAUSE_CUT = re.compile(
    r"[,，;；]\s*|\s+-\s+|(?<=[\u4e00-\u9fff])\s+(?=[\u4e00-\u9fff])"
)  # a space in Chinese: a comma


def _units(text: str) -> list[str]:
    """The sentences of `text`, and the whole of a short message of more than one ("现在双休了！一周就上5天": the change word
    in one, the new value in the other)."""
    sentences = [s for s in split_sentences(text) if re.search(r"\w", s)]  # not the "!" of "I passed!!!"
    whole = [text.strip()] if len(sentences) >= 2 and len(text.strip()) <= MAX_SENTENCE * 2 // 3 else []
    return sentences + whole


# a note that only says who is in the user's life ("The user has a sister.", "用户有两个孩子。"): news of that
# person ("My sister just got a job at Google") is theirs and leaves it as it is
_WHO_THEY_ARE = re.compile(
    r"^the user has (?:a|an|one|two|three|four|\d+) (?:older |younger |big |little |twin )?[\w-]+\.$|"
    r"^用户有(?:一个|一位|个|两个|三个|\d+个)?[\u4e00-\u9fff]{1,4}。$",
    re.IGNORECASE,
)


def _sentence_change(sentence: str, notes: list) -> Change | None:
    """The note one sentence changes, when one is clearly closest."""
    worded = bool(CHANGE.search(sentence) or PUT_RIGHT.search(sentence) or life_change(sentence))
    remeasured = {id(n) for n in notes if measure_changed(sentence, n.content, worded=worded)}
    # a new employer or home said with no change word replaces the one note that holds the old one
    replaced = set() if remeasured else value_replaced(sentence, notes)
    pinned = remeasured or replaced
    if not worded and not pinned:
        return None
    # the kind of note a job change or a move is about, when it is the user's own ("Raj got promoted" is not)
    someone = _opening_name(sentence, notes) or SUBJECT_KIN.search(sentence) or _THEM.search(sentence)
    facets = facet_weights(sentence, notes, someone=bool(someone))
    partners = partner_notes(sentence, notes)  # a break-up or a new partner changes the note of who they are with
    # a new amount of a measure a note holds changes that note, whatever else the sentence mentions
    scored = [
        (note, score + (MEASURE_WEIGHT if pinned else 0.0) + facets.get(id(note), 0.0))
        for note, score in notes_scored(sentence, notes)
        if (id(note) in partners or not _about_another(sentence, note, tuple(notes)))
        and not (someone and id(note) not in partners and _WHO_THEY_ARE.match(getattr(note, "content", "")))
        and (not pinned or id(note) in pinned)
        and (worded or replaced or (score >= MEASURE_FLOOR and _same_thing(sentence, getattr(note, "content", ""))))
    ]
    if not scored:
        return None
    scored.sort(key=lambda pair: pair[1], reverse=True)
    top, score = scored[0]
    second = scored[1][1] if len(scored) > 1 else 0.0
    if score < FLOOR or score - second < MARGIN:
        return None
    return Change(note=top, sentence=sentence.strip(), score=score, measured=bool(remeasured))


# "以后叫我阿杰吧", "Call me Bobby": a new form of address replaces the note that holds the old one
_CALL_ME = re.compile(
    r"\bcall me\s+(?P<en>[A-Z][\w'-]+)|\baddress me as\b|(?:叫我|称呼我|喊我)(?P<zh>[\u4e00-\u9fffA-Za-z]{1,6})", re.I
)
# the name a note of address holds ("prefers to be called Robert", "希望被称呼为小陈", "“请叫我小陈”")
_OLD_ADDRESS = re.compile(
    r"\b(?:called|addressed as|call (?:the user|them|me))\s+(?P<en>[A-Z][\w'-]+)|"
    r"(?:称呼为|称呼|被叫|叫(?:用户|他|她|我))(?P<zh>[\u4e00-\u9fffA-Za-z]{1,6}?)(?=[”\"。.，,！!吧]|$)",
    re.I,
)
_PARTICLES = re.compile(r"(?:吧|啊|呀|哈|就好|就行|好了|了)+$")
_ADDRESSED = re.compile(r"\bcalled\b|\baddressed\b|\bcall (?:the user|them)\b|称呼|被叫|叫(?:用户|他|她)", re.I)


def _new_address(text: str, notes: list) -> Change | None:
    said = _CALL_ME.search(text)
    held = [n for n in notes if _ADDRESSED.search(n.content)]
    if not said or len(held) != 1:
        return None
    sentence = next((s for s in split_sentences(text) if _CALL_ME.search(s)), text)
    # the note keeps its words with the new name in place of the old one, when both are plain to see
    new = _PARTICLES.sub("", said.group("en") or said.group("zh") or "")
    old = _OLD_ADDRESS.search(held[0].content)
    old_name = old and (old.group("en") or old.group("zh"))
    rewritten = held[0].content.replace(old_name, new) if old_name and new and old_name != new else ""
    return Change(note=held[0], sentence=sentence.strip(), score=1.0, rewritten=rewritten)


_LEAD_IN = re.compile(r"^[^:：]{0,40}[:：]\s*")


def _said(sentence: str) -> str:
    """The sentence without a lead-in that only puts right ("Oops, I told you wrong: Mum's birthday is …")."""
    lead = _LEAD_IN.match(sentence)
    return sentence[lead.end() :] if lead and PUT_RIGHT.search(lead.group()) and sentence[lead.end() :] else sentence


def change_candidates(candidates: list, change: Change, *, chinese: bool) -> list:
    """The candidates with the change applied: the one that already holds the note's slot with a value (the rules
    read the new value: an amount, a place) is marked as replacing the note; otherwise the sentence's clause-by-clause candidates give way to one
    candidate holding the whole sentence in the user's words ("Zoe dropped violin and picked up drums" is one
    change, not "Zoe dropped violin")."""
    from memory.models import MemoryNote
    from memory.services.writing.rules import Candidate, third_person

    note = change.note
    if change.rewritten:
        rest = [c for c in candidates if not (c.quote and (c.quote in change.sentence or change.sentence in c.quote))]
        named = Candidate(
            kind=note.kind,
            key=note.key,
            content=change.rewritten,
            value=None,
            confidence=0.9,
            source=MemoryNote.Source.USER_STATED,
            quote=change.sentence,
            change=True,
            extra={"replaces": note.pk},
        )
        return rest + [named]
    slot = (note.key or "").split(":")[-1]
    for c in candidates:
        if slot and c.value and (c.key or "").split(":")[-1] == slot:
            c.change, c.unclear = True, False
            c.extra = {**c.extra, "replaces": note.pk, "measured": change.measured}
            return candidates
    rest = [c for c in candidates if not (c.quote and (c.quote in change.sentence or change.sentence in c.quote))]
    return rest + [
        Candidate(
            kind=note.kind,
            key=note.key,
            content=third_person(_said(change.sentence).rstrip("。.!！~～ "), chinese),
            value=None,
            confidence=0.85,
            source=MemoryNote.Source.USER_STATED,
            quote=change.sentence,
            change=True,
            extra={"replaces": note.pk, "measured": change.measured},
        )
    ]
