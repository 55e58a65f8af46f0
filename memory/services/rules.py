"""The offline, rule-based reading of a user's message: which clauses state durable facts about the user, of what
kind and slot, with what value, hedged or not, changed or not, a passing whim or not.

General patterns in Chinese and English (amounts with Chinese numerals and 万/千/k, sizes, durations and
periods, places, "我是/I am", "我喜欢/I prefer", "我不喜欢/I don't like", changes "改成/换成/not X anymore",
plans, constraints), not lookups of example sentences. The model-backed extractor goes through the same code
checks afterwards (memory.services.extraction), so these helpers are also the judges of a model's candidates.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory.services.quantities import money_text, quantities, slot_amount
from memory.services.topics import TOPIC_BY_SLOT, Topic, find_option, topics_in

CJK = re.compile(r"[\u3400-\u9fff]")

HEDGE = re.compile(r"大概|大约|大致|左右|差不多|可能|应该|估计|也许|或许|好像|\d\s*[万千元块]?上下|约\s*\d|约莫|吧[。！!，,]?\s*$|"
                   r"\b(?:about|around|roughly|approximately|approx\.?|circa)\s+[$¥€£]?\d|\bmaybe\b|\bprobably\b|"
                   r"\bi think\b|\bi guess\b|\bor so\b|\bish\b|~\s*\d|\bmight\b|\bsomething like\b|\bi believe\b|"
                   r"\bi'd say\b|\b(?:fairly|pretty|not(?: 100%| entirely| totally)?) sure\b|\bgive or take\b|\bkind of\b|"
                   r"\broughly\b|"
                   r"\bsort of\b|\b(?:about|around|roughly|approximately) (?:a |an )?(?:one|two|three|four|five|six|seven|"
                   r"eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|dozen|half)\b|来[个位名家]|"
                   r"不太确定|说不准|吧[。！!]?$", re.IGNORECASE)
CHANGE = re.compile(r"改成|换成|改为|换为|改喝|改吃|改用|改坐|换了|改了|不再|已经不|现在改|现在换|其实是|更正|纠正|"
                    r"不是.{1,12}了|\bswitched to\b|\bchanged to\b|\bnow (?:i )?(?:prefer|drink|take|use|live|work)\b|"
                    r"\banymore\b|\bno longer\b|\binstead\b|\bactually\b|\bcorrection\b|\bnot .{1,20} but\b|"
                    r"\bmoved to\b|\bpostponed\b|\btransferred\b|\bnow\s*[.!]?\s*$|\brescheduled\b|\bpushed (?:back )?to\b|\bswitched from .{1,40}? to\b|改到|推迟到|"
                    r"提前到|变成|变了",
                    re.IGNORECASE)
WHIM = re.compile(r"最近在研究|最近在看|最近想|最近有点|感觉挺火|好像挺火|挺火的|随便问问|随便看看|突发奇想|一时兴起|"
                  r"心血来潮|有点想|想试试|考虑要不要|\bthinking about maybe\b|\bmaybe (?:try|trying|start)|"
                  r"\bmight try\b|\blately\b|\bbeen looking into\b|\bjust curious\b|\bjust wondering\b|\bon a whim\b|"
                  r"\bsomeday\b|\btoy(?:ing)? with the idea\b|"
                  # a passing state, not a fact about the person: "today", "tonight", "in the mood", "haha"
                  r"今天|今晚|今早|晚上想|这周|这几天|突然|好想|好不想|说不定|哪天|还没想好|纯属|好玩|刚看了|刚刚|刚才|"
                  r"哈哈|\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening|week)\b|\bright now\b|"
                  r"\bat the moment\b|\bin the mood\b|\bfeel(?:ing)? like\b|\bkinda want\b|\bobsessed\b|"
                  r"\b(?:lol|haha|ha|hah)\b|\bjust for fun\b|\brandom thought\b|\bi wonder\b|\bbriefly\b|"
                  r"\bnot sure\b|\bone day\b|\bat some point\b|\bwho knows\b|\bgive it a go\b|\bcould go for\b|"
                  r"我想想|\blet me think\b|\b(?:got|get|getting) (?:distracted|confused|lost|sidetracked|bored)\b|走神|\bjust (?:\w+ed|saw|read|heard|got|had|ate)\b",
                  re.IGNORECASE)
QUESTION = re.compile(r"[?？]\s*$|[吗呢么嘛][。！!]?\s*$|^(?:请|麻烦|帮我|能不能|可不可以|能否|你觉得|你说)|帮我|介绍一下|"
                      r"说说|讲讲|细说|告诉我|推荐|怎么|如何|为什么|为啥|多少钱|哪些|哪个|有没有|是不是|"
                      r"^(?:can|could|would|will|should|do|does|did|is|are|what|how|why|when|where|which|who|tell|"
                      r"please|help|recommend|explain|describe|remind|let's|shall)\b", re.IGNORECASE)
FIRST_PERSON = re.compile(r"我|俺|咱|本人|\bI\b|\bI'm\b|\bmy\b|\bme\b|\bwe\b|\bour\b", re.IGNORECASE)
# A first-person statement with no kind marker ("I drive a 2019 Civic", "我会说粤语") is still a fact about the user;
# these say what kind it is when nothing else does.
_BUSINESS_SUBJECT = re.compile(r"^(?:our|my) (?:[\w'-]+ ){0,2}(?:shop|store|restaurant|cafe|café|bakery|business|company|"
                               r"team|studio|salon|gym|firm|startup|clinic|kitchen)s?\b|^(?:我们|我的|咱们)?(?:店|店里|"
                               r"工作室|公司|团队|餐厅|饭店|门店)", re.IGNORECASE)
_DATED = re.compile(r"\b(?:on|by|until|before|to|in|(?:at )?the (?:end|start|beginning|middle) of|early|late|mid-?) "
                    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:jan|feb|mar|apr|may|jun|"
                    r"jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2})|\bdeadline\b|\bnext (?:month|year|week)\b|"
                    r"\d{1,2}\s*月\s*\d{1,2}\s*[日号]|周[一二三四五六日天]|星期[一二三四五六日天]|定在|到期", re.IGNORECASE)
STANDING = re.compile(r"\b(?:always|from now on|in future|going forward|never|don't ever|do not ever)\b.{0,40}"
                      r"\b(?:answer|reply|respond|write|explain|call me|address me|use|suggest|recommend|give me|show me)\b|"
                      r"(?:以后|今后|往后|从现在起|永远|每次)(?:都)?.{0,8}(?:回答|回复|答复|称呼|叫我|用|推荐|给我)|"
                      r"(?:别再|不要再|永远不要|千万别).{0,6}(?:推荐|给我|提|发)", re.IGNORECASE)
# An instruction about other people's data or everyone's is no preference of this user's (and a poisoning attempt).
_OTHER_PEOPLE = re.compile(r"所有用户|所有人|其他用户|其他人|别人|大家|用户\s*\d+|\b(?:all|every|other) (?:users?|customers?|"
                           r"people)\b|\beveryone\b|\beverybody\b|\buser\s*#?\d+", re.IGNORECASE)
# The user as the subject of the clause ("I drive ...", "我会说粤语"), not its object ("text me", "联系我", "给我讲个笑话").
_SUBJECT_EN = re.compile(r"^(?:(?:now|also|still|actually|so|and|but|really|usually|currently)\s+)?(?:I|I'm|I've|I'd|my|"
                         r"we|we're|we've|our)\b", re.IGNORECASE)
_SUBJECT_ZH = re.compile(r"^(?:[\u4e00-\u9fff]{0,3}?)(?<![给打联系帮让叫诉找问])(?:我|我们|咱们|俺|本人)")
# Talk about identifiers ("my phone:", "my debit card ends ...") is never a fact to keep, whatever is left of it.
_IDENTIFIER_TALK = re.compile(r"\b(?:phone|cell|mobile|number|e-?mail|card|passport|ssn|iban|account|id|contact)\b|"
                              r"电话|手机|号码|邮箱|卡号|银行卡|身份证|护照|账号|微信", re.IGNORECASE)
# A clause that only points at something said elsewhere ("I'm renewing it") is no fact on its own.
_DANGLING = re.compile(r"\b(?:it|this|that|them)\s*[.!。！]?\s*$|[它这那]\s*[。！!]?$", re.IGNORECASE)


_RELATIVE_SUBJECT = re.compile(r"^(?:my|our) (?:wife|husband|son|daughter|kids?|children|partner|mother|father|mom|mum|"
                               r"dad|brother|sister|parents?)\b|^(?:her|his) (?:school|class|teacher|grade|job|work|"
                               r"company|birthday|age|kindergarten|university|college)\b|^我(?:的|家)?(?:老婆|老公|妻子|丈夫|爱人|儿子|女儿|孩子|爸爸?|"
                               r"妈妈?|父亲|母亲|哥哥?|姐姐?|弟弟?|妹妹?)", re.IGNORECASE)


def _span(sentence: str, clauses: list[str]) -> str:
    """The user's own words from the first of `clauses` to the last, as they stand in the sentence (a quote must be
    the user's words; joining clauses with a comma would not be)."""
    start = sentence.find(clauses[0])
    end = sentence.find(clauses[-1], max(start, 0))
    if start < 0 or end < 0:
        return ""
    return sentence[start:end + len(clauses[-1])].strip()


