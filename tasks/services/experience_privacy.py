"""What makes a step of an experience specific to one user, so that it is never stored.

An experience may only hold a generalised procedure. Every clause of a candidate summary or solution is checked,
and a clause that fails any check is left out (a summary that fails is refused):
- an identifier (memory.services.identifiers.pii, every format it knows);
- one of the user's facts: names and ids, display name, pinned facts, note values, task field values;
- a quote of the user: 4 consecutive words (or 4 consecutive Chinese characters) shared with the user's message
  or any of their notes, quotation marks, or a content word of their notes or of the message that is not part
  of the generic vocabulary of tasks;
- a name (introduced, titled, or an English proper noun in mid-clause) or a place;
- a figure left after generalisation (amounts, dates, counts and shares become words first).
The checks run against the user's notes and the message, not only the identifier detector.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory.models import MemoryNote
from memory.services.identifiers.pii import REDACTED, pii_find
from tasks.models import TaskState
from tenancy.models import ChatSession, Message

NAME_INTRO = re.compile(
    r"(?:我叫|我的名字是|姓名[:：]?|(?:我是|本人)(?=[\u4e00-\u9fff]{2,3}(?:[，,。.!！\s]|$)))\s*"
    r"([\u4e00-\u9fff]{2,4}?)(?=[，,。.!！\s]|$|[^\u4e00-\u9fff])|"
    r"\b(?i:my name is|i am|i'm|this is)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)"
)
TITLED_NAME = re.compile(
    r"([\u4e00-\u9fff]{1,3})(?:先生|女士|小姐|总|经理|老师|医生|博士)|"
    r"\b(?:Mr|Mrs|Ms|Dr|Prof)\.?\s+[A-Z][a-z]+"
)
PLACE = re.compile(
    r"[\u4e00-\u9fff]{1,6}(?:省|市|区|县|镇|街道|路|街|商圈)|"
    r"(?:在|位于)([\u4e00-\u9fff]{2,4})(?=开|办|做|的|，|,|。|$)|"
    r"\b(?:in|at|near)\s+(?:[A-Z][a-z]+)(?:\s+[A-Z][a-z]+)?"
)
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]{4,}")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]+")
_QUOTE_MARKS = re.compile(r"[\"“”「」『』《》]")
_PLACEHOLDERS = (REDACTED, "[用户信息]", "[user detail]", "[姓名]", "[name]", "[地点]", "[place]")
_STOP_EN = set(
    """a an the and or but if then than so to of in on at by for with from into onto about as is are was
were be been being it its this that these those there here i me my mine we our us you your yours he she his her they
them their what which who whom whose when where why how all any each every some such no not only own same too very
can could will would should shall may might must do does did done doing have has had having just also more most
other please help want need like get got make made use using used one two first next last then before after again
once further up down out over under off new old good great best well sure okay ok thanks thank let lets user users
user's people person someone something thing things way ways time times day days week weeks month months year years
still really quite much many few lot lots kind sort type""".split()
)
# The vocabulary of tasks and of generalised procedures: words a solution may share with any request.
_GENERIC_EN = set(
    """classify classification categorise categorize categories category label labels labelling
