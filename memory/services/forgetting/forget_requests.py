"""Recognising a memory command in a message: "忘掉我之前说的咖啡偏好", "please wipe what you saved about my pet".

Text only, no database: extraction, imports and re-reading skip these messages (a request to forget is not a
fact to remember), and the pre-turn hooks act on them (memory.services.writing.commands, assistants.services.forgetting).
Whether a message is one is the reader's decision (memory.reading: the encoder against the labelled bank, with
cue words as features); the imperative patterns below only cut the named thing out of the common direct forms
("forget that I drink coffee" -> "I drink coffee"), and the reader's phrase is used for every other form.
"""

from __future__ import annotations

import re

from memory.reading import message_read
from memory.reading.phrases import forget_phrase

_ZH_SAID = r"(?:(?:我)?(?:之前|以前|刚才|上次|曾经)?(?:说的|说过的|提到的|提过的|讲的|告诉你的))"
FORGET_PATTERNS = [
    # 忘掉/忘记/别记 + what: "忘掉我之前说的咖啡偏好", "别再记我的住址"
    re.compile(
        rf"^(?:请|麻烦|帮我)?(?:你)?(?:忘掉|忘记|别再?记(?:住|着)?|不要再?记(?:住|着)?)(?:掉)?{_ZH_SAID}?(?:关于)?(?P<t>.+)$"
    ),
    # 删掉/删除/清除 only with a reference to what was said or remembered: "删掉我说过的预算"
    re.compile(
        rf"^(?:请|麻烦|帮我)?(?:删掉|删除|清除|清掉)(?:{_ZH_SAID}|你记(?:住)?的|(?:关于)?.*?的记忆)(?:关于)?(?P<t>.+)$"
    ),
    # the 把 form: "把我之前说的咖啡偏好忘掉吧"
    re.compile(rf"^(?:请|麻烦|帮我)?把{_ZH_SAID}?(?:关于)?(?P<t>.+?)(?:忘掉|忘了|忘记|删掉|删了|删除)(?:吧|吗)?$"),
    re.compile(
        r"^(?:please\s+|can you\s+|could you\s+)*(?:forget|stop remembering|don't remember)\s+"
        r"(?:that\s+|about\s+|what\s+i\s+(?:said|told you)\s+(?:about\s+)?)?(?P<t>.+)$",
        re.IGNORECASE,
    ),
    re.compile(
        r"^(?:please\s+|can you\s+|could you\s+)*(?:delete|erase|remove)\s+(?:what\s+i\s+(?:said|told you)|"
        r"(?:the\s+)?(?:note|memory|memories)|everything you know)\s+(?:about\s+)?(?P<t>.+)$",
        re.IGNORECASE,
    ),
]


def _direct_target(sentence: str) -> str | None:
    sentence = (sentence or "").strip().rstrip("。.!！?？")
    for pattern in FORGET_PATTERNS:
        m = pattern.search(sentence)
        if m:
            target = m.group("t").strip(" ，,。.!！吧吗")
            return target or None
    return None


def forget_target(text: str) -> str | None:
    """What a forget request names ("咖啡偏好", "I drink coffee", "my pet"), or None if the message is not one."""
    act = message_read(text or "").forget
    if act is None:
        return None
    direct = _direct_target(act.sentence)
    if direct and act.phrase and not forget_phrase(direct):
        direct = None  # "Forget all of that.": "that" is the reader's phrase, what was said before it
    if direct and act.phrase and act.phrase in direct:
        return act.phrase  # "forget the thing about my brother": the reader's phrase is the tighter cut
    return direct or act.phrase or act.sentence  # "forget that": the whole request


def is_memory_command(text: str) -> bool:
    """True when the message asks to forget something: no fact to remember, whatever else it says."""
    return message_read(text or "").forget is not None