def _content_terms(clause: str) -> list[str]:
    """What a clause says beyond who says it and that it changed: "Actually." and "我说过" have nothing left."""
    from memory.services.embeddings import search_terms

    bare = CHANGE.sub(" ", FIRST_PERSON.sub(" ", clause))
    bare = re.sub(r"\b(?:not|no|now|just|also|still|really|so|then|too)\b|不是|不|了|吧|啊|呢", " ", bare, flags=re.I)
    return search_terms(bare)


def generic_kind(clause: str) -> str:
    if _BUSINESS_SUBJECT.search(clause):
        return "business_status"
    if _DATED.search(clause):
        return "plan"
    return "profile"


REASON = re.compile(r"^(?:因为|由于|毕竟|because|since|as )", re.IGNORECASE)

KIND_MARKERS = (
    ("conclusion", re.compile(r"决定|定了|就选|最后选|最终选|拍板|\bdecided\b|\bsettled on\b|\bwe'll go with\b|"
                              r"\bgoing with\b", re.IGNORECASE)),
    ("plan", re.compile(r"打算|计划|准备|下一步|下个月|明年|将来|想要?[加开做搬换学买]|\bplan(?:ning)? to\b|"
                        r"\bgoing to\b|\bi will\b|\bi'll\b|\bnext (?:month|year|week)\b|\bintend to\b", re.IGNORECASE)),
    ("constraint", re.compile(r"必须|不能|只能|不可以|最多|至少|不超过|过敏|\bmust\b|\bcan't\b|\bcannot\b|\bonly\b|"
                              r"\bat most\b|\bat least\b|\bno more than\b|\ballergic\b", re.IGNORECASE)),
    ("preference", re.compile(r"喜欢|爱[吃喝看玩]|偏好|偏爱|习惯|平时|一般|通常|总是|经常|每天|不喜欢|讨厌|受不了|不吃|不喝|"
                              r"\blike\b|\blove\b|\bprefer\b|\busually\b|\balways\b|\boften\b|\bhate\b|"
                              r"\bdon't like\b|\bdislike\b|\bnever\b|\benjoy\b|\bfavou?rite\b", re.IGNORECASE)),
    ("profile", re.compile(r"^(?:我|本人)(?:是|叫|今年|住|在.{1,8}(?:工作|上班|读书))|^我的.{1,8}(?:是|为)|\bmy \w+(?: \w+)? is\b|"
                           r"\b(?:i am|i'm|i work|i live|my name)\b", re.IGNORECASE)),
)