labeling tag tags tagging sort sorting group grouping summarise summarize summary summaries translate translation
extract extraction clean cleaning dedupe deduplicate analyse analyze analysis report reports plan plans planning
draft write writing review reviews check checks sample samples sampling rule rules model models batch batches
large small text texts image images photo photos document documents file files ticket tickets support customer
customers conversation conversations chat chats message messages email emails comment comments feedback article
articles record records row rows item items order orders data dataset list lists table tables topic topics step
steps result results task tasks project projects team budget deadline schedule timeline manual manually automatic
automatically spot spot-check share rest remaining first second third finally start end agree define write run""".split()
)
_GENERIC_ZH = (
    "分类归类打标签贴标签摘要总结概括翻译提取抽取清洗去重统计分析报告计划方案规划草稿撰写检查抽样抽检规则模型批量"
    "大批量少量文本图像图片照片文档文件工单客服对话聊天记录对话记录用户评论评论留言邮件反馈文章新闻数据表格主题"
    "步骤结果任务项目团队预算截止时间进度人工自动处理帮我一下这些那些"
)
_ACRONYM = re.compile(r"^[A-Z0-9]{2,6}s?$")
_OK_CAPITALISED = {
    "I",
    "I'm",
    "I'll",
    "I've",
    "OK",
    "Excel",
    "Python",
    "SQL",
    "Markdown",
    "English",
    "Chinese",
    "Monday",
    "Friday",
}


def shingles_zh(text: str) -> set[str]:
    return {run[i : i + 4] for run in _CJK_RUN.findall(text or "") for i in range(len(run) - 3)}


def shingles_en(text: str) -> set[str]:
    words = [w.lower() for w in _WORD.findall(text or "")]
    return {" ".join(words[i : i + 4]) for i in range(len(words) - 3)}


_FUNCTION_ZH = re.compile(r"用户|[是的在有对不了和与及或也都很要会想把被给让我你他她它们这那个一]")


def _content_bigrams(text: str) -> set[str]:
    """Every two-character piece of what the user said or a note says about them, but the task vocabulary
    ("用户是素食者，对花生过敏" -> 素食, 食者, 花生, 生过, 过敏; "我是岚岚的同事" -> 岚岚, 同事): a Chinese name is
    two or three characters, so a longer overlap would let it through."""
    out: set[str] = set()
    for run in re.findall(r"[\u4e00-\u9fff]+", _FUNCTION_ZH.sub(" ", text or "")):
        out |= {run[i : i + 2] for i in range(len(run) - 1)}
    return out - _GENERIC_ZH_BIGRAMS


def _content_words(text: str) -> set[str]:
    return {
        w.lower()
        for w in _WORD.findall(text or "")
        if len(w) >= 4 and w.lower() not in _STOP_EN and w.lower() not in _GENERIC_EN
    }


GENERIC_ZH_SHINGLES = shingles_zh(_GENERIC_ZH)
_GENERIC_ZH_BIGRAMS = {_GENERIC_ZH[i : i + 2] for i in range(len(_GENERIC_ZH) - 1)}


@dataclass
class PrivateTerms:
    """Everything of one user an experience must not carry."""

    facts: list[str] = field(default_factory=list)
    shingles_zh: set[str] = field(default_factory=set)
    shingles_en: set[str] = field(default_factory=set)
    words: set[str] = field(default_factory=set)
    bigrams: set[str] = field(default_factory=set)  # content bigrams of the user's notes and words (Chinese)


def user_facts(*, tenant, end_user) -> list[str]:
    """The user's own facts: their names and ids, pinned session facts, long-term note values and task field
    values, and the names they introduced themselves with. Longest first."""
    facts: list[str] = []
    if end_user is None:
        return facts
    facts += [end_user.display_name, end_user.external_id]
    if end_user.user_id:
        facts += [end_user.user.username, end_user.user.first_name, end_user.user.last_name]

    def collect(value):
        if isinstance(value, dict):
            for v in value.values():
                collect(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                collect(v)
        elif isinstance(value, str):
            facts.append(value)

    for pinned in (
        ChatSession.objects.for_tenant(tenant).filter(end_user=end_user).values_list("pinned_facts", flat=True)
    ):
        for item in (pinned or {}).values():
            collect(item.get("value") if isinstance(item, dict) else item)
    for value in MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user).values_list("value", flat=True):
        collect(value)
    texts = (
        Message.objects.for_tenant(tenant)
        .filter(end_user=end_user, role=Message.Role.USER)
        .order_by("-id")
        .values_list("content", flat=True)[:300]
    )
    for text in texts:
        for m in NAME_INTRO.finditer(text or ""):
            name = (m.group(1) or m.group(2) or "").strip()
            facts.append(name)
            facts.extend(name.split() if " " in name else ([name[1:]] if len(name) >= 3 else []))
    for collected in TaskState.objects.for_tenant(tenant).filter(end_user=end_user).values_list("collected", flat=True):
        for item in (collected or {}).values():
            collect(item.get("value") if isinstance(item, dict) else item)
    return sorted({f.strip() for f in facts if f and len(f.strip()) >= 2}, key=len, reverse=True)


def private_terms_of(*, tenant, end_user, message_texts: list[str]) -> PrivateTerms:
    """The user's facts, and the quotes, content words and bigrams of `message_texts` and of all their notes."""
    terms = PrivateTerms(facts=user_facts(tenant=tenant, end_user=end_user))
    notes = MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user).values_list("content", "quote")
    for text in [t for pair in notes for t in pair] + list(message_texts):
        terms.bigrams |= _content_bigrams(text)
        terms.shingles_zh |= shingles_zh(text) - GENERIC_ZH_SHINGLES
        terms.shingles_en |= shingles_en(text)
        terms.words |= _content_words(text)
    return terms


def clause_private_reason(
    clause: str, terms: PrivateTerms, *, own_words: bool = True, figures: bool = True
) -> str | None:
    """Why `clause` is specific to the user (a short reason), or None when it is generic. `own_words=False` for
    text the tenant wrote (a task type's name, fields and prompt): only identifiers and the user's facts count."""
    if pii_find(clause) or any(p in clause for p in _PLACEHOLDERS):
        return "identifier"
    lowered = clause.lower()
    if any((f.lower() in lowered) if f.isascii() else (f in clause) for f in terms.facts):
        return "user_fact"
    if not own_words:
        return None
    if (
        _QUOTE_MARKS.search(clause)
        or shingles_zh(clause) & terms.shingles_zh
        or shingles_en(clause) & terms.shingles_en
    ):
        return "quote"
    if {w.lower() for w in _WORD.findall(clause)} & terms.words or any(
        clause[i : i + 2] in terms.bigrams for i in range(len(clause) - 1)
    ):
        return "user_words"
    if NAME_INTRO.search(clause) or TITLED_NAME.search(clause):
        return "name"
    words = _WORD.findall(clause)
    if any(w[0].isupper() and not _ACRONYM.match(w) and w not in _OK_CAPITALISED for w in words[1:]):
        return "name"
    if PLACE.search(clause):
        return "place"
    if figures and re.search(r"\d", clause):
        return "figure"
    return None
