"""The patterns that say what a clause is: hedged, changed, a whim, a question, about the user or someone else,
of which kind (a plan, a constraint, a preference ...). Chinese and English side by side.
"""

from __future__ import annotations

import re

HEDGE = re.compile(
    r"大概|大约|大致|左右|差不多|可能|应该|估计|也许|或许|好像|\d\s*[万千元块]?上下|约\s*\d|约莫|吧[。！!，,]?\s*$|"
    r"\b(?:about|around|roughly|approximately|approx\.?|circa)\s+[$¥€£]?\d|\bmaybe\b|\bprobably\b|"
    r"\bi think\b|\bi guess\b|\bor so\b|\bish\b|~\s*\d|\bmight\b|\bsomething like\b|\bi believe\b|"
    r"\bi'd say\b|\b(?:fairly|pretty|not(?: 100%| entirely| totally)?) sure\b|\bgive or take\b|\bkind of\b|"
    r"\broughly\b|"
    r"\bsort of\b|\b(?:about|around|roughly|approximately) (?:a |an )?(?:one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|hundred|dozen|half)\b|来[个位名家]|"
    r"不太确定|说不准|吧[。！!]?$",
    re.IGNORECASE,
)
CHANGE = re.compile(
    r"改成|换成|改为|换为|改喝|改吃|改用|改坐|换了|改了|不再|已经不|现在改|现在换|其实是|更正|纠正|"
    r"不是.{1,12}了|\bswitched to\b|\bchanged to\b|\bnow (?:i )?(?:prefer|drink|take|use|live|work)\b|"
    r"\banymore\b|\bno longer\b|\binstead\b|\bactually\b|\bcorrection\b|\bnot .{1,20} but\b|"
    r"\bmoved to\b|\bpostponed\b|\btransferred\b|\bnow\s*[.!]?\s*$|\brescheduled\b|\bpushed (?:back )?to\b|\bswitched from .{1,40}? to\b|改到|推迟到|"
    r"提前到|变成|变了",
    re.IGNORECASE,
)
WHIM = re.compile(
    r"最近在研究|最近在看|最近想|最近有点|感觉挺火|好像挺火|挺火的|随便问问|随便看看|突发奇想|一时兴起|"
    r"心血来潮|有点想|想试试|待会|一会儿|等会儿?|\blater(?! this| next| in)\b|\bin a bit\b|\bthinking about maybe\b|\bmaybe (?:try|trying|start)|"
    r"\bmight try\b|\blately\b|\bbeen looking into\b|\bjust curious\b|\bjust wondering\b|\bon a whim\b|"
    r"\bsomeday\b|\btoy(?:ing)? with the idea\b|"
    # a passing state, not a fact about the person: "today", "tonight", "in the mood", "haha"
    r"今天|今晚|今早|晚上想|这周|这几天|突然|好想|好不想|说不定|哪天|还没想好|纯属|好玩|刚看了|刚刚|刚才|"
    r"哈哈|\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening|week)\b|\bright now\b|"
    r"\bat the moment\b|\bin the mood\b|\bfeel(?:ing)? like\b|\bkinda want\b|\bobsessed\b|"
    r"\b(?:lol|haha|ha|hah)\b|\bjust for fun\b|\brandom thought\b|\bi wonder\b|\bbriefly\b|"
    r"\bnot sure\b|\bone day\b|\bat some point\b|\bwho knows\b|\bgive it a go\b|\bcould go for\b|"
    r"我想想|\blet me think\b|\b(?:got|get|getting) (?:distracted|confused|lost|sidetracked|bored)\b|走神|\bjust (?!(?:moved|relocated|got (?:married|engaged|divorced|promoted)|married|retired|graduated|started|"
    r"joined|bought|adopted|had (?:a|our|my) (?:baby|son|daughter))\b)(?:\w+ed|saw|read|heard|got|had|ate)\b",
    re.IGNORECASE,
)
QUESTION = re.compile(
    r"[?？]\s*$|[吗呢么嘛][。！!]?\s*$|^(?:请|麻烦|帮我|能不能|可不可以|能否|你觉得|你说)|帮我|介绍一下|"
    r"说说|讲讲|细说|告诉我|推荐|怎么|如何|为什么|为啥|多少钱|哪些|哪个|有没有|是不是|"
    r"^(?:can|could|would|will|should|do|does|did|is|are|what|how|why|when|where|which|who|tell|"
    r"please|help|recommend|explain|describe|remind|let's|shall)\b",
    re.IGNORECASE,
)
FIRST_PERSON = re.compile(r"我|俺|咱|本人|\bI\b|\bI'm\b|\bmy\b|\bme\b|\bwe\b|\bour\b", re.IGNORECASE)
# A first-person statement with no kind marker ("I drive a 2019 Civic", "我会说粤语") is still a fact about the user;
# these say what kind it is when nothing else does.
_BUSINESS_SUBJECT = re.compile(
    r"^(?:our|my) (?:[\w'-]+ ){0,2}(?:shop|store|restaurant|cafe|café|bakery|business|company|"
    r"team|studio|salon|gym|firm|startup|clinic|kitchen)s?\b|^(?:我们|我的|咱们)?(?:店|店里|"
    r"工作室|公司|团队|餐厅|饭店|门店)",
    re.IGNORECASE,
)
DATED = re.compile(
    r"\b(?:on|by|until|before|to|in|(?:at )?the (?:end|start|beginning|middle) of|early|late|mid-?) "
    r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:jan|feb|mar|apr|may|jun|"
    r"jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2})|\bdeadline\b|\bnext (?:month|year|week)\b|"
    r"\d{1,2}\s*月\s*\d{1,2}\s*[日号]|周[一二三四五六日天]|星期[一二三四五六日天]|定在|到期",
    re.IGNORECASE,
)
STANDING = re.compile(
    r"\b(?:always|from now on|in future|going forward|never|don't ever|do not ever)\b.{0,40}"
    r"\b(?:answer|reply|respond|write|explain|call me|address me|use|suggest|recommend|give me|show me)\b|"
    r"(?:以后|今后|往后|从现在起|永远|每次)(?:都)?.{0,8}(?:回答|回复|答复|称呼|叫我|用|推荐|给我)|"
    r"(?:别再|不要再|永远不要|千万别).{0,6}(?:推荐|给我|提|发)",
    re.IGNORECASE,
)
# An instruction about other people's data or everyone's is no preference of this user's (and a poisoning attempt).
OTHER_PEOPLE = re.compile(
    r"所有用户|所有人|其他用户|其他人|别人|大家|用户\s*\d+|\b(?:all|every|other) (?:users?|customers?|"
    r"people)\b|\beveryone\b|\beverybody\b|\buser\s*#?\d+",
    re.IGNORECASE,
)
# The user as the subject of the clause ("I drive ...", "我会说粤语"), not its object ("text me", "联系我", "给我讲个笑话").
SUBJECT_EN = re.compile(
    r"^(?:(?:now|also|still|actually|so|and|but|really|usually|currently|btw|fyi|oh|well|anyway|plus|ok|okay|"
    r"heads up|psa|quick update|update|just so you know)\W+){0,2}"
    r"(?:I|I'm|I've|I'd|my|"
    r"we|we're|we've|our)\b",
    re.IGNORECASE,
)
SUBJECT_ZH = re.compile(r"^(?:[\u4e00-\u9fff]{0,3}?)(?<![给打联系帮让叫诉找问])(?:我|我们|咱们|俺|本人)")
# Talk about identifiers ("my phone:", "my debit card ends ...") is never a fact to keep, whatever is left of it.
IDENTIFIER_TALK = re.compile(
    r"\b(?:phone|cell|mobile|number|e-?mail|card|passport|ssn|iban|account|id|contact)\b|"
    r"电话|手机|号码|邮箱|卡号|银行卡|身份证|护照|账号|微信",
    re.IGNORECASE,
)
# A clause that only points at something said elsewhere ("I'm renewing it", "I'll check it out", "I'll give that
# a try") is no fact on its own.
DANGLING = re.compile(
    r"\b(?:it|this|that|them)(?:\s+(?:out|up|over|again|too|soon|later|sometime|someday|a\s+(?:try|shot|go|look)))?"
    r"\s*[.!。！]?\s*$|[它这那](?:个)?\s*[。！!]?$",
    re.IGNORECASE,
)
# A clause that speaks to the listener ("I hope you're okay", "I'm always here for you", "I'll keep you posted",
# "祝你好运", "谢谢您") is about this exchange, not a durable fact about the user. "迷你" (mini) is no pronoun.
TO_THE_LISTENER = re.compile(r"\b(?:you|your|yours|yourself|yourselves|ya|y'all)\b|(?<!迷)[你您]", re.IGNORECASE)


