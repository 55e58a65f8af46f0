"""Experience memory (seed 004): generalised procedures users liked, recalled as a hint when a new task resembles
one; never a user's own words, and shared with other users only when confirmed.

Writes happen only after positive feedback: a thumbs-up (feedback_record, the web chat, the API) or an explicit
"很好，就按这个来" / "great, let's go with this" (`is_positive_feedback`, recorded by the pre-turn hook
assistants.services.feedback.feedback_turn_hook). The learning job
(`experience_learn`, run by tasks.jobs.experience_learn) re-checks the feedback, refuses failures (a model error,
an empty reply, a task that was cancelled or expired) and replies about what is remembered of the user, then
builds the kind of task (a task type, the model's summary, or the rules' recognised kind) and its steps, clause
by clause, keeping only what tasks.services.experience_privacy finds nothing of the user in. The same procedure
liked by another user adds their confirmation (ExperienceContribution) to the same Experience.

Who is offered what (`experiences_visible_to`): the contributors always; the assistant's other users once
`experience_min_users` distinct users confirmed it or staff approved it, while the tenant's `experience_sharing`
is on. Recall is pgvector cosine distance in SQL, filtered by tenant, assistant, visibility and embedding model.
"""

from __future__ import annotations

import hashlib
import logging
import re

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, F, OuterRef, Q
from pgvector.django import CosineDistance
from pydantic import BaseModel, Field

from assistants.models import Feedback, Message
from core.policy import memory_policy_for
from core.text import CJK, language_of, mostly_chinese
from memory.models import Experience, ExperienceContribution, PiiRejection
from memory.services.embeddings import embed_texts
from tasks.models import TaskState
from tasks.services.experience_privacy import clause_private_reason, private_terms_of
from tasks.services.field_extraction import field_kind, number_value
from tasks.services.scratch import scratch_get, scratch_put
from tasks.services.structured import OFFLINE_MODEL, StructuredCallFailed, structured_complete

logger = logging.getLogger(__name__)

HINTED_KEY = "experience_hinted"

# Praise opens the message ("很好，…", "Perfect, …"); agreement to go ahead may stand anywhere ("…就按这个来").
_OPENER = r"^\s*(?:嗯|哇|哦|噢|好|oh|wow|ok|okay)?[\s,，!！.。~]*"
_POSITIVE_ZH = re.compile(
    _OPENER + r"(?:很好|非常好|太好了|太棒了|很棒|真棒|完美|很满意|非常满意|好极了|非常感谢)|"
    r"就按这个|就照这个|按你说的(?:来|做|办)|就这么(?:办|做|定)|就这样(?:吧|定了)"
)
_POSITIVE_EN = re.compile(
    _OPENER + r"(?:great|perfect|excellent|awesome|amazing|fantastic|brilliant|love it|well done|spot on|"
    r"sounds great|looks great)\b|\b(?:exactly what i (?:needed|wanted)|works for me|(?:let'?s )?go with (?:this|that|it))\b",
    re.IGNORECASE,
)
_NEGATION_BEFORE = re.compile(
    r"(?:不|没|别|未|not\s+|n't\s+|never\s+|hardly\s+)(?:太|很|那么|是|so\s+|that\s+|very\s+|really\s+)?$",
    re.IGNORECASE,
)


def is_positive_feedback(text: str) -> bool:
    """An explicit, unnegated statement that the previous answer was good ("很好，就按这个来", "perfect, go with
    this"); "不太满意" and "not great" are not."""
    text = text or ""
    for pattern in (_POSITIVE_ZH, _POSITIVE_EN):
        for m in pattern.finditer(text):
            if not _NEGATION_BEFORE.search(text[max(0, m.start() - 12) : m.start()]):
                return True
    return False


