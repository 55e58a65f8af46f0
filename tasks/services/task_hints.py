"""The reply hints of working memory, in the user's language (`zh`): what the reply must say when a task starts,
progresses, is finished, resumed, offered from another conversation or paused. One line each: hints are lines of
the context (assistants.services.context)."""

from __future__ import annotations

from tasks.models import TaskState
from tasks.selectors import task_state_progress


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
    pending = list(state.pending_fields)
    if zh:
        return f"还需要你告诉我{join_names(pending, True)}。"
    return f"I still need the {join_names(pending, False)}."


def next_step(state: TaskState, zh: bool) -> str:
    completion = (state.task_type.completion_prompt if state.task_type_id else "").strip()
    if not completion:
        return ""
    return f"下一步：{completion.rstrip('。')}。" if zh else f"Next: {completion.rstrip('.')}. "


def hint_finished(state: TaskState, zh: bool) -> str:
    """One line (hints are lines of the context): the collected values, what will be produced, and the question."""
    if zh:
        return (
            f"{task_label(state, zh)}的信息已齐全（{task_state_progress(state)}）：{recap(state, zh)}。"
            f"{next_step(state, zh)}请确认是否就按这个来，或告诉我要修改的地方。"
        )
    return (
        f"I have everything for the {task_label(state, zh)} ({task_state_progress(state)}): {recap(state, zh)}. "
        f"{next_step(state, zh)}Please confirm, or tell me what to change."
    )


def hint_progress(state: TaskState, zh: bool, filled: list[str]) -> str:
    if state.state == TaskState.State.WAITING_CONFIRM:
        prefix = (
            (f"已记下{recap(state, zh, filled)}。" if zh else f"Noted {recap(state, zh, filled)}. ") if filled else ""
        )
        return prefix + hint_finished(state, zh)
    progress = task_state_progress(state)
    if zh:
        head = f"已记下{recap(state, zh, filled)}（进度 {progress}）。" if filled else ""
        return head + f"接下来请告诉我{state.pending_fields[0]}。"
    head = f"Noted {recap(state, zh, filled)} (progress {progress}). " if filled else ""
    return head + f"Next, what is the {state.pending_fields[0]}?"


def hint_start(state: TaskState, zh: bool, filled: list[str]) -> str:
    if state.state == TaskState.State.WAITING_CONFIRM:
        return hint_finished(state, zh)
    required = [f["name"] for f in state.required_fields]
    if zh:
        head = f"好的，我们来做{task_label(state, zh)}，需要：{join_names(required, True)}。"
    else:
        head = f"Sure, let's work on the {task_label(state, zh)}. I need the {join_names(required, False)}. "
    if filled:
        return head + hint_progress(state, zh, filled)
    return head + (f"请先告诉我{state.pending_fields[0]}。" if zh else f"First, what is the {state.pending_fields[0]}?")


def hint_resume(state: TaskState, zh: bool, filled: list[str]) -> str:
    if state.state == TaskState.State.WAITING_CONFIRM:
        return (
            f"好的，继续{task_label(state, zh)}。" if zh else f"Sure, back to the {task_label(state, zh)}. "
        ) + hint_finished(state, zh)
    progress = task_state_progress(state)
    if zh:
        head = f"好的，继续{task_label(state, zh)}（进度 {progress}）。"
        told = f"你之前告诉了我：{recap(state, zh)}。" if state.collected else ""
    else:
        head = f"Sure, let's continue the {task_label(state, zh)} (progress {progress}). "
        told = f"So far you told me: {recap(state, zh)}. " if state.collected else ""
    return head + told + ask_pending(state, zh)


def hint_offer(state: TaskState, zh: bool, or_new: bool = False) -> str:
    """The question that offers a task from another conversation: it is never continued without a yes."""
    new_zh = "还是新建一个？" if or_new else ""
    new_en = " Or shall I start a new one?" if or_new else ""  # the question without it is a contract (tests)
    if state.pending_fields:
        if zh:
            return (
                f"你之前的{task_label(state, zh)}还差{join_names(list(state.pending_fields), True)}，要继续吗？{new_zh}"
            )
        return (
            f"Your earlier {task_label(state, zh)} still needs the {join_names(list(state.pending_fields), False)}. "
            f"Shall we continue?{new_en}"
        )
    if zh:
        return f"你之前的{task_label(state, zh)}信息已齐全，还等你确认，要继续吗？{new_zh}"
    return f"Your earlier {task_label(state, zh)} is complete and waiting for your confirmation. Shall we continue?{new_en}"


def hint_paused(paused: TaskState, zh: bool) -> str:
    if zh:
        return f"（{paused.task_name}已暂停保存，进度 {task_state_progress(paused)}，随时说“继续{paused.task_name}”就能回来。）"
    return (
        f'(I paused the {task_label(paused, zh)} at {task_state_progress(paused)}; say "continue the '
        f'{task_label(paused, zh)}" any time.) '
    )