NUMERIC_SLOTS = {"budget", "shop_size", "revenue", "staff", "age", "rent", "orders"}
_CLAUSE_SPLIT = re.compile(r"(?<=[，、；;：])|(?<=[,:])(?!\d)|(?<=[。！!？?\n])")
# "I'm vegetarian and my budget is ...": a conjunction followed by a new subject starts a new statement. "and" inside
# one statement ("cats and dogs", "I sleep and eat well") has no subject after it and stays.
_SUBJECT_JOIN = re.compile(r"\s*,?\s+\b(?:and|but|plus|also|while|whereas)\s+(?=(?:also\s+)?(?:I|I'm|I've|I'd|I'll|my|we|"
                           r"we're|we've|our|she|she's|he|he's|they|they're|her|his|their)\b)"
                           r"|(?<=[\u4e00-\u9fff])(?:而且|并且|另外|同时|还有|但是?|不过)(?=我|我们|咱|俺)")
# Words that tell the listener "I said this before", not facts: stripped so a restatement reads as its fact.
DISCOURSE = re.compile(r"^\s*(?:(?:like|as) i (?:said|mentioned|told you)(?: before| earlier)?|as mentioned|"
                       r"i told you(?: before)?|just to remind you|(?:just a )?reminder|remember|again|by the way|"
                       r"you know|to repeat|once more|for the record|"
                       r"我(?:之前|前面|刚才|早就|上次)?(?:说过|说了|讲过|提过)的?|(?:之前|前面|上次|早就)(?:说过|说了|讲过|提过)|"
                       r"(?:再)?提醒(?:你)?一下|顺便说一下|顺便一提|记住|记得|再说一遍|重复一下|还是老样子|对了|对啦|哦对|话说)"
                       r"(?:\s*[,，:：.。!！]\s*|\s+|$|(?=[\u4e00-\u9fff]))", re.IGNORECASE)
_DISCOURSE_TAIL = re.compile(r"\s*[,，]?\s*(?:(?:like|as) i (?:said|mentioned|told you)(?: before| earlier)?|"
                             r"as i've said|remember|again|"
                             r"(?:我)?(?:之前|前面|上次)?(?:说过|讲过|提过)(?:的|了)?)\s*[.!。！]?\s*$", re.IGNORECASE)
_SENTENCE_SPLIT = re.compile(r"(?<=[。！!？?；;\n])|(?<=\.)\s+")
_PERIOD = (("day", re.compile(r"每天|每日|日流水|日营业|一天|天流水|\bdaily\b|\ba day\b|\bper day\b", re.I)),
           ("week", re.compile(r"每周|每星期|一周|一星期|一个星期|\bweekly\b|\ba week\b|\bper week\b", re.I)),
           ("month", re.compile(r"每月|每个月|月流水|月营业|一个月|月入|\bmonthly\b|\ba month\b|\bper month\b", re.I)),
           ("year", re.compile(r"每年|一年|年营业|年收入|\byearly\b|\bannual|\ba year\b|\bper year\b", re.I)))
_PLACE_ZH = re.compile(r"(?:住在|在|搬到|来自|老家是?)([\u4e00-\u9fff]{2,8}?)(?:开了|开|住|工作|上班|读书|生活|做|经营|有)")
_PLACE_ZH_END = re.compile(r"(?:住在|(?<=[我俺])(?:现在|目前|一直|还)?住(?![得的过了着惯在])|搬到了?|搬去了?|来自|老家(?:是|在)?|"
                           r"我家在)([\u4e00-\u9fff]{2,8}?)(?:的|了|啦)?[。！!.]?$")
_PLACE_EN = re.compile(r"\b(?:in|live in|living in|based in|moved to)\s+((?:[A-Z][a-zA-Z]+)(?:[ ,]+[A-Z][a-zA-Z]+){0,2})")
_PLACE_EN_FRONT = re.compile(r"^((?:[A-Z][a-zA-Z]+)(?:[ ,]+[A-Z][a-zA-Z]+){0,2}) is (?:where|the city where) (?:I|we) "
                             r"(?:live|am based|work)\b|\b(?:I'm|I am|we're|we are) from\s+((?:[A-Z][a-zA-Z]+)(?:[ ,]+[A-Z][a-zA-Z]+){0,2})")


_NOT_A_PLACE = re.compile(r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july|"
                          r"august|september|october|november|december|spring|summer|autumn|fall|winter|q[1-4]|"
                          # "reply in French" is a language, not a place
                          r"english|french|spanish|german|chinese|mandarin|cantonese|japanese|korean|italian|"
                          r"portuguese|russian|arabic|hindi|dutch|bullet points?)\b",
                          re.IGNORECASE)


def place_in(text: str) -> str | None:
    """The place a clause says the user lives or works in, if any."""
    for rx in (_PLACE_ZH, _PLACE_ZH_END, _PLACE_EN, _PLACE_EN_FRONT):
        m = rx.search(text or "")
        if m:
            place = next(g for g in m.groups() if g).strip(" ,")
            if not _NOT_A_PLACE.match(place):
                return place
    return None
_BUSINESS_ZH = re.compile(r"(?:开了|开|经营|有|做)(?:一)?[家个间](.{0,14}?(?:店|馆|厅|铺|公司|工作室|超市|摊|坊|吧))")
_BUSINESS_EN = re.compile(r"\b(?:run|own|opened|have|started|manage)\s+(?:a|an|my)\s+((?:[\w'-]+\s+){0,3}?(?:shop|restaurant|"
                          r"store|cafe|café|bakery|business|company|studio|bar|salon|gym|stall|diner))\b", re.I)