# --- generalisation and scrubbing -----------------------------------------------------------------------------
_QUANTITY = re.compile(
    r"(\d[\d,]*(?:\.\d+)?|[零〇一二两三四五六七八九十百千万]+)\s*(?:多)?\s*(万|千|百)?\s*"
    r"(条|个|份|篇|张|件|次|封|行|段|本|位|名|家|单|笔|(?:[a-z]+\s+){0,2}?(?:items?|records?|rows?|messages?|"
    r"conversations?|chats?|emails?|tickets?|reviews?|comments?|documents?|files?|images?|"
    r"photos?|orders?|customers?|users?|people|lines?|pages?))",
    re.IGNORECASE,
)
_MONEY = re.compile(
    r"[¥￥$€£]\s*\d[\d,]*(?:\.\d+)?\s*(?:万|千|k|m|million|thousand)?|"
    r"(?:\d[\d,]*(?:\.\d+)?|[零一二两三四五六七八九十百千]+)\s*(?:万|千|亿)?\s*(?:元|块|人民币|美元)|"
    r"\d[\d,]*(?:\.\d+)?\s*(?:万|亿)|\b\d[\d,]*(?:\.\d+)?\s*(?:k|million|thousand)?\s*"
    r"(?:dollars|usd|euros?|rmb|yuan)\b|\b\d+(?:\.\d+)?k\b",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"\d{4}[-/.年]\d{1,2}(?:[-/.月]\d{1,2}[日号]?)?|\d{1,2}月(?:\d{1,2}[日号]|底|初|中旬|下旬|上旬)?|"
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december)"
    r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+\d{4})?",
    re.IGNORECASE,
)
_GENERIC_NOUNS = [  # specific material -> the general kind of task it is (rules, both languages)
    (re.compile(r"客服对话|聊天记录|对话记录|用户评论|评论|留言|工单|邮件|反馈|问卷回答|文章|新闻"), "文本"),
    (re.compile(r"照片|图片|截图|图像"), "图像"),
    (
        re.compile(
            r"\b(?:customer[- ]service conversations?|support tickets?|chat logs?|reviews?|comments?|emails?|"
            r"feedback|articles?|tickets?|conversations?)\b",
            re.IGNORECASE,
        ),
        "texts",
    ),
    (re.compile(r"\b(?:photos?|pictures?|screenshots?|images?)\b", re.IGNORECASE), "images"),
]


def _magnitude(number: float, zh: bool) -> str:
    if number >= 1000:
        return "大批量" if zh else "large batches of"
    if number >= 50:
        return "批量" if zh else "batches of"
    return "少量" if zh else "a few"


def _count_bucket(number: float, zh: bool) -> str:
    if number <= 10:
        return "小团队（10 人以内）" if zh else "a small team (up to 10)"
    if number <= 50:
        return "中等团队（11-50 人）" if zh else "a mid-size team (11-50)"
    return "大团队（50 人以上）" if zh else "a large team (over 50)"


def _amount_bucket(number: float, zh: bool) -> str:
    if number >= 1e6:
        return "百万级" if zh else "millions"
    if number >= 1e5:
        return "十万级" if zh else "hundreds of thousands"
    if number >= 1e4:
        return "万级" if zh else "tens of thousands"
    return "万以下" if zh else "under ten thousand"


_TASK_KINDS = [  # what is being done, in general terms (rules, both languages)
    (
        re.compile(
            r"分类|归类|分成几类|分成.{0,4}类|打标签|贴标签|\bclassif|\bcategori[sz]|\bsort\w* .{0,20}(?:into|by)|"
            r"\blabel",
            re.IGNORECASE,
        ),
        "分类",
        "classification",
    ),
    (re.compile(r"摘要|总结|概括|\bsummar", re.IGNORECASE), "摘要", "summarisation"),
    (re.compile(r"翻译|\btranslat", re.IGNORECASE), "翻译", "translation"),
    (re.compile(r"提取|抽取|\bextract", re.IGNORECASE), "信息抽取", "extraction"),
    (re.compile(r"清洗|去重|\bclean|\bdedup", re.IGNORECASE), "清洗", "cleaning"),
    (re.compile(r"统计|分析|\banaly[sz]", re.IGNORECASE), "分析", "analysis"),
]
_MATERIAL = re.compile(r"(文本|图像|texts|images)", re.IGNORECASE)


