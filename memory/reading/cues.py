"""Words that can carry an intent: features for memory.reading.intents, never a reader on their own.

A cue says "this sentence could be a forget request" ("forget", "删掉", "别记"); whether it is one ("I forgot my
keys", "don't forget my birthday is Friday") the encoder decides against the labelled bank. Each list is broad on
purpose: a cue that misses a phrasing hides it from the encoder, one that fires too often costs nothing.
"""

from __future__ import annotations

import re

FORGET = re.compile(
    r"\bforget(?:ting)?\b|\bunlearn\b|\bun-?remember\b|\bpretend (?:i|you) never (?:told|said|mentioned|heard)\b|\bstop (?:remembering|storing|keeping|saving|tracking)\b|"
    r"\bdrop(?!(?:ped|ping|s)?\s+(?:off|by|in|out|round|down|to|back)\b)(?!\s+(?:[\w']+\s+){1,3}(?:off|at|by)\b)|"
    r"\b(?:delete|erase|remove|wipe|clear|purge|scrub|scrap|discard|get rid of|throw away|take out|toss|"
    r"bin|ditch|lose(?!\s+(?:it|(?:my|your|his|her|our|their) (?:mind|temper|cool|head|patience|job|way|voice|keys)|weight|track|"
    r"interest|touch|sleep|hope|money|control|count|faith|sight)\b)|(?:^|can|could|just|please)\s+lose it|nuke|zap|strike|unsave|del|axe|trash|junk|cross (?:out|off)|throw out|can go|let go of)\b|"
    r"\b(?:wasn'?t|weren'?t|not) (?:in there|on file|on record|in your notes)\b|"
    r"\b(?:doesn'?t|does not|don'?t|do not|no need to|needn'?t) (?:need to )?be (?:in there|on (?:file|record)|"
    r"(?:saved|stored|kept|remembered|noted))\b|\bnever want\b.{0,40}\b(?:coming up|brought up|mentioned|again)\b|"
    r"\b(?:don'?t|do not|never|not|didn'?t|no need (?:for you )?to|needn'?t|don'?t need to|doesn'?t need to) "
    r"(?:remember|keep|store|save|hold on to|hang on to|record|retain|track|log|note)\b|\bno longer (?:remember|keep|store)\b|"
    r"\b(?:on record|on file|in (?:your|the) (?:memory|notes|records?)|kept|stored|saved|remembered|on your records?)\b|"
    r"忘|删|清除|清掉|清空|抹掉|抹去|抹了|给我抹|去掉|移除|擦掉|丢掉|作废|撤销|别记|不要记|不用记|不必记|不需要(?:你)?记|甭记|别再记|"
    r"不要再记|不要留|别留|别存|不要存|不用存|(?:没必要|不必|用不着)(?:再)?(?:记着?|记住|存着|留着)|别保存|不要保存|不要记录|别记录|不用记录|扔掉|撤回|当没听过|当没听见|"
    r"不(?:太|是很|怎么)?想让?你(?:再|一直|老是|总是)?(?:知道|记|存|留)|划掉|拿掉|销毁|清一下|清理掉|处理掉|"
    r"(?:不想|别|不要)(?:再)?在你(?:这儿?|那儿?|这里|那里)(?:看到|出现)|"
    r"\bundo\b|\bscratch that\b|(?<!from )\bscratch (?=the|my|all|every|any)\b(?![^,;]*[,;]\s*(?:my|i|i'm|it'?s)\b[^,;]*\bnow\b)|清干净|清理干净|"
    r"\btake\b(?=.{1,40}\bout of (?:your|the) (?:memory|memories|notes?|records?|files?)\b)|out of (?:your|the) "
    r"(?:memory|memories|notes?|records?|files?)\b|\b(?:stick|hang)(?:ing)? around\b|\btake (?:it|that|this|them|my [\w' ]{1,30}) (?:off|out)\b|"
    r"\btake (?=(?:everything|anything|the (?:bits?|parts?|notes?|stuff|info)|what you)\b[\w' ]{0,40}? out\b)",
    re.IGNORECASE,
)
# "I'd rather you didn't keep …", "I don't want my … on record", "you don't need to remember …": a wish about what
# the assistant keeps, said as a statement
FORGET_WISH = re.compile(
    r"\b(?:i'?d (?:rather|prefer)|i would (?:rather|prefer)|i (?:don'?t|do not) want|i'?m not comfortable with|"
    r"i (?:don'?t|do not) like|please don'?t|you (?:don'?t|do not) need to|no need (?:for you )?to|there'?s no need (?:for you )?to|"
    r"would you mind|could you|can you|you can|you should|you may)\b.{0,60}\b(?:forget(?:ting)?|remember(?:ing)?|"
    r"keep(?:ing)?|kept|(?:hang|hold)(?:ing)? on to|stor(?:e|ing|ed)|sav(?:e|ing|ed)|record(?:ed|ing)?|on record|on file|"
    r"delete|remove|erase)\b|"
    r"(?:不需要|不用|不必|没必要|甭|别|不要|不(?:太|是很|怎么)?想让?你)(?:你)?(?:再|一直|老是|总是)?"
    r"(?:记|存|留|保存|记录|记住|记得|知道)",
    re.IGNORECASE,
)
# a wish that something not be kept, said as a statement ("I don't want you remembering …", "I'd prefer you not hold
# on to …", "I'm not comfortable with you storing that"): a cue, where FORGET_WISH also holds "can you keep …"
FORGET_UNWANTED = re.compile(
    r"\b(?:i (?:don'?t|do not) want|i'?d (?:rather|prefer)|i would (?:rather|prefer)|i'?m not (?:comfortable|happy|ok(?:ay)?) "
    r"with)\b.{0,25}\b(?:not |didn'?t |to not )?(?:remember(?:ing|ed)?|keep(?:ing)?|kept|hold(?:ing)? on to|"
    r"stor(?:e|ing|ed)|sav(?:e|ing|ed)|record(?:ing|ed)?|track(?:ing)?)\b",
    re.IGNORECASE,
)
# a request that names what is already known: "X那个别记了", "这些都别记了", "民族那条删一下", "先别记"
FORGET_KNOWN = re.compile(
    r"(?:那个|这个|那条|这条|那些|这些|这块|那块|这一块|相关的?|有关的?|的事(?:情|儿)?|这件事|那件事|这事儿?|那事儿?|的那些|的内容)"
    r"[，,\s]*(?:就|都|也|你|先|其实|全|全部|直接|那边|这边|那儿|这儿)*[，,\s]*(?:别|不用|不要|不需要|不必|甭|删|忘|清|去掉|抹)|"
    r"(?:别|不用|不要|不需要)(?:再)?记(?:着|住|录)?了|(?:删|忘)(?:了|掉|一下|除)吧?(?:[。！!~～]*$|(?=\s+[\u4e00-\u9fff]))|"
    r"\bthat (?:note|memory|entry)\b",
    re.IGNORECASE,
)
# what a forget request points at: the assistant's memory of something
MEMORY_OBJECT = re.compile(
    r"\b(?:what you (?:know|saved|stored|remember|noted|wrote down|have|kept|learned)|you (?:know|saved|stored|have)|"
    r"(?:the |that |this |those |these |my )?(?:notes?|memor(?:y|ies)|records?|info(?:rmation)?|details?|data|"
    r"stuff|things?|entry|entries|fact|bit|part)|about|that i)\b|"
    r"记忆|记录|记住的|记下的|记着的|存的|保存的|信息|资料|那条|这条|那件事|这件事|的事|相关|关于",
    re.IGNORECASE,
)
OFF_RECORD = re.compile(
    r"\boff the record\b|\bbetween (?:you and me|us)\b|\b(?:don'?t|do not|no need to|never) "
    r"(?:save|store|record|remember|note|keep|write down|log)\b.{0,20}?\b(?:this|that|it)\b|"
    r"\b(?:not|nothing) (?:for|to be) (?:the )?(?:record|saved|remembered|stored)\b|\bjust venting\b|"
    r"\bkeep (?:this|that|it) (?:to yourself|private|between us)\b|\bconfidential(?:ly)?\b|\bfor your ears only\b|"
    r"\bjust so you know,? (?:don'?t|do not)\b|\b(?:don'?t|do not|never|please don'?t) (?:put|add|include|write|note|"
    r"jot) (?:this|that|it)(?: down)?\b|\bkeep (?:this|that|it) (?:out of|off) (?:my |your |the )?(?:notes?|memory|memories|records?|files?)\b|\bnot for (?:saving|the notes|"
    r"memory|your notes|the memory)\b|\b(?:you )?shouldn'?t (?:remember|save|keep|store|note)\b|\bthinking out loud\b|"
    r"\b(?:don'?t|do not) (?:save|store|remember|keep|record) the next (?:thing|part|bit)\b|\bforget i said\b|"
    r"别记|不要记|不用记|不必记|别记下|不要记下|不用记下|别存|不要存|不用存|别保存|不要保存|不用保存|别录|"
    r"随口一说|随便说说|私下说|私下讲|悄悄(?:说|告诉)|别外传|你知道就好|你知道就行|咱俩之间|我们之间说|只是吐槽|"
    r"吐槽一下|不用当真|别当真|就当我没说|当我没说|不作数|不算数|你知我知|之间的话|别记这个|这句不用记|先别记|"
    r"别往(?:记忆|笔记)里|不要写进|别写进|不用写进|别记录|不要记录",
    re.IGNORECASE,
)
# markers that can only mean "keep this between us": no encoder is asked
OFF_RECORD_CERTAIN = re.compile(
    r"\boff the record\b|\bbetween (?:you and me|you and i|the two of us|us|ourselves|yourself and myself)\b|"
    r"\bfor your ears only\b|\bconfidentially\b|\bkeep (?:this|that|it) (?:to yourself|between us)\b|"
    r"\b(?:don'?t|do not) (?:be )?(?:writing|noting|saving|recording) (?:this|that|it)\b|"
    r"你知我知|咱俩之间|我们之间(?:说|的话)|之间的话|私下(?:说|讲)|别外传|天知地知|咱俩知道就行|就你知道|别跟别人说",
    re.IGNORECASE,
)
# "don't write this down": a request about what is being said now, not about what is already kept (an erase verb,
# "forget", "删", is about what is kept)
NOT_RECORDING = re.compile(
    r"\b(?:don'?t|do not|no need to|never|please don'?t|shouldn'?t|not) (?:save|store|record|note|keep|write|put|"
    r"log|jot|add|include)\b|\bnot (?:for|to be) (?:saving|saved|stored|recorded|the record|the notes)\b|"
    r"\bkeep (?:this|that|it) (?:out of|off) (?:my |your |the )?(?:notes?|memory|memories|records?|files?)\b|"
    r"别记|不要记|不用记|不必记|甭记|别存|不要存|不用存|别保存|不要保存|不用保存|别记录|不要记录|不用记录|别录|别写进|不要写进",
    re.IGNORECASE,
)
ERASING = re.compile(
    r"\b(?:forget|unlearn|delete|erase|remove|wipe|clear|purge|scrub|get rid of|nuke|strike|unsave|ditch|scrap|trash)\b|"
    r"忘|删|清除|清掉|抹掉|去掉|移除|划掉|拿掉",
    re.IGNORECASE,
)
HYPOTHETICAL = re.compile(
    r"\bif i (?:were|was|had|could|won|lived|moved|became|got|ever)\b|\bwhat if\b|\bimagine\b|\bsuppose\b|^\W*say (?:i|we)\b|"
    r"\bhypothetically\b|\bin theory\b|\bpretend\b|\bwould i\b|\bi wish\b|\bin a parallel\b|"
    r"假如|假设|如果我|要是我|万一|想象一下|设想|幻想|要是有一天|如果有一天|假使|倘若|我要是|但愿|真希望",
    re.IGNORECASE,
)
# an attempt to change the assistant's rules, reach other users' data or the platform's settings
ATTACK = re.compile(
    r"\bnever refuse\b|\bdon'?t refuse\b|\bno (?:restrictions|limits|rules|filters?)\b|\bwithout (?:any )?"
    r"(?:restrictions|limits|rules|filters?)\b|\bignore (?:your|all|the|any|previous|prior)\b|\bdisregard\b|"
    r"\byou are now\b|\byou'?re now\b|\bact as (?:an? )?(?:unfiltered|uncensored|jailbroken)\b|\bjailbreak|\bDAN\b|"
    r"\bdeveloper mode\b|\bgod mode\b|\bsystem prompt\b|\byour (?:instructions|rules|guidelines|prompt)\b|"
    r"\b(?:other|all|every|another) (?:users?|customers?|people)'?s?\b.{0,30}\b(?:notes?|data|memor|messages?|"
    r"history|info)|\b(?:disable|turn off|switch off|bypass|override|remove) (?:the |your |my )?(?:privacy|"
    r"filter|safety|moderation|guard|limit|retention|rules)|\b(?:disable|turn off|switch off|bypass|remove) (?:the |your )?"
    r"(?:\w+ ){1,2}(?:limits?|retention|filters?|rules)\b|\bwhat (?:has|did|have) [A-Z]\w+(?: [A-Z]\w+)? "
    r"(?:told|tell|said|say|shared|share) you\b|(?:保存|保留|留存)(?:期限|时长|期|时间).{0,8}(?:永久|改成|设为|设成|关掉|取消)|"
    r"我是(?:平台|系统|你们)的?(?:管理员|工程师|开发)|\b(?:retention|ttl|settings?|policy|config)\b.{0,30}"
    r"\b(?:forever|to \d+|off|disable|change|set)\b|\bset (?:my |the )?(?:memory|retention|ttl|policy)\b|"
    r"\badmin (?:access|rights|mode)\b|\bunrestricted\b|\buncensored\b|\banything i (?:say|ask)\b|"
    r"不许拒绝|不准拒绝|不要拒绝|永远不(?:要)?拒绝|没有(?:任何)?限制|不受(?:任何)?限制|解除(?:所有)?限制|无视|忽略(?:你|之前|以上|所有)|"
    r"越狱|开发者模式|上帝模式|系统提示|系统设定|你的(?:规则|设定|指令)|(?:其他|别的|所有|全部)(?:用户|人|客户)的?(?:笔记|记忆|数据|信息|资料|记录|聊天)|"
    r"关闭(?:隐私|过滤|安全|审核|限制)|(?:保留|留存)(?:期|时间).{0,8}(?:永久|改成|设为|设成)|"
    r"(?:隐私|过滤|安全)(?:保护|过滤器?|设置|模式)?.{0,6}(?:关掉|关闭|禁用|取消)|你现在是|从现在(?:开始|起)你(?:是|没有|可以)|"
    r"什么都(?:答应|照做|听我的)|必须(?:服从|听)我",
    re.IGNORECASE,
)
# what can only be an attack: the rest of ATTACK is weighed by the encoder against style and questions
ATTACK_CERTAIN = re.compile(
    r"\bignore (?:all |any )?(?:your |the )?(?:previous|prior|earlier|above) (?:instructions|rules|prompts?)\b|"
    r"\b(?:jailbreak|jailbroken|uncensored|unfiltered|developer mode|god mode)\b|\byou are now DAN\b|"
    r"\b(?:no|without) (?:any )?(?:safety|content) (?:guidelines|rules|filters?|restrictions|limits)\b|"
    r"\b(?:other|all|every|another) (?:users?|customers?|people)'?s?'? (?:notes?|data|memor(?:y|ies)|messages?|history|"
    r"chats?|records?)\b|\b(?:store|keep|remember) (?:everything|all)\b.{0,40}\bpasswords?\b|"
    r"\bnever delete anything\b|\b(?:switch|turn) off (?:your |the )?(?:content |safety )?(?:rules|filters?)\b|"
    r"无视(?:所有|一切)?(?:规则|限制|设定)|忽略(?:之前|以上|前面)?(?:所有|全部)?的?(?:设定|指令|规则)|越狱|开发者模式|"
    r"没有(?:任何)?(?:审查|限制)的?(?:AI|助手|机器人)|(?:其他|别的|所有)用户的(?:记忆|笔记|数据|聊天记录|记录)|"
    r"用户\s*(?:ID|id|编号)\s*\d+\s*的(?:聊天记录|记录|记忆|笔记|数据)|把这个设定记(?:到|进)|"
    r"\b(?:new|updated|override) system (?:instructions?|prompt|message|rules?)\b|\bsystem (?:override|instruction)s?:|"
    r"(?:新的?|最新)系统(?:指令|提示|设定)|系统指令[:：]|"
    r"\bwhat (?:has|did) \w+(?: \w+)? (?:told|tell|shared|share|said|say) (?:to )?you about (?:him|her|them)sel(?:f|ves)\b|"
    r"\b(?:he|she)'?s (?:another|a different) user\b",
    re.IGNORECASE,
)
# a standing instruction ("always", "from now on", "以后"): a style, when it is about the answers
STYLE_HABIT = re.compile(
    r"\b(?:always|from now on|in future|going forward|every time|each time|whenever)\b|以后|今后|从现在起|每次|总是|一直",
    re.IGNORECASE,
)
# a style preference the user may keep: how to be addressed, the language, the form of answers
STYLE = re.compile(
    r"\bcall me\b|\brefer to me as\b|\bkeep (?:your |the )?(?:answers|replies|responses|it) (?:short|brief|simple)\b|"
    r"\b(?:keep|make) (?:your |the )?(?:answers|replies|responses) \w+|\b(?:british|american|uk|us) spelling\b|"
    r"\bno (?:fluff|waffle|jargon|pep talks?|small talk)\b|说话别|说话不用|(?:别|不用)那么客气|跟朋友(?:聊天|说话)(?:一样|那样)|"
    r"\b(?:stop|quit) (?:using|adding|putting|sending)\b|\bwhen you (?:talk|write|reply|answer|explain|respond)\b|"
    r"\b(?:shorter|briefer|more concise|more detail(?:ed)?|more examples?|fewer|less jargon)\b|"
    r"\b(?:under|within|in|at most|no more than) \d+ (?:words|sentences|lines|paragraphs|bullet points)\b|"
    r"简短|简洁|简单点|啰嗦|长篇大论|举(?:点|些|个)?例子|讲东西的时候|说话的时候|回复(?:我)?|字以内|说人话|通俗|"
    r"\b(?:use|give me|show me|put|start with|lead with)\b.{0,30}\b(?:first|units|format|tables?|examples?|summary|"
    r"spelling|english|dates?|metric|imperial)\b|"
    r"\b(?:never|don'?t|do not) (?:use|give|show|send)\b.{0,20}\b(?:miles|pounds|emojis?|jargon|slang)\b|\brefer to me as\b|\baddress me as\b|\bmy name is\b|\b(?:answer|reply|respond|talk|write|speak)"
    r"(?: to me)? (?:in|with|using)\b|\b(?:always|from now on|in future|going forward)\b|\bkeep (?:it|answers|"
    r"replies) (?:short|brief|simple)\b|\bbullet points?\b|\bno emojis?\b|\bbe (?:brief|concise|formal|casual)\b|"
    r"叫我|称呼我|喊我|敬语|(?:跟|和|对)我说话|(?:用|说)(?:中文|英文|英语|粤语|方言)|以后(?:都)?(?:用|回答|回复|说)|用(?:中文|英文|英语|简体|繁体)(?:回答|回复|跟我说|和我说|交流)|"
    r"回答(?:我)?(?:简短|简单|详细)|(?:回答|回复)(?:我)?的时候|尽量用|先给|先说|用表格|(?:简短|简洁|详细)(?:一点|些)|别用表情|不要用表情|分点|列点",
    re.IGNORECASE,
)
# the form of a request: the forget verb first (after "please"), or "把 … 忘掉/删了", "… 就别记了" at the end
FORGET_IMPERATIVE = re.compile(
    r"^(?:(?:please|pls|ok(?:ay)?|so|and|also|oh|hey|now|actually|just|kindly|can you|could you|would you|will you|"
    r"you can|you should|i want you to|i'd like you to|i need you to)[\s,]+)*(?:forget|unlearn|stop remembering|"
    r"(?:don'?t|do not|never) (?:remember|keep|store|save|record|hold on to)|delete|erase|remove|wipe|clear|purge|drop|scrub|discard|get rid of|scrap|toss|"
    r"nuke|strike|unsave|del|ditch|bin|axe|trash|junk|cross (?:out|off)|take out|throw out)\b|"
    r"^(?:[①-⑩]|第[一二三四五六七八九十\d]+条?|最后(?:那|一)?条?)?(?:请你?|麻烦你?|帮我|你|那你|还是|算了|好吧|嗯|那就|就)*(?:忘掉|忘记|忘了|删掉|删除|删了|清除|清掉|抹掉|别再?记|"
    r"不要再?记|不用再?记|别存|不要存|去掉)|^(?:请|麻烦|帮我|你)*把.{1,40}(?:忘掉|忘了|忘记|删掉|删了|删除|清掉|抹掉|去掉)|"
    r"(?:^|(?<=\s))(?:请你?|麻烦你?|帮我|你|都|就|全|全部|给我|看着)*(?:忘掉|删掉|删除|删了|清除|清掉|抹掉|去掉|处理掉|清理掉|"
    r"清一下|拿掉|划掉|删脱)(?:吧|了|哈|啊|呗)*(?=[\s。.!！~～]|$)|"
    r"(?:^|[,，]\s*)(?:please\s+|just\s+)?(?:take (?:it|that|them) out|scrub (?:it|that)|bin (?:it|that)|delete (?:it|that)|"
    r"remove (?:it|that)|wipe (?:it|that)|ditch (?:it|that))\b(?:,?\s*(?:please|pls|thanks))?[.!]*$|"
    r"(?:别记了|不要记了|不用记了|删了吧|删掉吧|忘了吧|忘掉吧|别存了|清掉吧|删除吧|就别记|别再记了|不要再记了)"
    r"(?:[。.!！~～]*$|(?=\s+[\u4e00-\u9fff]))",
    re.IGNORECASE,
)
# a forget said as regret or as what should not be there ("I regret mentioning the panic attack. Can that go?",
# "the job hunting shouldn't be in there", "后悔跟你说了", "当我没说过"): the form of a request, indirectly
FORGET_REGRET = re.compile(
    r"\bregret (?:mentioning|telling|saying|sharing|bringing up)\b|\bwish i (?:hadn'?t|had not|never) (?:told|said|"
    r"mentioned|shared)\b|\bshouldn'?t (?:be|have been) (?:in there|on (?:file|record)|saved|stored|kept|remembered)\b|"
    r"\bcan (?:that|it|this) (?:go|be gone)\b|\b(?:let|make) (?:it|that|this) go\b|\bhang(?:ing)? on ?to\b|"
    r"\bholding on ?to\b|\bhold on ?to\b|后悔(?:跟你)?(?:说|告诉|讲)|不该(?:跟你)?(?:说|告诉|讲)|当我没说过?|当我没讲过?|"
    r"别留着|不要留着|别保存着|不要保存着|别惦记|就当没(?:发生|说|讲)过?|回滚一下|\b(?:you|u) never heard (?:it|that|this)\b|"
    r"\bpretend (?:i|you) never (?:said|told|mentioned|heard)\b|别(?:搁|放|往)心里记|(?:,|，)\s*(?:both |all )?gone,? ?(?:please|pls)|"
    r"\b(?:that|it|this|thing) never happened\b",
    re.IGNORECASE,
)
# the user speaking of their own forgetting ("I forgot my keys", "我老是忘记吃早饭"): a statement, not a request
FORGET_SELF = re.compile(
    r"^(?:i|we|my \w+|he|she|they)\b.{0,20}\b(?:forgot|forget|forgets|forgetting|deleted|erased|removed|wiped|cleared)\b|"
    # what the user would do, or money cleared ("I reckon I'd clear 70k", "we'll clear the loft")
    r"\b(?:i|we)(?:'d|'ll| would| will| could| might| can)\s+(?:\w+\s+)?(?:clear|delete|erase|remove|wipe|drop|scrap)\b|"
    r"\bclear(?:ed|s|ing)?\s+(?:about\s+|over\s+)?[£$€¥]?\d|"
    r"^(?:我|我们|他|她)(?:又|老是|总是|经常|常常|一直|有时|差点|刚|刚刚|也)?(?:忘了|忘记|忘带|删了|删掉了|清空了)|"
    r"^我的?(?:(?![事条件那这些个])[\u4e00-\u9fff]){1,6}(?:又|也|都|全)?忘(?:了|光了|记了)(?![吧呗啊哈])",  # "我密码忘了"
    re.IGNORECASE,
)
# the opposite of a forget request: "don't forget …", "别忘了 …", "remember that …"
REMINDER = re.compile(
    r"\b(?:don'?t|do not|never) forget\b|\bremember that\b|别忘|不要忘|可别忘|记得(?!.{0,4}吗)|记住", re.I
)
# things a person deletes that are not the assistant's memory of them
NOT_MEMORY_OBJECT = re.compile(
    r"\b(?:file|folder|paragraph|sentence|line|word|photo|picture|image|app|account|recipe|email|draft|message|"
    r"comment|post|tweet|cache|cookies|table|row|column|onions?|stain|typo|section|page|chapter)s?\b|"
    r"文件|段落?|这句|句子|照片|图片|软件|账号|帐号|菜谱|邮件|草稿|评论|缓存|错别字|表格|污渍|章节|这一页",
    re.IGNORECASE,
)
TOPIC_WIDE = re.compile(
    r"\b(?:everything|all|anything|stuff|things|details|info|information|notes|those|these|them|folks|parents|"
    r"what you (?:have|know|got|'ve got|saved|stored) (?:about|on))\b|"
    r"所有|全部|一切|相关|有关|都|全|这些|那些|这块|那块|方面",
    re.IGNORECASE,
)


def cues_in(text: str) -> set[str]:
    """The intents whose cue words occur in `text`."""
    found = set()
    for name, pattern in (
        ("forget", FORGET),
        ("forget", FORGET_UNWANTED),
        ("forget", FORGET_REGRET),
        ("off_record", OFF_RECORD),
        ("hypothetical", HYPOTHETICAL),
        ("attack", ATTACK),
        ("attack", ATTACK_CERTAIN),
        ("off_record", OFF_RECORD_CERTAIN),
        ("style", STYLE),
    ):
        if pattern.search(text or ""):
            found.add(name)
    return found