@dataclass
class Candidate:
    """One fact the extractor proposes. `quote` is the user's own words it rests on."""

    kind: str
    key: str
    content: str
    value: dict | None
    confidence: float
    source: str = "user_stated"
    quote: str = ""
    hedged: bool = False
    change: bool = False
    whim: bool = False
    unclear: bool = False
    extra: dict = field(default_factory=dict)


def is_chinese(text: str) -> bool:
    return bool(CJK.search(text or ""))


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_SPLIT.split(text or "") if s and s.strip()]


def split_clauses(sentence: str) -> list[str]:
    """Clauses of one sentence: at punctuation, and at a conjunction that starts a new subject; the "as I said"
    around a restatement is left out."""
    out = []
    for part in _CLAUSE_SPLIT.split(sentence):
        for clause in _SUBJECT_JOIN.split(part or ""):
            clause = strip_discourse(clause or "")
            if clause:
                out.append(clause)
    return out


def strip_discourse(clause: str) -> str:
    """"Like I said, I work as ..." -> "I work as ...": reminders are not facts."""
    clause = clause.strip(" ，,、；;：:")
    while True:
        stripped = DISCOURSE.sub("", clause, count=1).strip(" ，,、；;：:")
        stripped = _DISCOURSE_TAIL.sub("", stripped).strip(" ，,、；;：:")
        if stripped == clause:
            return clause
        clause = stripped


_ASK_TAIL = re.compile(r"(?:你|您)(?:觉得|看|说|认为|怎么看).*$|(?:do you think|what do you think).*$", re.I)


def is_question(clause: str) -> bool:
    return bool(QUESTION.search(clause.strip()))


def strip_ask_tail(clause: str) -> str:
    """"我下一步想加外卖你觉得呢" -> "我下一步想加外卖": the statement before a tag question still counts."""
    return _ASK_TAIL.sub("", clause).strip(" ，,")


_CN_NUMERAL_RUN = re.compile(r"(?:\d+(?:\.\d+)?)?[零〇一二三四五六七八九十百千万亿两]+")
_SIZE = re.compile(r"\d\s*(?:平(?![时常均安])|㎡|m2\b|sq\s?m\b|square\s+(?:meter|metre|feet|foot))", re.I)


def to_digits(text: str) -> str:
    """Chinese numerals to Arabic ("四千" -> "4000", "十五万" -> "150000"), leaving the rest of the text."""
    import warnings

    import cn2an

    def convert(m):
        run = m.group()
        # "一共", "两只", "一家" are words, not amounts: only runs with a place value (十/百/千/万/亿) are numbers
        if len(run) < 2 or not re.search(r"[十百千万亿]", run):
            return run
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return str(cn2an.cn2an(run, "smart")).removesuffix(".0")
        except Exception:  # noqa: BLE001 - cn2an rejects some runs ("十点"): read them as they are
            return run

    return _CN_NUMERAL_RUN.sub(convert, text)


def period_of(text: str) -> str | None:
    return next((name for name, rx in _PERIOD if rx.search(text)), None)


def kind_of(text: str) -> str | None:
    return next((kind for kind, rx in KIND_MARKERS if rx.search(text)), None)


def _num_str(n: float) -> str:
    return f"{int(n)}" if float(n).is_integer() else f"{n:g}"


_NOT_VERBS = {"in", "on", "at", "to", "for", "with", "and", "or", "of", "a", "an", "the", "from", "by", "about", "as",
              "that", "this", "so", "but", "if", "when", "whenever", "anytime", "again", "too", "here", "there"}


def third_person(text: str, chinese: bool) -> str:
    """The user's words as a note about the user: "我平时坐地铁" -> "用户平时坐地铁"."""
    text = text.strip(" ，,。.!！")
    if chinese:
        out = re.sub(r"我们|咱们", "用户", text)
        out = re.sub(r"我|俺|本人", "用户", out)
        if "用户" not in out:
            out = "用户" + out
        return out + "。"
    out = re.sub(r"\bI'm\b|\bI am\b", "the user is", text, flags=re.I)
    out = re.sub(r"\bI've\b", "the user has", out, flags=re.I)
    out = re.sub(r"\bI don't\b|\bI do not\b", "the user does not", out, flags=re.I)
    out = re.sub(r"\bI\b", "the user", out)
    out = re.sub(r"\bmy\b|\bour\b", "the user's", out, flags=re.I)
    out = re.sub(r"\bwe're\b", "the user is", out, flags=re.I)
    out = re.sub(r"\bwe've\b", "the user has", out, flags=re.I)
    out = re.sub(r"\bwe\b", "the user", out, flags=re.I)
    out = re.sub(r"\bme\b", "the user", out, flags=re.I)

    def agree(m):
        verb = m.group(3)
        if verb in _NOT_VERBS:
            return m.group(0)
        if verb in {"is", "has", "does", "was", "can", "will", "would", "should", "must", "might"} or verb.endswith("ed"):
            return m.group(0)
        if verb == "have":
            verb = "has"
        elif re.search(r"(?:s|sh|ch|x|o)$", verb):
            verb += "es"
        elif re.search(r"[^aeiou]y$", verb):
            verb = verb[:-1] + "ies"
        else:
            verb += "s"
        return f"{m.group(1)}{m.group(2) or ''}{verb}"

    out = re.sub(r"(the user )((?:usually |always |often |never |now |also |still |mostly |really |kind of |sort of )?)([a-z]+)", agree, out)
    if not out.lower().startswith("the user"):
        out = "The user: " + out
    return out[0].upper() + out[1:] + "."