def experience_generalise_offline(text: str) -> str:
    """Rules: quantities become magnitudes ("1000 条客服对话" -> "大批量文本"), amounts and dates become
    placeholders, specific material becomes its general kind, and a recognised kind of work names the task
    ("大批量文本分类任务"); otherwise the rewritten request is kept."""
    zh = language_of(text) == "zh"

    def quantity(m):
        base = number_value(m.group(1)) or 0
        base *= {"万": 1e4, "千": 1e3, "百": 1e2}.get(m.group(2) or "", 1)
        unit = m.group(3)
        if base < 2:
            return m.group(0)  # "一个", "one file": not a quantity worth generalising
        return _magnitude(base, zh) + ("" if CJK.match(unit) else " " + unit)

    out = _MONEY.sub("[金额]" if zh else "[amount]", text)
    out = _DATE.sub("[日期]" if zh else "[date]", out)
    out = _QUANTITY.sub(quantity, out)
    for pattern, generic in _GENERIC_NOUNS:
        out = pattern.sub(generic, out)
    out = re.sub(r"\d[\d,.]*", "若干" if zh else "some", out)
    out = re.sub(r"批量(?:处理)?\s*(大批量|批量|少量)", r"\1", out)
    out = re.sub(r"(大批量|批量|少量)处理", r"\1", out)
    magnitude = re.search(r"大批量|批量|少量|large batches of|batches of|a few", out)
    material = _MATERIAL.search(out)
    kind = next((k for k in _TASK_KINDS if k[0].search(text)), None)
    if kind is not None and material is not None:
        if zh:
            return f"{magnitude.group(0) if magnitude else ''}{material.group(1)}{kind[1]}任务"
        size = {"large batches of": "large-batch ", "batches of": "batch ", "a few": "small "}.get(
            magnitude.group(0) if magnitude else "", ""
        )
        return f"{size}{material.group(1).lower().rstrip('s')} {kind[2]} task"
    out = re.sub(r"^(?:请|帮我|帮忙|麻烦你?|我想|我要|我需要|能不能|可以)+", "", out.strip())
    out = re.sub(
        r"^(?:please\s+|can you\s+|could you\s+|help me\s+|i want to\s+|i need to\s+)+", "", out, flags=re.IGNORECASE
    )
    out = re.sub(r"\s+", "" if zh else " ", out).strip(" ，,。.!！?？")
    if zh:
        return out if out.endswith("任务") else out + "任务"
    return out if out.lower().endswith("task") else "task: " + out


def _embedding_text(text: str) -> str:
    """What is embedded for similarity: the generalised form without the words every summary shares."""
    previous = None
    while previous != text:  # drop (nested) parenthesised details
        previous, text = text, re.sub(r"（[^（）]*）|\([^()]*\)", "", text)
    core = experience_generalise_offline(text)
    core = re.sub(r"任务$|^task:\s*|\s*task$", "", core, flags=re.IGNORECASE)
    core = re.sub(r"^(?:我想|我要|我需要|想|要)?(?:做|搞|弄|写|定|制定|出|整)(?:一个|一份|一下|个|份)?", "", core)
    core = re.sub(
        r"^(?:make|do|create|write|draw up|put together|prepare|build)\s+(?:me\s+)?(?:a|an|the|some)?\s*",
        "",
        core,
        flags=re.IGNORECASE,
    )
    return core.strip() or text


