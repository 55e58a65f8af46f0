"""Routing one user message with respect to working memory, behind one interface:

    router.route(text=..., current=<open TaskState or None>, task_types=[...], offered=<TaskState or None>)
        -> Route(kind, task_type, values)

kinds: "continue" (the message fills fields of the current task), "side_question" (anything else while a task is
open: the task is left exactly as it was), "new_task" (start a task type; the current task is paused),
"resume" (go back to an earlier or paused task: "继续做项目计划", "continue the project plan", or yes to an
offer), "cancel", "confirm" (yes to a finished task's result), "none" (no task involved).

`OfflineRouter` is rules; `ModelRouter` asks the tenant's chat model for the same decision as structured output
and falls back to the rules when the model fails. `router_for(policy)` picks one. `routing_inputs` reads what a
decision depends on; the chat turn asks the model over an unlocked read of it (`PreparedRoute`, before any row
lock) and uses the answer under the locks only if those inputs are unchanged (tasks.services.working_memory).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from tasks.models import TaskState, TaskType
from tasks.selectors import OPEN_STATES, task_state_open_or_resumable, task_types_for
from tasks.services.field_extraction import Extracted, bare_answer, fields_extract, is_question
from tasks.services.scratch import scratch_get
from tasks.services.structured import OFFLINE_MODEL, StructuredCallFailed, structured_complete

logger = logging.getLogger(__name__)

OFFER_KEY = "task_offer"  # session scratch: the earlier task we offered to resume

ROUTE_KINDS = ("continue", "side_question", "new_task", "resume", "cancel", "confirm", "none")

CONTINUE = re.compile(
    r"继续|接着|回到|恢复|接上|\b(?:continue|resume|carry on|pick up|get back to|go back to|back to)\b", re.IGNORECASE
)
_CANCEL = re.compile(
    r"取消|不做了|不要了|不用做了|别做了|不弄了|不搞了|放弃|停止|停掉|终止|"
    r"\b(?:cancel|abort|drop|scrap|never mind|call off)\b|"
    r"\bstop(?:ping)?\s+(?:the |this |that |my |our )?(?:\w+\s)?(?:plan|planning|task|project|it)\b",
    re.IGNORECASE,
)
# "another plan", "a new project plan", "再做一个", "新的计划": a second task of a type, not the earlier one again.
ANOTHER = re.compile(
    r"另一个|另外一个|另做|再做一个|再来一个|再做个|新的|新建|新开|重新做|重新开始|换一个|第二个|"
    r"\banother\b|\ba new\b|\bnew one\b|\bsecond\b|\bfresh\b|\bstart over\b|\bfrom scratch\b",
    re.IGNORECASE,
)
_AFFIRM = re.compile(
    r"^\s*(?:好|好的|好啊|好吧|可以|行|确认|没问题|同意|对|是的|要|要的|嗯|继续|ok|okay|yes|yep|yeah|sure|confirm|"
    r"go ahead|sounds good|looks good|let's do it|please do)\b|就按这个|就这样|就这么|按这个来|照这个|确认|"
    r"\b(?:confirm(?:ed)?|go with (?:this|that|it)|approved?|looks good|sounds good)\b",
    re.IGNORECASE,
)
_NEGATE = re.compile(r"^\s*(?:不|别|不用|不要|no\b|nope\b|not\b|don't\b)", re.IGNORECASE)


@dataclass
class Route:
    kind: str
    task_type: TaskType | None = None
    values: dict[str, Extracted] = field(default_factory=dict)
    source: str = "rules"


class Router(Protocol):
    def route(
        self,
        *,
        text: str,
        current: TaskState | None,
        task_types: list[TaskType],
        offered: TaskState | None = None,
        same_session: bool = False,
    ) -> Route: ...


def mentioned_task_type(text: str, task_types: list[TaskType]) -> TaskType | None:
    """The task type whose name or trigger phrase the message names (the longest match wins)."""
    low = (text or "").lower()
    best, best_len = None, 0
    for task_type in task_types:
        for phrase in [task_type.name, *task_type.trigger_phrases]:
            phrase = (phrase or "").strip().lower()
            if phrase and phrase in low and len(phrase) > best_len:
                best, best_len = task_type, len(phrase)
    return best


def is_affirmation(text: str) -> bool:
    return bool(_AFFIRM.search(text or "")) and not _NEGATE.search(text or "")


class OfflineRouter:
    name = "rules"

    def route(self, *, text, current, task_types, offered=None, same_session=False) -> Route:
        mentioned = mentioned_task_type(text, task_types)
        wants_continue = bool(CONTINUE.search(text))
        if mentioned is not None:
            values = fields_extract(text=text, fields=mentioned.required_fields)
            if _CANCEL.search(text):
                return Route("cancel", mentioned)
            same = current is not None and current.task_type_id == mentioned.pk
            if ANOTHER.search(text) and not wants_continue:
                return Route("new_task", mentioned, values)
            if wants_continue or same:
                return Route("resume", mentioned, values)
            return Route("new_task", mentioned, values)
        if current is None:
            if offered is not None and _CANCEL.search(text) and len(text) <= 40:
                return Route("cancel", offered.task_type)
            if offered is not None and ANOTHER.search(text) and not wants_continue:
                return Route("new_task", offered.task_type)
            if offered is not None and (wants_continue or is_affirmation(text)):
                return Route("resume", offered.task_type)
            if wants_continue and len(text) <= 20:
                return Route("resume")
            return Route("none")
        if _CANCEL.search(text) and len(text) <= 30:
            return Route("cancel", current.task_type)
        pending = list(current.pending_fields)
        values = fields_extract(text=text, fields=current.required_fields)
        if values:
            return Route("continue", current.task_type, values)
        if wants_continue and len(text) <= 20:
            return Route("resume", current.task_type)
        if current.state == TaskState.State.WAITING_CONFIRM and is_affirmation(text):
            return Route("confirm", current.task_type)
        if offered is not None and offered.pk == current.pk and is_affirmation(text):
            return Route("resume", current.task_type)
        if same_session and pending and not is_question(text):
            asked = next(f for f in current.required_fields if f["name"] == pending[0])
            value = bare_answer(text, asked)
            if value is not None:
                return Route("continue", current.task_type, {asked["name"]: value})
        return Route("side_question", current.task_type)


class ModelRoute(BaseModel):
    """What the model decides for one message (the JSON schema it must answer with)."""

    route: Literal["continue", "side_question", "new_task", "resume", "cancel", "confirm", "none"]
    task_type: str | None = Field(default=None, description="The task type's exact name, for new_task/resume.")
    fields: dict[str, str] = Field(default_factory=dict, description="Field name -> value the message states.")


_SYSTEM = (
    "You route one user message for an assistant that keeps task state. Answer with JSON only.\n"
    "route: continue = the message gives values for the current task's fields; side_question = anything else "
    "while a task is open (the task must not change); new_task = the user starts one of the task types; "
    "resume = the user wants to go back to a paused or earlier task, or says yes to the offer to continue it; "
    "cancel = the user drops the task; confirm = the user accepts the finished task's result; none = no task.\n"
    "fields: only values the user actually stated, keyed by the exact field name, in the user's words."
)


class ModelRouter:
    """The tenant's chat model classifies; the offline rules fill in field values the model left out and take over
    entirely when the model fails."""

    def __init__(self, model: str):
        self.model = model
        self.name = f"model:{model}"
        self.fallback = OfflineRouter()

    def route(self, *, text, current, task_types, offered=None, same_session=False) -> Route:
        lines = [
            "Task types: "
            + "; ".join(f"{t.name} (fields: {', '.join(f['name'] for f in t.required_fields)})" for t in task_types)
        ]
        if current is not None:
            lines.append(
                f"Current task: {current.task_name}, state {current.state}, collected "
                f"{ {k: v['value'] for k, v in current.collected.items()} }, pending {current.pending_fields}"
            )
        else:
            lines.append("Current task: none")
        if offered is not None:
            lines.append(f"The assistant just offered to continue the earlier task: {offered.task_name}")
        lines.append(f"User message: {text}")
        try:
            answer = structured_complete(model=self.model, system=_SYSTEM, user="\n".join(lines), schema=ModelRoute)
        except StructuredCallFailed as exc:
            logger.warning("task routing by the model failed, using the rules: %s", exc)
            return self.fallback.route(
                text=text, current=current, task_types=task_types, offered=offered, same_session=same_session
            )
        by_name = {t.name: t for t in task_types}
        task_type = by_name.get(answer.task_type or "")
        if answer.route in ("new_task",) and task_type is None:
            return self.fallback.route(
                text=text, current=current, task_types=task_types, offered=offered, same_session=same_session
            )
        if task_type is None:
            task_type = current.task_type if current is not None else (offered.task_type if offered else None)
        if answer.route in ("side_question", "none"):
            return Route("side_question" if current is not None else "none", task_type, {}, "model")
        if task_type is None:
            return Route("resume" if answer.route == "resume" else "none", None, {}, "model")
        allowed = {f["name"] for f in task_type.required_fields}
        values = {k: v for k, v in fields_extract(text=text, fields=task_type.required_fields).items()}
        values.update({k: Extracted(v.strip()) for k, v in answer.fields.items() if k in allowed and v.strip()})
        return Route(answer.route, task_type, values, "model")


@dataclass(frozen=True)
class RoutingInputs:
    """What routing reads before it decides: the task types, the user's open or paused task, the offer made."""

    task_types: list
    found: TaskState | None
    current: TaskState | None
    earlier: TaskState | None
    offered_id: int | None
    offered: TaskState | None

    def key(self) -> tuple:
        """Equal keys: the model would be asked the very same question (and a concurrent turn changed nothing)."""
        found = self.found
        return (
            tuple((t.pk, t.updated_at) for t in self.task_types),
            self.offered_id,
            None if found is None else (found.pk, found.version, found.state, found.session_id),
        )