def render(slot: str, kind: str, value: dict | None, quote: str, chinese: bool) -> str:
    """One sentence for the note, in the user's language: templated for structured slots, else the user's words
    in the third person."""
    v = value or {}
    approx_zh = "约 " if v.get("approx") else ""
    approx_en = "about " if v.get("approx") else ""
    amount = v.get("amount")
    currency = v.get("currency", "")
    if slot == "budget" and amount is not None:
        return (f"用户的预算{approx_zh or '为 '}{money_text(amount, currency, True)}。" if chinese
                else f"The user's budget is {approx_en}{money_text(amount, currency, False)}.")
    if slot == "shop_size" and amount is not None:
        feet = v.get("unit") == "sq ft"
        return (f"用户的店面面积{approx_zh or ' '}{_num_str(amount)} {'平方英尺' if feet else '平米'}。" if chinese
                else f"The user's shop is {approx_en}{_num_str(amount)} {'square feet' if feet else 'square meters'}.")
    if slot == "revenue" and amount is not None:
        per_zh = {"day": "每天", "month": "每月", "year": "每年"}.get(v.get("period"), "")
        per_en = {"day": " per day", "month": " per month", "year": " per year"}.get(v.get("period"), "")
        return (f"用户的店{per_zh}流水{approx_zh}{money_text(amount, currency, True)}。" if chinese
                else f"The user's revenue is {approx_en}{money_text(amount, currency, False)}{per_en}.")
    if slot == "staff" and amount is not None:
        return (f"用户的店有{approx_zh or ' '}{_num_str(amount)} 名员工。" if chinese
                else f"The user has {approx_en}{_num_str(amount)} employees.")
    if slot == "age" and amount is not None:
        return f"用户{approx_zh or ' '}{_num_str(amount)} 岁。" if chinese else f"The user is {approx_en}{_num_str(amount)} years old."
    if slot == "location" and v.get("place"):
        return f"用户在{v['place']}。" if chinese else f"The user is in {v['place']}."
    if slot == "business" and v.get("type"):
        place = f"在{v['place']}" if v.get("place") else ""
        return f"用户{place}经营一家{v['type']}。" if chinese else f"The user runs a {v['type']}."
    return third_person(quote, chinese)


def _slot_value(topic: Topic, text: str, change_at: int, *, keyword: bool | None = None) -> dict | None:
    if topic.slot in NUMERIC_SLOTS:
        if keyword is None:
            keyword = has_slot_word(topic, text)
        # the new value follows a change marker ("预算从 10 万改成 15 万"): read from there when it has one
        tail = text[change_at + 1:] if change_at >= 0 else ""
        found = (slot_amount(topic.slot, tail, keyword=True) if tail and keyword else None) \
            or slot_amount(topic.slot, _near(text, topic), keyword=keyword) \
            or slot_amount(topic.slot, text, keyword=keyword)
        if found is None:
            return None
        value = {"amount": found.amount}
        if found.currency:
            value["currency"] = found.currency
        if topic.slot == "shop_size" and re.search(r"feet|foot|ft\b|平方英尺", text, re.I):
            value["unit"] = "sq ft"
        if topic.slot in {"revenue", "rent", "orders"}:
            period = period_of(text)
            if period:
                value["period"] = period
        return value
    if topic.options:
        found = find_option(topic, text, after=change_at)
        if found:
            option, negated = found
            return {"option": option, "negated": True} if negated else {"option": option}
    return None


def has_slot_word(topic: Topic, text: str) -> bool:
    """The slot's own word is in the text ("预算", "budget", "员工", "staff"), not only a number near it."""
    from memory.services.topics import _has

    low = (text or "").lower()
    return any(_has(low, term) >= 0 for term in topic.terms)


def _near(text: str, topic: Topic) -> str:
    """The part of `text` from the topic's term on (the amount usually follows it: "预算 40 万", "60 平米" is the
    exception: the number precedes the unit, so the whole clause is kept)."""
    if topic.slot in {"shop_size", "age", "staff"}:
        return text
    low = text.lower()
    positions = [low.find(t) for t in topic.terms if low.find(t) >= 0]
    if not positions:
        return text
    tail = text[min(positions):]
    return tail if re.search(r"\d|[一二三四五六七八九十两百千万]", tail) else text


# A bare answer to the assistant's question ("20万", "about 5k dollars", "四千"): nothing but the amount.
_BARE_AMOUNT = re.compile(r"^\W*(?:about|around|roughly|maybe|大概|大约|差不多|约)?\s*[$€£¥￥]?\s*[\d,.]+\s*"
                          r"(?:万|千|百万|亿|k|w|thousand|million|grand)?\s*(?:元|块|rmb|yuan|euros?|dollars?|pounds?|"
                          r"欧元|美元|英镑|人|个人|名员工|个员工|people|employees|staff|平米|平|㎡|sqm|m2)?"
                          r"\s*(?:左右|吧|上下|or so|ish)?\W*$", re.IGNORECASE)
# A head count said without the word staff ("Team of 4 people", "团队一共 4 个人", "with three employees").
_FAMILY_CONTEXT = re.compile(r"家|家庭|家里|孩子|family|household|kids|children|siblings|brothers|sisters", re.I)


_PRICE = re.compile(r"\bcosts?\b|\bpriced at\b|\bsells? for\b|\bgoes for\b|一杯|一份|一个要|售价|卖到?\s*\d|"
                    r"要\s*\d+(?:\.\d+)?\s*[块元]", re.IGNORECASE)


# A share limit on one part of the spending ("装修不超过两成", "keep marketing under 10% of the budget"): a constraint
# keyed by what it limits, so that a later "装修预算改成不超过三成" supersedes it.
_LIMIT_ZH = re.compile(r"^(?P<what>[\u4e00-\u9fff]{1,6}?)(?:的)?(?:预算|费用|开支|成本|支出|投入)?(?:要|得|必须|只能)?"
                       r"(?:改成|改为|换成|调到|调成)?(?:不超过|不超|不能超过|不要超过|最多|至多|控制在)(?P<limit>.{1,12}?)"
                       r"(?:以内|以下|之内)?[。！!]?$")