RELATIVE_SUBJECT = re.compile(
    r"^(?:my|our) (?:(?:older|younger|big|little|elder|eldest|youngest|twin|step|half)[- ]?)?(?:wife|husband|son|"
    r"daughter|kids?|children|partner|mother(?! tongue)|father|mom|mum|"
    r"dad|brother|sister|parents?)\b|^(?:her|his) (?:school|class|teacher|grade|job|work|"
    r"company|birthday|age|kindergarten|university|college)\b|^我(?:的|家)?(?:大|二|三|小|老|亲)?(?:老婆|老公|妻子|丈夫|爱人|儿子|女儿|孩子|爸爸?|"
    r"妈妈?|父亲|母亲|哥哥?|姐姐?|弟弟?|妹妹?)",
    re.IGNORECASE,
)


REASON = re.compile(r"^(?:因为|由于|毕竟|because|since|as )", re.IGNORECASE)

KIND_MARKERS = (
    (
        "conclusion",
        re.compile(
            r"决定|定了|就选|最后选|最终选|拍板|\bdecided\b|\bsettled on\b|\bwe'll go with\b|"
            r"\bgoing with\b",
            re.IGNORECASE,
        ),
    ),
    (
        "plan",
        re.compile(
            r"打算|计划|准备|下一步|下个月|明年|将来|想要?[加开做搬换学买]|考虑|\bplan(?:ning)? to\b|"
            r"\bgoing to\b|\bgonna\b|\bwanna\b|\bi will\b|\bi'll\b|\bnext (?:month|year|week)\b|\bintend to\b|"
            r"\b(?:thinking|thought) (?:of|about)\b|\bconsidering\b|\bhoping to\b|\bi'?d (?:like|love) to\b.{0,40}\bone day\b",
            re.IGNORECASE,
        ),
    ),
    (
        "constraint",
        re.compile(
            r"必须|不能|只能|不可以|最多|至少|不超过|过敏|\bmust\b|\bcan't\b|\bcannot\b|\bonly\b|"
            r"\bat most\b|\bat least\b|\bno more than\b|\ballergic\b",
            re.IGNORECASE,
        ),
    ),
    (
        "preference",
        re.compile(
            r"喜欢|爱[吃喝看玩]|偏好|偏爱|习惯|平时|一般|通常|总是|经常|每天|不喜欢|讨厌|受不了|不吃|不喝|"
            r"\blike\b|\blove\b|\bprefer\b|\busually\b|\balways\b|\boften\b|\bhate\b|"
            r"\bdon't like\b|\bdislike\b|\bnever\b|\benjoy\b|\bfavou?rite\b",
            re.IGNORECASE,
        ),
    ),
    (
        "profile",
        re.compile(
            r"^(?:我|本人)(?:是|叫|今年|住|在.{1,8}(?:工作|上班|读书))|^我的.{1,8}(?:是|为)|\bmy \w+(?: \w+)? is\b|"
            r"\b(?:i am|i'm|i work|i live|my name)\b",
            re.IGNORECASE,
        ),
    ),
)