@dataclass(frozen=True)
class PreparedRoute:
    """The model's routing decision, asked before the turn took any row lock, and what it was asked about."""

    seen_key: tuple
    route: Route


def routing_inputs(*, tenant, session, lock: bool) -> RoutingInputs:
    """What routing reads for `session`'s user; `lock`: the task row is locked for the writes that follow."""
    assistant, end_user = session.assistant, session.end_user
    task_types = task_types_for(tenant=tenant, assistant=assistant)
    found = task_state_open_or_resumable(tenant=tenant, end_user=end_user, assistant=assistant, lock=lock)
    # Working memory belongs to its conversation: a task open in another session is not this one's
    # current task. It is offered as a question ("continue your project plan?"), never continued silently.
    current = found if found is not None and found.state in OPEN_STATES and found.session_id == session.pk else None
    earlier = found if found is not None and found.session_id != session.pk else None
    # What we offered to resume matters only when there is an earlier task to offer.
    offered_id = scratch_get(tenant=tenant, session=session, key=OFFER_KEY) if earlier is not None else None
    offered = earlier if offered_id and earlier is not None and earlier.pk == offered_id else None
    return RoutingInputs(task_types, found, current, earlier, offered_id, offered)


def task_involved(seen: RoutingInputs, text: str) -> bool:
    """The model is asked only when a task is involved (one is open, offered, or named): a turn with no task in
    sight costs no extra model call."""
    return (
        seen.current is not None or seen.offered is not None or mentioned_task_type(text, seen.task_types) is not None
    )


def router_for(*, chat_model: str) -> Router:
    return OfflineRouter() if chat_model in ("", OFFLINE_MODEL) else ModelRouter(chat_model)