def _task_generalised(state: TaskState, zh_hint: bool) -> tuple[str, str]:
    """A finished task described by its kind and generalised field values (never the user's values)."""
    zh = language_of(state.task_name) == "zh" or zh_hint
    parts = []
    for f in state.required_fields:
        item = state.collected.get(f["name"])
        if not item:
            continue
        kind = field_kind(f)
        normalized = item.get("normalized")
        if kind == "count" and normalized:
            parts.append(
                f"{f['name']}：{_count_bucket(float(normalized), zh)}"
                if zh
                else f"{f['name']}: {_count_bucket(float(normalized), zh)}"
            )
        elif kind == "amount" and normalized:
            parts.append(
                f"{f['name']}：{_amount_bucket(float(normalized), zh)}"
                if zh
                else f"{f['name']}: {_amount_bucket(float(normalized), zh)}"
            )
    summary = state.task_name + (
        ("（" + "，".join(parts) + "）") if zh and parts else (" (" + ", ".join(parts) + ")") if parts else ""
    )
    completion = state.task_type.completion_prompt if state.task_type_id else ""
    fields = ("、" if zh else ", ").join(f["name"] for f in state.required_fields)
    if zh:
        solution = f"先收集{fields}，信息齐全后{completion or '生成结果'}，请用户确认后执行。"
    else:
        solution = (
            f"Collect the {fields} first; once complete, {completion or 'produce the result'}; ask the user to confirm."
        )
    return summary, solution


class ExperienceDraft(BaseModel):
    """The generalised task and solution the model must answer with."""

    task_summary: str = Field(
        description="The kind of task, generalised: no names, numbers, places or "
        "personal facts (e.g. 'large batch text classification')."
    )
    solution: str = Field(description="How it was solved, generalised the same way, in a few sentences.")


_GENERALISE_SYSTEM = (
    "Generalise a task a user was helped with and the solution they liked, so that it can help other users. "
    "Replace concrete numbers by magnitudes, drop names of people, companies and places, dates, contact details "
    "and anything personal about the user. Keep the language of the input. Answer with JSON only."
)


def _previous_user_message(message: Message) -> Message | None:
    return (
        Message.objects.for_tenant(message.tenant_id)
        .filter(session_id=message.session_id, role=Message.Role.USER, id__lt=message.pk)
        .order_by("-id")
        .first()
    )


_STEP_SPLIT = re.compile(r"(?<=[。！？!?；;\n])|(?<=[.])\s+")
_CLAUSE_SPLIT = re.compile(r"(?<=[，,])\s*")
_PERCENT = re.compile(r"\d+(?:\.\d+)?\s*[%％]|百分之[零一二两三四五六七八九十\d]+")


def _generalise_clause(clause: str, zh: bool) -> str:
    """Figures in one step become words: shares, amounts, dates, counts (to magnitudes), any other number."""

    def quantity(m):
        base = number_value(m.group(1)) or 0
        base *= {"万": 1e4, "千": 1e3, "百": 1e2}.get(m.group(2) or "", 1)
        if base < 2:
            return m.group(0)
        return _magnitude(base, zh) + ("" if CJK.match(m.group(3)) else " " + m.group(3))

    out = _PERCENT.sub("一小部分" if zh else "a small share", clause)
    out = _MONEY.sub("一定金额" if zh else "an amount", out)
    out = _DATE.sub("约定的日期" if zh else "the agreed date", out)
    out = _QUANTITY.sub(quantity, out)
    return re.sub(r"\d[\d,.]*", "若干" if zh else "some", out).strip()


def experience_steps(text: str, *, terms, zh: bool, limit: int = 8) -> tuple[str, dict[str, int]]:
    """The generic steps of a reply: each clause generalised, and kept only when nothing in it is specific to the
    user (tasks.services.experience_privacy). Returns the steps and the count of clauses left out per reason."""
    kept: list[str] = []
    dropped: dict[str, int] = {}
    for sentence in _STEP_SPLIT.split(text or ""):
        parts = []
        for clause in _CLAUSE_SPLIT.split(sentence.strip()):
            raw = clause.strip(" ，,;；")
            clause = _generalise_clause(raw, zh)
            if len(clause.strip(" 。.!！?？")) < 2:
                continue
            # quotes and the user's words are looked for as they were written, figures after generalising
            reason = clause_private_reason(raw, terms, figures=False) or clause_private_reason(clause, terms)
            if reason:
                dropped[reason] = dropped.get(reason, 0) + 1
            else:
                parts.append(clause.rstrip("。.!！?？；;"))
        if parts:
            kept.append(("，" if zh else ", ").join(parts))
        if len(kept) >= limit:
            break
    if not kept:
        return "", dropped
    return ("。".join(kept) + "。") if zh else (". ".join(k[0].upper() + k[1:] for k in kept) + "."), dropped