_LIMIT_EN = re.compile(r"^(?:keep |the |our |my )?(?P<what>[a-z][a-z ]{1,30}?) (?:budget |costs? |spend(?:ing)? )?"
                       r"(?:must |should |has to |needs to |can )?(?:now |still |only )?(?:stay |be |go )?"
                       r"(?:under|below|at most|no more than|"
                       r"capped at|within) (?P<limit>.{1,30}?)[.!]?$", re.IGNORECASE)
_CN_DIGIT = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2, "十": 10}


def ratio_of(text: str) -> float | None:
    """"两成" -> 0.2, "20%" -> 0.2, "三分之一" -> 1/3, "a quarter" -> 0.25; None when the text gives no share."""
    text = text or ""
    m = re.search(r"(\d+(?:\.\d+)?)\s*(?:%|％|percent\b)", text, re.I)
    if m:
        return float(m.group(1)) / 100
    m = re.search(r"百分之([\d零一二两三四五六七八九十]+)", text)
    if m:
        n = to_digits(m.group(1))
        n = _CN_DIGIT.get(n, n)
        return float(n) / 100 if str(n).isdigit() else None
    m = re.search(r"([\d一二两三四五六七八九])\s*成", text)
    if m:
        return float(_CN_DIGIT.get(m.group(1), m.group(1))) / 10
    m = re.search(r"([\d一二两三四五六七八九])分之([\d一二三四五六七八九])", text)
    if m:
        return float(_CN_DIGIT.get(m.group(2), m.group(2))) / float(_CN_DIGIT.get(m.group(1), m.group(1)))
    m = re.search(r"\ba (half|third|quarter|fifth|tenth)\b", text, re.I)
    if m:
        return {"half": 0.5, "third": 1 / 3, "quarter": 0.25, "fifth": 0.2, "tenth": 0.1}[m.group(1).lower()]
    return None


def share_limit(clause: str) -> tuple[str, float] | None:
    """(what is limited, its share) for a clause that caps one part of the spending by a share."""
    m = _LIMIT_ZH.match(clause.strip()) or _LIMIT_EN.match(clause.strip())
    if not m:
        return None
    what = re.sub(r"\b(?:the|of|my|our)\b", " ", m.group("what")).strip()
    share = ratio_of(m.group("limit"))
    if not what or share is None or FIRST_PERSON.search(what) or not 0 < share <= 1:
        return None
    return what.lower(), round(share, 4)


def _head_count(clause: str) -> bool:
    return any(q.unit == "people" and not q.code for q in quantities(clause)) and not _FAMILY_CONTEXT.search(clause)


# --- what is not a fact about the user: requests to the assistant, claims of authority, injected markup -----------
# "我们来做一个项目计划", "let's plan the launch", "I need you to draft a list": the user asks for work, and says
# nothing about themselves.
REQUEST = re.compile(
    r"^(?:那|好|好的|那么|ok|okay)?[，, ]*(?:我们|咱们|咱|让我们)?(?:来|一起)(?:做|写|列|弄|搞|想|规划|定|聊|算|排|整理|讨论)|"
    r"(?:我想|我要|我需要|我希望|想)?(?:你|您)(?:来|帮|给|替|能|可以|先|再)|^(?:我)?(?:需要|想要?|要)(?:一个|一份|个|份)|"
    r"(?:做|写|列|出|制定|定|规划|起草|整理|生成|来)(?:一个|一份|个|份|一下)?(?:新的|另一个|另一份)?.{0,8}?(?:计划|方案|清单|"
    r"大纲|报告|总结|表格|文案|提纲|规划|日程|攻略)(?:吧|吗|呢)?[。!！]?$|"
    r"^(?:let's|let us|shall we)\b|\b(?:i want|i need|i'd like|i would like) you to\b|"
    r"^(?:i (?:want|need|would like|'d like)|give me|make me|write me|draft|create|prepare|build|show me|list) "
    r"(?:a|an|the|another|a new|my|some)?\s*(?:\w+\s){0,3}(?:plan|list|outline|summary|draft|report|table|"
    r"itinerary|schedule|proposal|checklist|budget plan)s?\b", re.IGNORECASE)
# Text shaped like a system prompt, a chat-template token or a settings change is never a fact: it would steer later turns.
MARKUP = re.compile(
    r"</?\s*(?:system|user|assistant|developer|tool|im_start|im_end|inst|sys|prompt|instructions?|admin|root|"
    r"sudo|override)\b[^>]{0,40}>|"
    r"<\|[^|>]{1,30}\|>|\[/?\s*(?:system|inst|sys|admin|developer)\s*\]|【\s*(?:系统|管理员|开发者)[^】]{0,10}】|"
    r"^\s*(?:#+\s*|```\s*)?(?:system|系统|sys)\s*[:：\n]|```\s*(?:system|sys)\b|"
    r"\b(?:system prompt|developer mode|jailbreak|dan mode)\b|系统提示|系统指令|系统消息|开发者模式|越狱模式|"
    r"\bignore (?:all |any |every )?(?:of )?(?:the |your )?(?:previous|prior|above|earlier|preceding|former)\s+"
    r"(?:instructions|rules|prompts?|messages|directions)|\bdisregard (?:all |the |your )?(?:previous |prior |above )?"
    r"(?:instructions|rules)|忽略(?:掉)?(?:你)?(?:之前|以上|前面|上面|先前|所有)?(?:的)?(?:所有)?(?:指令|规则|设定|提示|要求|限制)|"
    r"\b(?:pii_policy|recall_top_k|inferred_policy|review_confidence_threshold|ttl_days_by_kind|"
    r"budget_memories_tokens|recall_all_below|chat_model|embedding_model|system_prompt|policy_overrides)\b|"
    r"[\"']role[\"']\s*:\s*[\"'](?:system|assistant|developer)[\"']", re.IGNORECASE)