# A bare answer to the assistant's question ("20万", "about 5k dollars", "四千"): nothing but the amount.
BARE_AMOUNT = re.compile(
    r"^\W*(?:about|around|roughly|maybe|大概|大约|差不多|约)?\s*[$€£¥￥]?\s*[\d,.]+\s*"
    r"(?:万|千|百万|亿|k|w|thousand|million|grand)?\s*(?:元|块|rmb|yuan|euros?|dollars?|pounds?|"
    r"欧元|美元|英镑|人|个人|名员工|个员工|people|employees|staff|平米|平|㎡|sqm|m2)?"
    r"\s*(?:左右|吧|上下|or so|ish)?\W*$",
    re.IGNORECASE,
)
# A head count said without the word staff ("Team of 4 people", "团队一共 4 个人", "with three employees").
# … nor "一个人住", "on my own": the user alone, not a team of one.
FAMILY_CONTEXT = re.compile(
    r"家|家庭|家里|孩子|一个人(?:住|生活|过|带|在)|family|household|kids|children|siblings|brothers|sisters", re.I
)


PRICE = re.compile(
    r"\bcosts?\b|\bpriced at\b|\bsells? for\b|\bgoes for\b|一杯|一份|一个要|售价|卖到?\s*\d|"
    r"要\s*\d+(?:\.\d+)?\s*[块元]",
    re.IGNORECASE,
)