def _task_kind_summary(text: str) -> str:
    """The kind of task a request is, when the rules recognise one ("大批量文本分类任务"); else "" (the request's
    own words are never a summary)."""
    summary = experience_generalise_offline(text)
    if re.fullmatch(
        r"(?:大批量|批量|少量)?(?:文本|图像)\S{2,4}任务|(?:large-batch |batch |small )?(?:text|image) "
        r"\w+ task",
        summary,
    ):
        return summary
    return ""


def _fingerprint(summary: str, solution: str) -> str:
    """The same kind of task (whatever its size) solved by the same steps is one experience."""
    summary = re.sub(r"大批量|批量|少量|\b(?:large-batch|batch|small)\s", "", summary)
    norm = lambda t: re.sub(r"[\s，,。.;；!！?？、]+", " ", t).strip().lower()  # noqa: E731 - a one-line normaliser used just below
    return hashlib.sha256(f"{norm(summary)}\n{norm(solution)}".encode()).hexdigest()


def _refusal(reason: str) -> dict:
    return {"saved": False, "reason": reason}


def _draft(*, message, question_text: str, state, policy, terms, zh: bool) -> tuple[str, str, str, dict]:
    """(summary, solution, source, dropped) of one liked reply; summary "" when nothing generic is left."""
    if state is not None:  # the tenant's task type: its name, buckets of the values, its fields and prompt
        summary, solution = _task_generalised(state, zh)
        if clause_private_reason(summary, terms, own_words=False) or clause_private_reason(
            solution, terms, own_words=False
        ):
            return "", "", "task", {"task": 1}
        return summary, solution, "task", {}
    summary, solution, source = "", "", "reply"
    if policy.chat_model not in ("", OFFLINE_MODEL):
        try:
            draft = structured_complete(
                model=policy.chat_model,
                system=_GENERALISE_SYSTEM,
                schema=ExperienceDraft,
                user=f"Task: {question_text}\nSolution the user liked: {message.content}",
            )
            summary, solution, source = draft.task_summary.strip(), draft.solution, "model"
        except StructuredCallFailed as exc:
            logger.warning("experience generalisation by the model failed, using the rules: %s", exc)
    if source != "model" or clause_private_reason(summary, terms):
        summary = _task_kind_summary(question_text or message.content[:200])
        if source != "model":
            solution = message.content
    steps, dropped = experience_steps(solution, terms=terms, zh=mostly_chinese(solution, latin_per_cjk=8))
    return (summary if steps else ""), steps, source, dropped


def _reply_was_about_memory(metadata: dict) -> bool:
    """A reply that said what the assistant remembers or forgot of this user is about them, never a procedure."""
    context = metadata.get("context") or {}
    return "memory" in (context.get("hint_sections") or []) or bool(context.get("memory_command"))


