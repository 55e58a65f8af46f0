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

import logging
import re

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Count, Exists, F, OuterRef, Q
from django.utils.translation import gettext
from pgvector.django import CosineDistance
from pydantic import BaseModel, Field

from core.i18n import user_language
from core.policy import MemoryPolicy, memory_policy_for
from core.text import language_of, mostly_chinese
from memory.models import Experience, ExperienceContribution, PiiRejection
from memory.services.vectors.embeddings import embed_texts
from tasks.models import TaskState
from tasks.services.experience_generalise import (
    experience_embedding_text,
    experience_fingerprint,
    experience_steps,
    experience_task_generalised,
    experience_task_kind_summary,
)

# `... as` below: experience_generalise_offline and is_positive_feedback are re-exported (feedback hook, tests).
from tasks.services.experience_generalise import experience_generalise_offline as experience_generalise_offline
from tasks.services.experience_privacy import clause_private_reason, private_terms_of
from tasks.services.experience_sources import (
    is_earlier_version,
    liked_reply_question,
    own_solution,
    reply_was_about_memory,
    user_words_before,
)
from tasks.services.positive_feedback import is_positive_feedback as is_positive_feedback
from tasks.services.scratch import scratch_get, scratch_put
from tasks.services.structured import OFFLINE_MODEL, StructuredCallFailed, structured_complete
from tenancy.models import Feedback, Message

logger = logging.getLogger(__name__)
_embedding_text = experience_embedding_text  # imported from here by tests/chat/test_policy_overrides.py

HINTED_KEY = "experience_hinted"


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


def _refusal(reason: str) -> dict:
    return {"saved": False, "reason": reason}


def _draft(*, reply: str, question_text: str, state, policy, terms, zh: bool) -> tuple[str, str, str, dict]:
    """(summary, solution, source, dropped) of one liked reply (`reply`: its own text, experience_sources.
    own_solution); summary "" when nothing generic is left."""
    if state is not None:  # the tenant's task type: its name, buckets of the values, its fields and prompt
        summary, solution = experience_task_generalised(state, zh)
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
                user=f"Task: {question_text}\nSolution the user liked: {reply}",
            )
            summary, solution, source = draft.task_summary.strip(), draft.solution, "model"
        except StructuredCallFailed as exc:
            logger.warning("experience generalisation by the model failed, using the rules: %s", exc)
    if source != "model" or clause_private_reason(summary, terms):
        summary = experience_task_kind_summary(question_text or reply[:200])
        if source != "model":
            solution = reply
    steps, dropped = experience_steps(solution, terms=terms, zh=mostly_chinese(solution, latin_per_cjk=8))
    return (summary if steps else ""), steps, source, dropped


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
    question = liked_reply_question(message)
    question_text = question.content if question is not None else ""
    reply, quoted = own_solution(message) if state is None else (message.content, 0)
    if state is None and quoted and not reply:
        return _refusal("the reply only repeated an experience offered as a hint")
    assistant = message.session.assistant
    policy = memory_policy_for(tenant=tenant, assistant=assistant)
    zh = language_of(question_text + reply) == "zh"
    # the user's words in this conversation (the request, and what they said around it) and all their notes
    terms = private_terms_of(tenant=tenant, end_user=end_user, message_texts=user_words_before(message))
    summary, solution, source, dropped = _draft(
        reply=reply, question_text=question_text, state=state, policy=policy, terms=terms, zh=zh
    )
    fingerprint = experience_fingerprint(summary, solution) if summary and solution else ""
    vector = None
    if (
        fingerprint
        and not Experience.objects.for_tenant(tenant).filter(assistant=assistant, fingerprint=fingerprint).exists()
    ):
        vector = embed_texts(texts=[experience_embedding_text(summary)], model=policy.embedding_model)
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
    if is_earlier_version(message):
        return _refusal("the reply was regenerated or edited away since: an earlier version is not learned")
    if reply_was_about_memory(metadata):
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
        model_name, vectors = vector or embed_texts(
            texts=[experience_embedding_text(summary)], model=policy.embedding_model
        )
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


def experiences_visible_to(*, tenant, assistant, end_user, policy: MemoryPolicy):
    """The experiences of `assistant` that `end_user` may be offered: the ones they contributed, and (while the
    tenant shares experiences) those confirmed by `experience_min_users` distinct users or approved by staff.
    `end_user=None`: only the shared ones. `policy`: the caller's effective policy (the turn's)."""
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
    *,
    tenant,
    assistant,
    text: str,
    policy: MemoryPolicy,
    end_user=None,
    limit: int = 3,
    min_similarity: float | None = None,
) -> list[dict]:
    """Experiences `end_user` may be offered (experiences_visible_to) similar to `text`, best first. Cosine
    distance is computed in SQL over vectors of the same embedding model, in this tenant and assistant only.
    `policy`: the caller's effective policy (the turn's)."""
    if min_similarity is None:
        min_similarity = settings.EXPERIENCE_MIN_SIMILARITY
    base = experiences_visible_to(tenant=tenant, assistant=assistant, end_user=end_user, policy=policy).filter(
        embedding__isnull=False
    )
    if not base.exists():
        return []
    model_name, vectors = embed_texts(texts=[experience_embedding_text(text)], model=policy.embedding_model)
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


def experience_turn_hook(
    *, tenant, session, message, policy: MemoryPolicy, prepared: list[dict] | None = None
) -> dict | None:
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
    values = {"task": best["task_summary"], "solution": solution}
    with user_language(zh):
        hint = gettext("From a similar earlier task (%(task)s): %(solution)s") % values
    return {
        "section": "experience",
        "reply_hint": hint,
        "data": {
            "experience_ids": [e["id"] for e in fresh],
            "experiences": [{"id": e["id"], "similarity": e["similarity"]} for e in fresh],
        },
    }


experience_turn_hook.prepare = experience_turn_prepare  # type: ignore[attr-defined]