def kind_of(text: str) -> str | None:
    return next((kind for kind, rx in KIND_MARKERS if rx.search(text)), None)


def generic_kind(clause: str) -> str:
    if _BUSINESS_SUBJECT.search(clause):
        return "business_status"
    if DATED.search(clause):
        return "plan"
    return "profile"


# an idea the user is turning over and asks about ("Thinking about retraining as a nurse. Is that crazy?",
# "打算过两年转行做产品，你觉得靠谱吗"): neither a plan to keep nor a change of what they do now
MULLING = re.compile(
    r"\b(?:thinking (?:about|of)|considering|toying with|wondering (?:about|whether|if)|planning|might)\b|"
    r"打算|考虑|在想|琢磨|想要|想去|想换|想转",
    re.IGNORECASE,
)
ASKS_OPINION = re.compile(
    r"\b(?:is (?:that|it) (?:crazy|a good idea|silly|stupid|dumb|realistic|worth it)|what do you think|thoughts\?|"
    r"should i|good idea\?|do you think)|你觉得|靠谱吗|好不好|行不行|可行吗|怎么样[？?]?$|值得吗|合适吗|你看呢",
    re.IGNORECASE,
)


# a plan said without its subject, as people do of their own plans ("下个月要去云南自驾", "Planning to sell the car")
SUBJECTLESS_PLAN = re.compile(
    r"^(?:下(?:个|周|星期|个星期|礼拜)|明年|明天|后天|年底|月底|周末|这周末|打算|计划|准备|在?考虑)|"
    r"^(?:寒假|暑假|放假|过年|年后|年前|开春|今年|今年内|毕业后|退休后)(?:就|还)?(?:打算|计划|准备|想|要)|"  # "寒假准备去考个潜水证"
    r"^(?:(?:planning|going|about|hoping|hope|want|intend(?:ing)?) to|gonna|wanna)\b|^(?:thinking|thought) (?:of|about)\b|^considering\b|^(?:next|this coming) (?:week|month|year|spring|summer|autumn|winter)\b",
    re.IGNORECASE,
)
# a clause about the user that leaves its subject out, as chat does: "老家贵州遵义的", "现在在东莞打工", "在学法语",
# "originally from Belfast", "living in Edinburgh these days", "never learned to drive"
SUBJECTLESS_SELF = re.compile(
    r"^(?:老家|家乡)|^(?:现在|目前|如今|这阵子|这段时间|最近|平时|一直|每天|每周|周末|晚上|早上){0,2}都?(?:正在|还在|在)"
    r"(?:学|读|念|上学|.{1,10}?(?:打工|上班|工作|实习))|"
    r"^(?:每天|每周|每晚|每个?月|每年)都?要?(?:学|练|跑|游|去|上|定投|存|攒|还|交)|"
    # what the user did before ("之前在远洋货轮上当过三年海员", "used to live on a narrowboat")
    r"^(?:之前|以前|曾经|早年|年轻时候?|年轻的时候|小时候|上学的时候|大学的时候)(?:在.{1,12}?)?"
    r"(?:留过学|上过学|[\u4e00-\u9fff]{1,2}过)|"  # the experiential 过: 当过, 交换过, 工作过
    r"^(?i:used to (?:live|work|be|run|own|have|play|teach|study))\b|"
    # what the user earns, pays or weighs, said bare after a clause about them ("我在新加坡上班，月薪6500新币")
    r"^(?:每个?月|每年)?的?(?:税前|税后)?(?:月薪|年薪|工资|薪水|底薪|时薪|年终奖|房租|月供|房贷|体重|身高|生活费|开销|花销|零花钱)"
    r"(?:现在|目前|已经|如今)?(?:是|有|大概|差不多|才|就)?\s*\d|"
    # what the user does for a living now, said bare ("现在开网约车", "目前在做销售")
    r"^(?:现在|目前|如今|这两年|这几年)(?:在|改|转|自己)?(?:开|做|当|干|跑|教|卖|送)(?!了|心|始|什么|啥|嘛|不|得|完|着|过|饭)[\u4e00-\u9fff]{2,}|"
    r"^(?:(?i:originally) )?[Ff]rom [A-Z]|^(?i:born|raised|brought up) (?:in|and)\b|"
    r"^(?i:living|based|working|studying) (?:in|at|as|for)\b|^(?i:never) (?:learned|learnt)\b|"
    r"^(?i:(?:just |finally |recently )?(?:bought|adopted|got married|got engaged|graduated|moved)) (?:a |an |my |to |from )?[\w-]|"
    # what the user took up, said bare in chat ("started aerial silks this month", "been doing keto since May")
    r"^(?i:(?:just |finally |recently |also )?(?:started|began|took up|picked up|joined|switched to|signed up for|"
    r"enrolled in|been (?:doing|learning|going|working|playing|taking|training|living|studying))) "
    r"(?!(?:raining|snowing|pouring|hailing|getting|to (?:rain|snow|pour|get))\b)\w|"  # "started raining": the weather
    # what the user did for a while, said bare ("Smoked for 15 years, quit in 2019", "lived in Oslo as a kid")
    r"^(?i:smoked|worked|lived|studied|played|taught|trained|served|grew up|quit|gave up|stopped) "
    r"(?:(?i:for )(?:\d+|(?i:a|two|three|four|five|ten|many|several)) |(?i:in )\d{4}\b|(?i:in |at )[A-Z]|(?i:as an? ))",
)
# a decision said to be not yet made ("可能跳也可能不跳", "still undecided", "depends how the job hunt goes"): no plan
UNDECIDED = re.compile(
    r"可能.{0,6}也可能|还没(?:想好|决定|定)|没想好|没决定|还在犹豫|\b(?:undecided|haven'?t (?:yet )?decided|"
    r"not (?:yet )?decided|not sure yet|nothing(?:'s| is) (?:settled|decided|final)|depends (?:on|how|what|whether|if))\b",
    re.IGNORECASE,
)
# … or put off ("等搬完家再说"), which leaves a plan the user states kept, but not one said without its subject
PUT_OFF = re.compile(rf"再说|再看|再聊|再议|看情况|不一定|\bwe'?ll see\b|\bsee how it goes\b|{UNDECIDED.pattern}", re.I)
# how the user feels this minute, said as an exaggeration or an exclamation: no fact ("撑死我了", "笑死", "累坏了",
# "gonna miss him", "we'll see")
EXCLAIMED = re.compile(
    r"(?:撑|累|饿|困|热|冷|冻|气|笑|烦|忙|急|吓|疼|痛|馋|渴|晒|闷|愁|乐|美|爽|困|丑|难受)(?:死|坏|惨|疯)(?:我|人|俺)?了|"
    r"^(?:笑死|绝了|服了|醉了|麻了|活久见|破防了)|"
    r"^(?:i'?m |i am |we'?re |we are )?(?:gonna|going to|will) (?:really |so |totally )?miss\b|"
    r"^(?:i|we)(?:'ll| will) (?:really |so |totally )?miss\b|"  # a feeling of the minute, whatever is missed
    r"^(?:we|i)(?:'ll| will) see\b",
    re.IGNORECASE,
)
# a space between Chinese runs, which may stand for a comma not typed ("户口还在老家兰州 人在宁波住了六年了")
SPACED = re.compile(r"(?<=[\u4e00-\u9fff])[ \t\u3000]+(?=[\u4e00-\u9fff])")
# a sentence that opens on someone's nickname ("小周下个月结婚 新郎是她大学同学") is their news, clause by clause too
NICKNAMED = re.compile(r"^\s*[小老阿](?!时|候|家|公|婆|板|师|姨|乡|是|在|实|早)[\u4e00-\u9fff]")