def experience_learn(*, tenant_id: int, message_id: int) -> dict:
    """Learn from one assistant reply that got positive feedback (the body of the experience_learn job).

    Stores a generalised procedure only when something generic is left after every check of
    tasks.services.experience_privacy; the same procedure liked by another user adds their confirmation to the
    existing experience. Idempotent per reply; nothing is saved without a thumbs-up or for a failure.

    The model (generalising the reply, embedding the summary) is asked before the reply's row is locked, so an
    erasure of the user never waits on it; under the lock every check is made again and only the writes are
    done."""
    found = _learnable(tenant_id=tenant_id, message_id=message_id, lock=False)
    if isinstance(found, dict):
        return found
    message, state = found
    tenant, end_user = message.tenant, message.end_user
    question = _previous_user_message(message)
    question_text = question.content if question is not None else ""
    assistant = message.session.assistant
    policy = memory_policy_for(tenant=tenant, assistant=assistant)
    zh = language_of(question_text + message.content) == "zh"
    # the user's words in this conversation (the request, and what they said around it) and all their notes
    said = list(
        Message.objects.for_tenant(tenant)
        .filter(session_id=message.session_id, role=Message.Role.USER, id__lt=message.pk)
        .order_by("-id")
        .values_list("content", flat=True)[:50]
    )
    terms = private_terms_of(tenant=tenant, end_user=end_user, message_texts=said)
    summary, solution, source, dropped = _draft(
        message=message, question_text=question_text, state=state, policy=policy, terms=terms, zh=zh
    )
    fingerprint = _fingerprint(summary, solution) if summary and solution else ""
    vector = None
    if (
        fingerprint
        and not Experience.objects.for_tenant(tenant).filter(assistant=assistant, fingerprint=fingerprint).exists()
    ):
        vector = embed_texts(texts=[_embedding_text(summary)], model=policy.embedding_model)
    with transaction.atomic():
        found = _learnable(tenant_id=tenant_id, message_id=message_id, lock=True)
        if isinstance(found, dict):
            return found
        message = found[0]
        for reason, count in dropped.items():  # counts only, never the content
            PiiRejection.objects.for_tenant(tenant).create(
                tenant=tenant, end_user=end_user, pii_kind=reason, stage="experience", count=count
            )
        if not fingerprint:
            return _refusal("nothing generic enough to share was left once the user's details were taken out")
        return _experience_save(
            message=message,
            summary=summary,
            solution=solution,
            fingerprint=fingerprint,
            vector=vector,
            policy=policy,
            source=source,
        )


def _learnable(*, tenant_id: int, message_id: int, lock: bool) -> tuple[Message, TaskState | None] | dict:
    """(the liked reply, its task state) when it may be learned from, else the refusal. `lock`: the reply's row
    is locked (the writes follow)."""
    message = Message.objects.for_tenant(tenant_id)
    if lock:
        message = message.select_for_update(of=("self",))
    message = (
        message.select_related("session__assistant", "end_user", "tenant")
        .filter(pk=message_id, role=Message.Role.ASSISTANT)
        .first()
    )
    if message is None:
        return _refusal("the reply no longer exists")
    tenant, end_user = message.tenant, message.end_user
    feedback = Feedback.objects.for_tenant(tenant).filter(message=message).order_by("-updated_at").first()
    if feedback is None or feedback.rating != Feedback.Rating.UP:
        return _refusal("no positive feedback")
    existing = ExperienceContribution.objects.for_tenant(tenant).filter(source_message=message).first()
    if existing is not None or Experience.objects.for_tenant(tenant).filter(source_message=message).exists():
        experience_id = (
            existing.experience_id
            if existing
            else Experience.objects.for_tenant(tenant).filter(source_message=message).values_list("pk", flat=True)[0]
        )
        return {"saved": False, "reason": "already learned", "experience_id": experience_id}
    metadata = message.metadata or {}
    if metadata.get("error") or not (message.content or "").strip():
        return _refusal("the reply was a failure")
    if _reply_was_about_memory(metadata):
        return _refusal("the reply was about what is remembered of the user, not a procedure")
    state = None
    task_data = (metadata.get("context") or {}).get("task") or {}
    if task_data.get("id") and task_data.get("route") not in ("side_question", "offer"):
        state = TaskState.objects.for_tenant(tenant).filter(pk=task_data["id"], end_user=end_user).first()
        if state is not None and state.state in (TaskState.State.CANCELLED, TaskState.State.EXPIRED):
            return _refusal(f"the task was {state.state}")
        if task_data.get("state") not in (TaskState.State.COMPLETED, TaskState.State.WAITING_CONFIRM):
            return _refusal("the reply was a step of an unfinished task, not a solution")
    return message, state


