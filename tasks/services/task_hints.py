"""The reply hints of working memory, in the user's language (`zh`): what the reply must say when a task starts,
progresses, is finished, resumed, offered from another conversation or paused. One line each: hints are lines of
the context (assistants.services.context).

The sentences are gettext msgids (English; the Chinese is in locale/zh_Hans), written inside
`core.i18n.user_language(zh)`. Lists, separators and the lower-cased English task name stay here: they are how
each language joins words, not sentences to translate."""

from __future__ import annotations

from django.utils.translation import gettext as _

from core.i18n import user_language
from tasks.models import TaskState
from tasks.selectors import task_state_completion_prompt, task_state_progress


def join_names(names: list[str], zh: bool) -> str:
    if zh:
        return "、".join(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def task_label(state: TaskState, zh: bool) -> str:
    name = state.task_name
    return name if zh or not name[:1].isupper() or not name.isascii() else name[0].lower() + name[1:]


def recap(state: TaskState, zh: bool, names: list[str] | None = None) -> str:
    names = names if names is not None else [f["name"] for f in state.required_fields if f["name"] in state.collected]
    sep = "：" if zh else ": "
    return ("；" if zh else "; ").join(f"{n}{sep}{state.collected[n]['value']}" for n in names)


def ask_pending(state: TaskState, zh: bool) -> str:
    with user_language(zh):
        return _("I still need the %(fields)s.") % {"fields": join_names(list(state.pending_fields), zh)}


def next_step(state: TaskState, zh: bool) -> str:
    completion = task_state_completion_prompt(state).strip()
    if not completion:
        return ""
    with user_language(zh):
        return _("Next: %(step)s. ") % {"step": completion.rstrip("。" if zh else ".")}


def hint_finished(state: TaskState, zh: bool) -> str:
    """One line (hints are lines of the context): the collected values, what will be produced, and the question."""
    values = {"task": task_label(state, zh), "progress": task_state_progress(state), "recap": recap(state, zh)}
    with user_language(zh):
        return _(
            "I have everything for the %(task)s (%(progress)s): %(recap)s. %(next)sPlease confirm, or tell me what "
            "to change."
        ) % {**values, "next": next_step(state, zh)}


def hint_progress(state: TaskState, zh: bool, filled: list[str]) -> str:
    with user_language(zh):
        if state.state == TaskState.State.WAITING_CONFIRM:
            prefix = _("Noted %(recap)s. ") % {"recap": recap(state, zh, filled)} if filled else ""
            return prefix + hint_finished(state, zh)
        values = {"recap": recap(state, zh, filled), "progress": task_state_progress(state)}
        head = _("Noted %(recap)s (progress %(progress)s). ") % values if filled else ""
        return head + _("Next, what is the %(field)s?") % {"field": state.pending_fields[0]}


def hint_start(state: TaskState, zh: bool, filled: list[str]) -> str:
    if state.state == TaskState.State.WAITING_CONFIRM:
        return hint_finished(state, zh)
    required = [f["name"] for f in state.required_fields]
    with user_language(zh):
        head = _("Sure, let's work on the %(task)s. I need the %(fields)s. ") % {
            "task": task_label(state, zh),
            "fields": join_names(required, zh),
        }
        if filled:
            return head + hint_progress(state, zh, filled)
        return head + _("First, what is the %(field)s?") % {"field": state.pending_fields[0]}


def hint_resume(state: TaskState, zh: bool, filled: list[str]) -> str:
    with user_language(zh):
        if state.state == TaskState.State.WAITING_CONFIRM:
            return _("Sure, back to the %(task)s. ") % {"task": task_label(state, zh)} + hint_finished(state, zh)
        values = {"task": task_label(state, zh), "progress": task_state_progress(state)}
        head = _("Sure, let's continue the %(task)s (progress %(progress)s). ") % values
        told = _("So far you told me: %(recap)s. ") % {"recap": recap(state, zh)} if state.collected else ""
        return head + told + ask_pending(state, zh)


def hint_continue_told(state: TaskState, zh: bool, earlier: list[str]) -> str:
    """The start of a resumed task's hint when the message also filled fields: what the user told before."""
    with user_language(zh):
        return _("Sure, let's continue the %(task)s. So far you told me: %(recap)s. ") % {
            "task": task_label(state, zh),
            "recap": recap(state, zh, earlier),
        }


def hint_offer(state: TaskState, zh: bool, or_new: bool = False) -> str:
    """The question that offers a task from another conversation: it is never continued without a yes."""
    with user_language(zh):
        if state.pending_fields:
            question = _("Your earlier %(task)s still needs the %(fields)s. Shall we continue?") % {
                "task": task_label(state, zh),
                "fields": join_names(list(state.pending_fields), zh),
            }
        else:
            question = _("Your earlier %(task)s is complete and waiting for your confirmation. Shall we continue?") % {
                "task": task_label(state, zh)
            }
        # the question without the new-task choice is a contract (tests)
        return _("%(question)s Or shall I start a new one?") % {"question": question} if or_new else question


def hint_paused(paused: TaskState, zh: bool) -> str:
    with user_language(zh):
        return _('(I paused the %(task)s at %(progress)s; say "continue the %(task)s" any time.) ') % {
            "task": task_label(paused, zh),
            "progress": task_state_progress(paused),
        }


def hint_confirmed(state: TaskState, zh: bool) -> str:
    with user_language(zh):
        return _("Done: the %(task)s is confirmed (%(recap)s).") % {
            "task": task_label(state, zh),
            "recap": recap(state, zh),
        }


def hint_cancelled(state: TaskState, zh: bool) -> str:
    with user_language(zh):
        return _("OK, I cancelled the %(task)s.") % {"task": task_label(state, zh)}


def hint_nothing_to_cancel(task_type_name: str, zh: bool) -> str:
    with user_language(zh):
        return _("There is no %(task)s in progress, so there is nothing to cancel.") % {
            "task": task_type_name if zh else task_type_name.lower()
        }