# A claim of role or authority over the platform ("我是管理员", "I'm the admin", "I have root access").
CLAIM = re.compile(
    r"(?:我是|我就是|本人是|我作为|作为|我现在是|我乃)(?:这个|本|你们的?|你的|该)?(?:平台|系统|网站|应用|app|服务|机器人|助手)?的?"
    r"(?:超级|最高|系统)?(?:管理员|管理者|开发者|开发人员|站长|版主|运营人员|所有者|root|admin|主人|创造者|创建者)|"
    r"(?:最高|管理员|root|超级|系统|开发者)权限|授权你|我有权|你必须听我的|以(?:管理员|开发者|系统)身份|管理员模式|"
    r"\bi(?:'m| am)\s+(?:now\s+)?(?:the|an?|your|this (?:platform|system|site|app)'s)\s+(?:super\s?)?"
    r"(?:admin(?:istrator)?|moderator|developer|owner|operator|creator|root user|superuser)\b"
    r"(?=\s*(?:$|[.,!;:]|here\b|now\b|so\b|and\b|of (?:this|the|your) (?:platform|system|site|app|assistant|"
    r"service|bot)\b))|"
    r"\bi have (?:root|admin(?:istrator)?|full|elevated|superuser|special) (?:access|rights|privileges|permissions)\b|"
    r"\bas (?:your|the|an?|this (?:platform|system)'s) (?:admin(?:istrator)?|developer|operator|owner|moderator|creator)\b|"
    r"\bi authori[sz]e you\b|\b(?:openai|anthropic|google) (?:employee|staff|engineer|researcher)\b|"
    r"\byou must obey me\b", re.IGNORECASE)


def injection_kind(text: str) -> str | None:
    """"markup" for text shaped like a system prompt, a template token or a settings change; "claim" for a claim of
    role or authority; None otherwise. Neither is a fact about the user."""
    if MARKUP.search(text or ""):
        return "markup"
    if CLAIM.search(text or ""):
        return "claim"
    return None


def is_request(clause: str) -> bool:
    return bool(REQUEST.search((clause or "").strip()))