def _experience_save(
    *,
    message: Message,
    summary: str,
    solution: str,
    fingerprint: str,
    vector: tuple[str, list[list[float]]] | None,
    policy,
    source: str,
) -> dict:
    """Create the experience (or find the same procedure) and record this user's confirmation of it."""
    tenant, end_user, assistant = message.tenant, message.end_user, message.session.assistant
    experience = Experience.objects.for_tenant(tenant).filter(assistant=assistant, fingerprint=fingerprint).first()
    created = experience is None
    if created:
        # embedded before the lock; only when another job deleted the same procedure meanwhile is it done here
        model_name, vectors = vector or embed_texts(texts=[_embedding_text(summary)], model=policy.embedding_model)
        try:
            with transaction.atomic():
                experience = Experience.objects.for_tenant(tenant).create(
                    tenant=tenant,
                    assistant=assistant,
                    task_summary=summary[:2000],
                    solution=solution[:8000],
                    fingerprint=fingerprint,
                    source_message=message,
                    contributed_by=end_user,
                    embedding=vectors[0],
                    embedding_model=model_name,
                )
        except IntegrityError:  # another user's job created the same procedure meanwhile: confirm that one
            created = False
            experience = Experience.objects.for_tenant(tenant).get(assistant=assistant, fingerprint=fingerprint)
    _contribution, added = ExperienceContribution.objects.for_tenant(tenant).get_or_create(
        tenant=tenant, experience=experience, end_user=end_user, defaults={"source_message": message}
    )
    users = experience.contributions.count()
    return {
        "saved": created or added,
        "experience_id": experience.pk,
        "source": source,
        "created": created,
        "confirmed_by_users": users,
        "shared": _is_shared(experience, users, policy),
    }


def _is_shared(experience: Experience, users: int, policy) -> bool:
    return bool(
        policy.experience_sharing
        and (experience.approved_at is not None or users >= max(1, policy.experience_min_users))
    )


def experience_forget_for_message(*, tenant, message) -> int:
    """A thumbs-down after a thumbs-up: that user's confirmation goes; an experience nobody confirms any more is
    deleted. Returns the experiences deleted."""
    contributions = ExperienceContribution.objects.for_tenant(tenant).filter(source_message=message)
    experience_ids = list(contributions.values_list("experience_id", flat=True))
    contributions.delete()
    orphans = (
        Experience.objects.for_tenant(tenant)
        .filter(Q(pk__in=experience_ids) | Q(source_message=message, fingerprint=""))
        .annotate(n=Count("contributions"))
        .filter(n=0)
    )
    deleted, _ = orphans.delete()
    return deleted


def experiences_visible_to(*, tenant, assistant, end_user, policy=None):
    """The experiences of `assistant` that `end_user` may be offered: the ones they contributed, and (while the
    tenant shares experiences) those confirmed by `experience_min_users` distinct users or approved by staff.
    `end_user=None`: only the shared ones."""
    policy = policy or memory_policy_for(tenant=tenant, assistant=assistant)
    qs = Experience.objects.for_tenant(tenant).filter(assistant=assistant)
    own = (
        Q(pk__in=[])
        if end_user is None
        else Exists(
            ExperienceContribution.objects.for_tenant(tenant).filter(experience=OuterRef("pk"), end_user=end_user)
        )
    )
    if not policy.experience_sharing:
        return qs.filter(own)
    qs = qs.annotate(confirmed_by=Count("contributions__end_user", distinct=True))
    return qs.filter(own | Q(approved_at__isnull=False) | Q(confirmed_by__gte=max(1, policy.experience_min_users)))


