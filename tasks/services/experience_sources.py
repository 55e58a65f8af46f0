"""What experience memory (tasks.services.experience) learns from: the user's own problem and the assistant's own
solution, nothing else.

- The problem is the user's current message before the liked reply: a wording the user edited away since is an
  earlier version (assistants.services.alternatives) and never reaches a model again, nor does a liked reply that
  was regenerated or edited away since (`is_earlier_version`).
- The solution is the reply without what it quoted of an experience offered as a hint in its conversation
  (`own_solution`): the offline model repeats every hint verbatim, and a model asked to use a hint often does. Learnt
  as it was, such a reply made a copy of the other experience, or a confirmation of it that nobody gave
  independently; experiences then copied each other and piled up confirmations.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.utils.translation import gettext, override

from memory.models import Experience
from tasks.services.experience_privacy import GENERIC_ZH_SHINGLES, shingles_en, shingles_zh
from tenancy.models import MESSAGE_REPLACED_KEY, Message

# The earlier replies of the conversation whose hints a reply may still quote (the window carries them).
HINTED_REPLIES_READ = 100
_HINT = "From a similar earlier task (%(task)s): %(solution)s"  # as tasks.services.experience.experience_turn_hook
# A clause: cut at sentence ends, commas, semicolons, colons and line breaks; the separators are kept.
_PIECES = re.compile(r"([。！？!?；;，,：:\n]+|(?<=[.])\s+)")
_NOISE = re.compile(r"[\W_]+")


def is_earlier_version(message: Message) -> bool:
    """Whether `message` was replaced by another version (edited and resent, regenerated), or is being replaced."""
    return MESSAGE_REPLACED_KEY in (message.metadata or {})


def liked_reply_question(message: Message) -> Message | None:
    """The user's current message that the reply `message` answered (an edited-away wording is not it)."""
    return (
        Message.objects.for_tenant(message.tenant_id)
        .filter(session_id=message.session_id, role=Message.Role.USER, id__lt=message.pk)
        .exclude(metadata__has_key=MESSAGE_REPLACED_KEY)
        .order_by("-id")
        .first()
    )


def user_words_before(message: Message, *, limit: int = 50) -> list[str]:
    """What the user said in the conversation before the reply `message`, newest first, at most `limit` messages:
    the words an experience learnt from the reply must not repeat. Earlier versions count too: words the user
    edited away are still theirs."""
    return list(
        Message.objects.for_tenant(message.tenant_id)
        .filter(session_id=message.session_id, role=Message.Role.USER, id__lt=message.pk)
        .order_by("-id")
        .values_list("content", flat=True)[:limit]
    )


def reply_was_about_memory(metadata: dict) -> bool:
    """A reply that said what the assistant remembers or forgot of this user is about them, never a procedure."""
    context = metadata.get("context") or {}
    return "memory" in (context.get("hint_sections") or []) or bool(context.get("memory_command"))


def _hinted_texts(message: Message) -> list[str]:
    """The task summaries and solutions of the experiences offered as hints in the reply's conversation up to the
    reply (stored by id with each reply: assistants.services.turn_context.TurnContext.as_dict)."""
    contexts = (
        Message.objects.for_tenant(message.tenant_id)
        .filter(session_id=message.session_id, role=Message.Role.ASSISTANT, id__lte=message.pk)
        .order_by("-id")
        .values_list("metadata__context__experiences", flat=True)[:HINTED_REPLIES_READ]
    )
    ids = {i for found in contexts if isinstance(found, list) for i in found if isinstance(i, int)}
    if not ids:
        return []
    rows = Experience.objects.for_tenant(message.tenant_id).filter(pk__in=ids).values_list("task_summary", "solution")
    return [text for row in rows for text in row if text]


def _hint_leads() -> list[str]:
    """How a hint begins, in every language of the platform ("From a similar earlier task")."""
    leads = []
    for code, _name in settings.LANGUAGES:
        with override(code):
            lead = gettext(_HINT).split("%(task)s")[0].rstrip(" (（")
        if lead:
            leads.append(lead.lower())
    return leads


def _plain(text: str) -> str:
    return _NOISE.sub("", text.lower())


def own_solution(message: Message) -> tuple[str, int]:
    """The reply `message` without the clauses that quote a hint of experience memory: a clause that begins a hint,
    that is part of a hinted experience's text, or that shares four words (four characters in Chinese) in a row
    with it. Returns the text left ("" for the offline model's reply once a hint is taken out) and the count of
    clauses taken out."""
    hinted = _hinted_texts(message)
    plain_hinted = [_plain(text) for text in hinted]
    zh, en = set(), set()
    for text in hinted:
        zh |= shingles_zh(text) - GENERIC_ZH_SHINGLES  # the task vocabulary is no quote
        en |= shingles_en(text)
    leads = _hint_leads()
    pieces = _PIECES.split(message.content or "")
    kept: list[str] = []
    dropped = 0
    for clause, separator in zip(pieces[::2], [*pieces[1::2], ""], strict=True):
        plain = _plain(clause)
        quoted = bool(plain) and (
            any(lead in clause.lower() for lead in leads)
            or any(plain in text for text in plain_hinted)
            or bool(shingles_zh(clause) & zh or shingles_en(clause) & en)
        )
        if quoted:
            dropped += 1
            kept.append("\n" if "\n" in separator else "")  # the line it ended still ends here
        else:
            kept.append(clause + separator)
    if dropped and _offline(message):  # besides its context, the offline model only says it is offline
        return "", dropped
    return "".join(kept).strip(" ，,；;：:\n"), dropped


def _offline(message: Message) -> bool:
    model = str((message.metadata or {}).get("model", ""))
    return model == "offline" or model.endswith("->offline")