def read_message(text: str, previous_reply: str = "") -> list[Candidate]:
    """Candidate facts in one user message (offline rules). Whims are returned marked, so that what is dropped
    can be counted; questions and requests yield nothing."""
    chinese = is_chinese(text)
    out: list[Candidate] = []
    if injection_kind(text) == "markup":
        return out  # text shaped like a system prompt says nothing about the user, in any clause
    for sentence in split_sentences(text):
        clauses = [c for c in split_clauses(sentence)]
        if not clauses:
            continue
        whim = bool(WHIM.search(sentence))
        change_m = CHANGE.search(sentence)
        reason = " ，".join(c for c in clauses if REASON.search(c))
        by_slot: dict[str, list[str]] = {}
        generic: list[tuple[str, str]] = []
        corrections_only: set[str] = set()
        # a standing instruction ("always answer me in bullet points", "以后回答我简短点", "never suggest pork") is a
        # durable preference about the user, though it is phrased as a request
        standing = [c for c in clauses if STANDING.search(c) and not _OTHER_PEOPLE.search(c)
                    and not c.rstrip().endswith(("?", "？"))]
        statement_clauses = [c for c in (strip_ask_tail(c) for c in clauses)
                             if c and not is_question(c) and not is_request(c)]
        from_reply: set[str] = set()
        limits: list[tuple[str, float, str]] = []
        statement_clauses += [c for c in standing if c not in statement_clauses]
        # "…, I think." / "…，不太确定。": a clause that is only a hedge hedges what the sentence says
        hedge_only = [c for c in statement_clauses if HEDGE.search(c) and len(_content_terms(HEDGE.sub(" ", c))) == 0]
        sentence_hedged = bool(hedge_only)
        statement_clauses = [c for c in statement_clauses if c not in hedge_only]
        for clause in statement_clauses:
            limit = share_limit(clause) if not whim else None
            if limit:
                limits.append((*limit, clause))
                continue
            if REASON.search(clause) and not FIRST_PERSON.search(clause):
                topics = [t for t in topics_in(clause) if t.kind == "constraint"]
            else:
                topics = topics_in(clause)
                if _RELATIVE_SUBJECT.search(clause):  # "my wife works as a nurse": her job, not the user's
                    topics = [t for t in topics if t.slot == "family"] or [TOPIC_BY_SLOT["family"]]
            if place_in(clause):
                topics.append(TOPIC_BY_SLOT["location"])
            if _SIZE.search(clause) and TOPIC_BY_SLOT["shop_size"] not in topics:
                topics.append(TOPIC_BY_SLOT["shop_size"])
            if _BUSINESS_ZH.search(clause) or _BUSINESS_EN.search(clause):
                topics.append(TOPIC_BY_SLOT["business"])
            if _head_count(clause) and TOPIC_BY_SLOT["staff"] not in topics:
                topics.append(TOPIC_BY_SLOT["staff"])  # "Team of 4 people", "店里一共三个人"
            if not topics and previous_reply and _BARE_AMOUNT.match(clause):
                # a bare amount answers the assistant's question about a slot ("预算多少？" "20万"), when its unit
                # fits that slot: "4 people" never answers a question about the budget
                asked = [t for t in topics_in(previous_reply) if t.slot in NUMERIC_SLOTS][:1]
                if asked and slot_amount(asked[0].slot, clause, keyword=True) is not None:
                    topics = asked
                    from_reply.add(asked[0].slot)
            if topics:
                for t in topics:
                    by_slot.setdefault(t.slot, [])
                    if clause not in by_slot[t.slot]:
                        by_slot[t.slot].append(clause)
            else:
                kind = kind_of(clause)
                if whim:
                    generic.append((kind or "plan", clause))
                elif _DANGLING.search(clause) or REASON.search(clause) or _OTHER_PEOPLE.search(clause) \
                        or len(_content_terms(clause)) < (1 if chinese else 2):
                    continue
                elif clause in standing:
                    generic.append((kind if kind in {"preference", "constraint"} else "preference", clause))
                elif not change_m and _DATED.search(clause) and not _IDENTIFIER_TALK.search(clause):
                    generic.append(("plan", clause))  # "The wedding is on June 14th", "周二去见银行的人"
                elif (kind and FIRST_PERSON.search(clause)) or (
                        not _IDENTIFIER_TALK.search(clause) and (_SUBJECT_ZH if chinese else _SUBJECT_EN).search(clause)):
                    # "现在更喜欢绿色，不是蓝色了": a correction needs no subject to be about the user
                    generic.append((kind or generic_kind(clause), clause))
                elif change_m and not _IDENTIFIER_TALK.search(clause):
                    # "The bank meeting moved to Thursday": no subject, so it may only change a fact the user
                    # already gave (memory.services.writing), never stand alone
                    corrections_only.add(clause)
                    generic.append((kind or generic_kind(clause), clause))
        if whim and len(generic) > 1:  # one passing idea, said in several clauses
            generic = [(generic[0][0], ("，" if chinese else ", ").join(c for _, c in generic))]
        for slot, slot_clauses in by_slot.items():
            topic = TOPIC_BY_SLOT[slot]
            joined = ("，" if chinese else ", ").join(
                REASON.sub("", c) if REASON.search(c) and len(slot_clauses) == 1 else c for c in slot_clauses)
            quote = _span(sentence, slot_clauses) or joined
            cm = CHANGE.search(joined)
            value = _slot_value(topic, joined, cm.end() - 1 if cm else -1,  # the new value follows the marker
                                keyword=True if slot in from_reply else None)
            kind = topic.kind
            marker = kind_of(joined)
            if marker in {"plan", "conclusion"} and slot not in NUMERIC_SLOTS:
                kind = marker
            if slot == "location":
                place = place_in(joined)
                if not place:  # "我住在12楼": where, but no place name: the user's words as a plain fact
                    if FIRST_PERSON.search(joined) and not whim:
                        generic.extend((kind_of(c) or "profile", c) for c in slot_clauses
                                       if (kind_of(c) or "profile", c) not in generic)
                    continue
                value = {"place": place}
            elif slot == "business":
                m = _BUSINESS_ZH.search(joined) or _BUSINESS_EN.search(joined)
                if m:
                    btype = m.group(1)
                    btype = btype.split("的")[-1] if chinese else re.sub(r"^(?:\d+[\w-]*\s+)?(?:(?:square|sq)\s+)?(?:meters?|metres?|feet|foot|sqm|m2)?\s*", "", btype)
                    value = {"type": btype.strip()}
                elif len(by_slot) > 1 and kind not in {"plan", "conclusion"}:
                    continue  # "my shop is 60 m²": the shop is only the subject of another slot's fact
                if kind == "business_status" and not m:
                    kind = marker or "business_status"
            elif slot in NUMERIC_SLOTS and value is None:
                continue
            elif topic.options and value is None and not FIRST_PERSON.search(joined):
                continue
            elif topic.options and not change_m and not any(FIRST_PERSON.search(c) for c in clauses) \
                    and (_PRICE.search(joined) or any(q.unit == "money" for q in quantities(joined))):
                continue  # "A latte costs 4.50 downstairs", "拿铁一杯 32 块": the price of a thing, not a taste
            hedged = bool(HEDGE.search(joined)) or sentence_hedged
            if value is not None and hedged and "amount" in value:
                value["approx"] = True
            if slot in {"location", "business"} and not FIRST_PERSON.search(joined) and not change_m:
                if not any(FIRST_PERSON.search(c) for c in clauses):
                    continue
            content_quote = joined + (("，" if chinese else ", ") + reason
                                      if reason and not any(REASON.search(c) for c in slot_clauses) else "")
            if slot == "business" and value and "business" in by_slot and "location" in by_slot:
                loc = _PLACE_ZH.search(sentence) or _PLACE_EN.search(sentence)
                if loc and chinese:
                    value = dict(value, place=loc.group(1))
            content = render(slot, kind, value, content_quote if slot not in NUMERIC_SLOTS else joined, chinese)
            confidence = 0.9 if change_m else 0.85
            if hedged:
                confidence = 0.6
            out.append(Candidate(kind=kind, key=slot if kind == topic.kind else f"{kind}:{slot}", content=content,
                                 value=value, confidence=confidence, quote=quote, hedged=hedged,
                                 change=bool(change_m), whim=whim))
        for what, share, clause in limits:
            hedged = bool(HEDGE.search(clause)) or sentence_hedged
            out.append(Candidate(kind="constraint", key=f"limit:{what}"[:100], content=third_person(clause, chinese),
                                 value={"share": share}, confidence=0.6 if hedged else 0.85, quote=clause,
                                 hedged=hedged, change=bool(change_m), whim=whim))
        for kind, clause in generic:
            hedged = bool(HEDGE.search(clause)) or sentence_hedged
            out.append(Candidate(kind=kind, key="", content=third_person(clause, chinese), value=None,
                                 confidence=0.6 if hedged else 0.75, quote=clause, hedged=hedged,
                                 change=bool(change_m), whim=whim,
                                 extra={"needs_match": clause in corrections_only, "said_with": sentence}
                                 if change_m else {}))
    return out