def experience_recall(
    *, tenant, assistant, text: str, end_user=None, limit: int = 3, min_similarity: float | None = None, policy=None
) -> list[dict]:
    """Experiences `end_user` may be offered (experiences_visible_to) similar to `text`, best first. Cosine
    distance is computed in SQL over vectors of the same embedding model, in this tenant and assistant only.
    `policy`: the caller's effective policy (the turn's), else `assistant`'s."""
    if min_similarity is None:
        min_similarity = settings.EXPERIENCE_MIN_SIMILARITY
    policy = policy or memory_policy_for(tenant=tenant, assistant=assistant)
    base = experiences_visible_to(tenant=tenant, assistant=assistant, end_user=end_user, policy=policy).filter(
        embedding__isnull=False
    )
    if not base.exists():
        return []
    model_name, vectors = embed_texts(texts=[_embedding_text(text)], model=policy.embedding_model)
    rows = (
        base.filter(embedding_model=model_name)
        .annotate(distance=CosineDistance("embedding", vectors[0]))
        .filter(distance__lte=1 - min_similarity)
        .order_by("distance")[:limit]
    )
    return [
        {
            "id": e.pk,
            "task_summary": e.task_summary,
            "solution": e.solution,
            "similarity": round(1 - float(e.distance), 3),
        }
        for e in rows
    ]


def experience_turn_prepare(*, tenant, session, text: str, policy) -> list[dict] | None:
    """Before the turn locks the user's rows: the experiences this message may be offered (experience_recall
    embeds the message, with a remote model when the policy names one). None for explicit feedback, which
    recalls nothing. Reads only."""
    if is_positive_feedback(text or ""):
        return None
    return experience_recall(
        tenant=tenant, assistant=session.assistant, end_user=session.end_user, text=text, policy=policy
    )


def experience_turn_hook(*, tenant, session, message, policy=None, prepared: list[dict] | None = None) -> dict | None:
    """See assistants.services.hooks for the contract. Recalls experiences this user may be offered as a hint
    (`prepared`: recalled by experience_turn_prepare before the turn's locks). A message that praises the previous
    reply gets no hint: it is feedback, which the hook before this one
    (assistants.services.feedback.feedback_turn_hook) records as a thumbs-up (and that triggers learning). The
    hint is computed for this turn only; what is stored with the reply is the experience ids
    (data.experience_ids), never its text (assistants.services.turn_context.TurnContext.as_dict)."""
    text = message.content or ""
    zh = language_of(text) == "zh"
    if is_positive_feedback(text):
        return None
    found = (
        prepared
        if prepared is not None
        else experience_recall(
            tenant=tenant, assistant=session.assistant, end_user=session.end_user, text=text, policy=policy
        )
    )
    if not found:
        return None
    hinted = scratch_get(tenant=tenant, session=session, key=HINTED_KEY, default=[]) or []
    fresh = [e for e in found if e["id"] not in hinted]
    if not fresh:
        return None
    Experience.objects.for_tenant(tenant).filter(pk__in=[e["id"] for e in fresh]).update(use_count=F("use_count") + 1)
    scratch_put(tenant=tenant, session=session, key=HINTED_KEY, value=hinted + [e["id"] for e in fresh], policy=policy)
    best = fresh[0]
    solution = re.sub(r"\s*\n+\s*", "；" if zh else "; ", best["solution"]).strip()
    solution = solution[:160] + ("…" if len(solution) > 160 else "")  # a hint is one short line of the context
    hint = (
        f"参考以往类似任务（{best['task_summary']}）的经验：{solution}"
        if zh
        else f"From a similar earlier task ({best['task_summary']}): {solution}"
    )
    return {
        "section": "experience",
        "reply_hint": hint,
        "data": {
            "experience_ids": [e["id"] for e in fresh],
            "experiences": [{"id": e["id"], "similarity": e["similarity"]} for e in fresh],
        },
    }


experience_turn_hook.prepare = experience_turn_prepare  # type: ignore[attr-defined]
