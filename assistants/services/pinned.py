"""Pinned session facts: core constraints kept as structured data, outside the lossy summary (seed 000,
"核心约束单独存").

`pinned_facts_extract(text)` is a set of offline rules, in Chinese and English, that read one user message and
return the constraints it states: budget, city, district/area, size, business category, deadline, allergy,
headcount, limits on one part of the spending ("装修不超两成", "keep rent under $3k"), and the user's explicit
rules for the assistant ("以后都用中文回答", "call me Sam"). A later statement of the same key replaces the
earlier one ("把面积砍到60平米" replaces 100 平米); "not X anymore" / "不…了" removes a value.

Stored on ChatSession.pinned_facts as key -> {"value", "message_id", "updated_at"}.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from django.utils.translation import pgettext, pgettext_lazy

from core.i18n import user_language
from core.text import has_chinese
from memory.reading import message_read
from memory.services.identifiers.pii import pii_redact_value
from tenancy.models import ChatSession

# A pinned fact's label as the user and the model read it (translated in locale/zh_Hans).
LABELS = {
    "budget": pgettext_lazy("pinned fact", "Budget"),
    "city": pgettext_lazy("pinned fact", "City"),
    "district": pgettext_lazy("pinned fact", "Area"),
    "size": pgettext_lazy("pinned fact", "Size"),
    "category": pgettext_lazy("pinned fact", "Business"),
    "deadline": pgettext_lazy("pinned fact", "Deadline"),
    "allergy": pgettext_lazy("pinned fact", "Allergy"),
    "headcount": pgettext_lazy("pinned fact", "Headcount"),
    "rules": pgettext_lazy("pinned fact", "Rules for the assistant"),
}
LIMIT_PREFIX = "limit:"
MAX_RULES = 6

_CN_NUM = "零一二两三四五六七八九十百千"
_NUM = rf"(?:\d+(?:[.,]\d+)*|[{_CN_NUM}]+)"
_ZH_MONEY = rf"{_NUM}\s*(?:百万|千万|万|千|亿|w|W)(?:\s*(?:元|块钱?|人民币|rmb|RMB))?|{_NUM}\s*(?:元|块钱?)"
_EN_MONEY = (
    r"(?:\$|€|£|¥|USD\s?|US\$|RMB\s?|CNY\s?)\s?\d[\d,]*(?:\.\d+)?\s*(?:k|K|m|M|million|thousand|grand)?\b"
    r"|\b\d[\d,]*(?:\.\d+)?\s*(?:k|K|thousand|million|grand)?\s*(?:dollars|usd|USD|euros?|pounds|yuan|rmb|RMB)\b"
    r"|\b\d+(?:\.\d+)?\s*(?:k|K|grand|thousand|million)\b"
)
MONEY_RE = re.compile(rf"{_ZH_MONEY}|{_EN_MONEY}")
_BUDGET_WORDS = re.compile(
    r"预算|经费|资金|本钱|总投入|投资额|能投|budget|afford|funds|capital|can spend|to spend|"
    r"总共有|一共有|手头有",
    re.I,
)
SIZE_RE = re.compile(
    rf"{_NUM}\s*(?:平方米|平方|平米|个平|平(?![安台均时])|㎡|m²|m2\b|sqm\b|square\s+(?:meters?|metres?|feet|foot)|"
    r"sq\.?\s*(?:ft|m)\b)",
    re.I,
)
_ZH_CATEGORY = re.compile(
    r"(?:开|做|经营|搞|干)(?:一?家|一?个|一间|间|个)?((?![店过了着的这那哪什啥])[\u4e00-\u9fff]{1,5}?"
    r"(?:店|馆|铺|厅|吧|坊|屋|档|摊|超市|工作室|公司|诊所|餐厅|酒楼))"
)
_ZH_CATEGORY2 = re.compile(r"品类(?:是|定|选|就|为|改成|换成|定成)*[了为成]?\s*([\u4e00-\u9fff]{1,8})")
_EN_CATEGORY = re.compile(
    r"\b(?:open|opening|start|starting|run|running|own|launch|launching)\s+(?:up\s+)?(?:a|an|my|our|the)\s+"
    r"((?:[a-z\-]+\s){0,2}(?:shop|store|restaurant|cafe|café|coffee\s+shop|bar|bakery|salon|studio|business|diner|"
    r"bistro|stall|boutique|gym|clinic|agency|pub|food\s+truck|franchise|startup|company))\b",
    re.I,
)
_ZH_CITIES = (
    "北京 上海 广州 深圳 杭州 南京 苏州 成都 重庆 武汉 西安 天津 长沙 郑州 青岛 厦门 福州 济南 合肥 昆明 "
    "东莞 佛山 宁波 无锡 沈阳 大连 哈尔滨 长春 石家庄 太原 南昌 南宁 贵阳 兰州 海口 三亚 珠海 中山 惠州 "
    "温州 绍兴 嘉兴 常州 徐州 烟台 洛阳 香港 澳门 台北"
).split()
_ZH_CITY = re.compile(rf"({'|'.join(_ZH_CITIES)})|(?:在|去|到|搬到|定在|位于|选在)([\u4e00-\u9fff]{{2,3}})市")
_ZH_DISTRICT = re.compile(
    r"(?:在|看中|选在|位于|搬到|定在|去|到|中|换到|改到|放在)([\u4e00-\u9fff]{2,4}?(?:新区|区|县|镇|商圈|街道))"
)
_EN_PLACE = re.compile(
    r"\b(?:in|to|at|near|based\s+in|located\s+in)\s+((?:[A-Z][a-zA-Z'\-]+)(?:\s[A-Z][a-zA-Z'\-]+){0,2})"
)
_EN_PLACE_CONTEXT = re.compile(
    r"\b(?:open|opening|live|living|based|located|move|moving|shop|store|restaurant|"
    r"cafe|business|rent|lease|space|site|city|town|place|stay|staying|trip|travel|travelling|traveling|visit|"
    r"visiting|fly|flying|going)\b",
    re.I,
)
_EN_NOT_PLACES = {
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "English",
    "Chinese",
    "The",
    "My",
    "Our",
    "I",
}
_EN_DISTRICT = re.compile(r"\b((?:[A-Z][a-zA-Z'\-]+\s){1,2})(?:district|neighbou?rhood|area|borough)\b")
_ZH_DEADLINE = re.compile(
    r"((?:\d{4}年)?\d{1,2}月(?:\d{1,2}[日号])?|下个?月(?:底|初|中)?|下周[一二三四五六日天]?|年底|年前|月底|春节|国庆|"
    r"(?:\d+|[一二两三四五六七八九十]+)\s*(?:天|周|个月|个星期)(?:之?内))\s*(?:之?前)?\s*(?:要|得|必须|就|能)?"
    r"(?:开业|开张|完成|交付|上线|搞定|弄好|装好|装修完|营业|到位|截止)"
)
_ZH_DEADLINE2 = re.compile(r"(?:截止|期限|最晚)(?:日期|时间)?(?:是|在|为|:|：)?\s*([^\s，。,.;；]{2,12})")
_EN_DEADLINE = re.compile(
    r"\b(?:deadline\s+(?:is\s+)?(?:on\s+|by\s+)?|due\s+(?:by\s+|on\s+)?|by\s+|before\s+|no\s+later\s+than\s+)"
    r"((?:the\s+)?(?:end\s+of\s+(?:the\s+)?\w+|next\s+\w+|this\s+\w+|(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?|"
    r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?|christmas|new\s+year))",
    re.I,
)
_ZH_ALLERGY = re.compile(r"对([\u4e00-\u9fffA-Za-z]{1,8}?)过敏")
_ZH_ALLERGY2 = re.compile(r"([\u4e00-\u9fff]{1,6}?)过敏")
_EN_ALLERGY = re.compile(
    r"\ballergic\s+to\s+([a-z][a-z \-]{1,30}?)(?=[.,;!?]|$|\s+and\s+(?:i|we)\b)|"
    r"\b([a-z]{3,20})\s+allergy\b",
    re.I,
)
_ZH_HEADCOUNT = re.compile(
    r"((?:\d+|[一二两三四五六七八九十]+)\s*(?:个|名|位)?\s*(?:员工|伙计|厨师|服务员|店员|人手|口人|"
    r"个人|人(?!民|均|工|气|流)))"
)
_ZH_HEADCOUNT_CTX = re.compile(r"我们|一共|总共|团队|员工|家里|招|雇|请|人手|聚餐|参加|来|带|店里|需要")
_EN_HEADCOUNT = re.compile(
    r"\b(\d+\s+(?:people|persons|employees|staff|guests|workers|of\s+us|adults|kids|"
    r"children|team\s+members|cooks|waiters))\b",
    re.I,
)
_ZH_RULE = re.compile(
    r"^(?:那|另外|还有|对了)?[，,]?\s*(?:请|麻烦)?你?(?:以后|之后|今后|从现在起|从现在开始|每次|接下来)?"
    r"(?:都|请|一律|务必|一定)?(?:用|使用|别|不要|不用|叫我|称呼我|记得|回答|回复|说话|只用|尽量)"
)
_ZH_RULE_CTX = re.compile(r"你|以后|之后|今后|回答|回复|叫我|称呼|说话|每次|从现在")
_EN_RULE = re.compile(
    r"^(?:and\s+|also\s+)?(?:please\s+)?(?:from\s+now\s+on,?\s+|in\s+future,?\s+)?"
    r"(?:always|never|don't|do\s+not|call\s+me|answer|reply|respond|keep\s+(?:your|the)\s+"
    r"(?:answers?|replies|responses)|use|stop|no\s+more|only)\b",
    re.I,
)
_EN_RULE_CTX = re.compile(r"\b(?:you|your|me|answer|reply|respond|replies|answers|call)\b", re.I)
_ZH_LIMIT = re.compile(r"(不能超过?|不要超过?|不超过?|别超过?|不得超过?|最多不超过?|控制在|压到|压在|不高于|别超)")
_EN_LIMIT = re.compile(
    r"\b(?:keep|cap|limit)\s+(?:the\s+|my\s+|our\s+)?([a-z]+(?:\s[a-z]+)?)\s+(?:under|below|within|at|to)\s+"
    r"([^\s,.;]+(?:\s(?:percent|%|of\s+the\s+budget))?)|"
    r"\b([a-z]+(?:\s[a-z]+)?)\s+(?:should|must|can|will)(?:n't|\s+not)?\s+(?:exceed|go\s+over|be\s+more\s+than|"
    r"cost\s+more\s+than)\s+([^\s,.;]+(?:\s(?:percent|%|of\s+the\s+budget))?)",
    re.I,
)
_ZH_LIMIT_VALUE = re.compile(
    rf"(?:总预算|预算|总额|总共)?的?\s*((?:{_NUM}\s*(?:成|%|％)|百分之{_NUM}|{_NUM}分之{_NUM})|"
    rf"{_ZH_MONEY}|{_NUM}\s*(?:平米|平|人|天))"
)
_SUBJECT_STRIP = re.compile(r"(?:的)?(?:费用|成本|开支|花费|预算|支出|的钱|钱)$")
_REMOVE = re.compile(
    r"不再|不(?:开|做|要|去|在|考虑)了?[\u4e00-\u9fff]{0,8}了|取消|算了|\bno\s+longer\b|\bnot\b.*\banymore\b|"
    r"\bdrop(?:ped)?\b|\bforget\s+(?:about\s+)?the\b",
    re.I,
)
_CLAUSE_SPLIT = re.compile(r"[。！？!?；;\n]+|，|,\s+|\.\s+|(?<=[\u4e00-\u9fff]),")


def _clean(value: str) -> str:
    return re.sub(r"\s+", " ", value).strip(" ,，。.;；:：")


def _clauses(text: str) -> list[str]:
    return [c.strip() for c in _CLAUSE_SPLIT.split(text) if c and c.strip()]


def _limit_subject(prefix: str) -> str:
    prefix = re.sub(r"(?:别|不|要|能|得|可以|最好|必须|都|就|也|还|但|而)+$", "", prefix)
    prefix = _SUBJECT_STRIP.sub("", prefix)
    match = re.search(r"[\u4e00-\u9fff]{2}$", prefix)
    return match.group() if match else ""


def _read_budget(clause: str, found: dict) -> None:
    """A sum of money stated as the budget; a sum under a limit ("装修不超10万") is a limit, not the budget."""
    money = MONEY_RE.search(clause)
    if money and _BUDGET_WORDS.search(clause) and not _ZH_LIMIT.search(clause):
        found["budget"] = _clean(money.group())


def _read_size(clause: str, found: dict) -> None:
    size = SIZE_RE.search(clause)
    if size:
        found["size"] = _clean(size.group())


def _read_category(clause: str, found: dict) -> None:
    """The kind of business; a question about one ("开什么店") names none."""
    for rx in (_ZH_CATEGORY, _ZH_CATEGORY2, _EN_CATEGORY):
        m = rx.search(clause)
        if m and not re.search(r"预算|多少|怎么|什么|吗|哪", m.group(1)):
            found["category"] = _clean(m.group(1))
            break


def _read_place(clause: str, found: dict) -> None:
    """City and district. An English capitalised name counts as a city only in a clause about a place, and
    never when it is a month, a weekday or a language."""
    m = _ZH_CITY.search(clause)
    if m:
        found["city"] = m.group(1) or m.group(2)
    m = _ZH_DISTRICT.search(clause)
    if m:
        found["district"] = m.group(1)
    m = _EN_DISTRICT.search(clause)
    if m:
        found["district"] = _clean(m.group(0))
    elif _EN_PLACE_CONTEXT.search(clause):
        for m in _EN_PLACE.finditer(clause):
            name = m.group(1)
            if name.split()[0] not in _EN_NOT_PLACES:
                found["city"] = name
                break


def _read_deadline(clause: str, found: dict) -> None:
    for rx in (_ZH_DEADLINE, _ZH_DEADLINE2, _EN_DEADLINE):
        m = rx.search(clause)
        if m:
            found["deadline"] = _clean(m.group(1))
            break


def _read_headcount(clause: str, found: dict) -> None:
    """How many people. The Chinese pattern is loose ("60平" and "10万" carry numbers too), so it is read only
    from a clause that states neither a size nor a sum of money, and only beside a word about people."""
    if not SIZE_RE.search(clause) and not MONEY_RE.search(clause):
        m = _ZH_HEADCOUNT.search(clause)
        if m and _ZH_HEADCOUNT_CTX.search(clause):
            found["headcount"] = _clean(m.group(1))
    m = _EN_HEADCOUNT.search(clause)
    if m:
        found["headcount"] = _clean(m.group(1))


def _read_limits(clause: str, found: dict) -> None:
    """A cap on one part of the spending, keyed by its subject ("limit:装修"), so that two caps live side by side."""
    m = _ZH_LIMIT.search(clause)
    if m:
        subject = _limit_subject(clause[: m.start()])
        value = _ZH_LIMIT_VALUE.search(clause[m.end() :])
        if subject and value:
            found[LIMIT_PREFIX + subject] = _clean(f"{m.group(1)}{value.group(1)}")
    for m in _EN_LIMIT.finditer(clause):
        subject, amount = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        subject = re.sub(r"^(?:the|my|our)\s+", "", subject.lower())
        found[LIMIT_PREFIX + subject] = _clean(f"at most {amount}")


# In this order, so that the facts of a message keep the order in which a reader meets them.
_CLAUSE_READERS = (_read_budget, _read_size, _read_category, _read_place, _read_deadline, _read_headcount, _read_limits)


def _clause_allergies(clause: str) -> list[str]:
    """Every allergy a clause names; a message may name several, so they are gathered, not replaced."""
    allergies = []
    for m in list(_ZH_ALLERGY.finditer(clause)) or list(_ZH_ALLERGY2.finditer(clause)):
        item = m.group(1).lstrip("我他她们也都还有就对")
        if item and item not in ("不", "没有", "会不会", "有没有"):
            allergies.append(item)
    for m in _EN_ALLERGY.finditer(clause):
        allergies.append(_clean(m.group(1) or m.group(2)))
    return allergies


def _clause_is_rule(clause: str) -> bool:
    """An instruction to the assistant ("以后都用中文回答", "call me Sam"); a question about one is not a rule."""
    instructs = (_ZH_RULE.search(clause) and _ZH_RULE_CTX.search(clause)) or (
        _EN_RULE.search(clause) and _EN_RULE_CTX.search(clause)
    )
    return bool(instructs) and not re.search(r"[?？吗]$|^(?:what|how|why|can|could|should)\b", clause, re.I)


def pinned_facts_extract(text: str) -> tuple[dict[str, str | list[str]], set[str]]:
    """The constraints in one user message: ({key: value; "rules": a list}, {keys whose value the user withdrew})."""
    found: dict[str, str | list[str]] = {}
    rules: list[str] = []
    allergies: list[str] = []
    for clause in _clauses(text):
        if _REMOVE.search(clause):
            continue  # "not X anymore": handled as a removal below, never as a new value
        for read in _CLAUSE_READERS:
            read(clause, found)
        allergies += _clause_allergies(clause)
        if _clause_is_rule(clause):
            rules.append(_clean(clause))
    if allergies:
        sep = "、" if has_chinese("".join(allergies)) else ", "
        found["allergy"] = sep.join(dict.fromkeys(allergies))
    if rules:
        found["rules"] = rules  # merged with earlier rules by pinned_facts_apply
    removed = {clause for clause in _clauses(text) if _REMOVE.search(clause)}
    return found, removed


def pinned_facts_apply(current: dict, text: str, *, message_id: int | None, now: datetime | None = None) -> dict:
    """`current` pinned facts updated by one user message (a new dict; `current` is not modified)."""
    stamp = (now or datetime.now(UTC)).isoformat()
    found, removal_clauses = pinned_facts_extract(text)
    facts = {k: dict(v) for k, v in (current or {}).items()}
    for clause in removal_clauses:
        for key, entry in list(facts.items()):
            if key == "rules" or key in found:
                continue
            value = str(entry.get("value", ""))
            if value and value.lower() in clause.lower():
                del facts[key]
    for key, found_value in found.items():
        if isinstance(found_value, list):  # the rules: merged with the earlier ones, the newest kept
            old = [r for r in str(facts.get("rules", {}).get("value", "")).split("\n") if r]
            value = "\n".join(list(dict.fromkeys(old + found_value))[-MAX_RULES:])
        else:
            value = found_value
        if key == "allergy" and "allergy" in facts and not removal_clauses:
            sep = "、" if has_chinese(value) else ", "
            parts = re.split(r"、|, ", str(facts["allergy"]["value"])) + re.split(r"、|, ", value)
            value = sep.join(dict.fromkeys(p for p in parts if p))
        if facts.get(key, {}).get("value") != value:
            facts[key] = {"value": value, "message_id": message_id, "updated_at": stamp}
    return facts


def pinned_label(key: str, *, chinese: bool) -> str:
    """The label of the pinned fact `key`, in Chinese or English; an unknown key is its own label."""
    with user_language(chinese):
        if key.startswith(LIMIT_PREFIX):
            return pgettext("pinned fact", "Limit on %(subject)s") % {"subject": key[len(LIMIT_PREFIX) :]}
        return str(LABELS[key]) if key in LABELS else key


def pinned_lines(pinned_facts: dict, *, chinese: bool) -> list[str]:
    """The pinned facts as "label: value" lines in the user's language, a fact's lines joined into one."""
    lines = []
    for key, entry in (pinned_facts or {}).items():
        value = str(entry.get("value", "")).replace("\n", "；" if chinese else "; ")
        if value:
            lines.append(f"{pinned_label(key, chinese=chinese)}: {value}")
    return lines


def session_pinned_update(*, tenant, session: ChatSession, message) -> dict:
    """Apply one user message to the session's pinned facts. Call inside the turn's transaction; the session row
    is locked so that two concurrent turns cannot lose each other's facts. `session` is brought up to date with
    the locked row: its pinned facts and its summary (compaction may have moved on since it was read)."""
    locked = ChatSession.objects.for_tenant(tenant).select_for_update().get(pk=session.pk)
    # only what the reader keeps: no secret, off-the-record span or attack on the rules is ever pinned
    facts = pinned_facts_apply(locked.pinned_facts, message_read(message.content).keep, message_id=message.pk)
    facts, _found = pii_redact_value(facts)  # a pinned fact never holds an identifier
    if facts != locked.pinned_facts:
        ChatSession.objects.for_tenant(tenant).filter(pk=session.pk).update(pinned_facts=facts)
    session.pinned_facts = facts
    session.summary = locked.summary
    if session.summary_through_id != locked.summary_through_id:
        field = ChatSession._meta.get_field("summary_through")
        if field.is_cached(session):
            field.delete_cached_value(session)
        session.summary_through_id = locked.summary_through_id
    session.summary_version = locked.summary_version
    return facts
