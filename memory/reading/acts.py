"""The typed acts the reader finds in a user's message (memory.reading.reader).

Every consumer (extraction, the pre-turn hooks, pinned facts, the message's vectors) reads these instead of
matching the text again: what a message asks to forget, what must not be kept, what it states.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Forget:
    """Forget what `phrase` names ("my peanut thing"); `sentence` is the request as said."""

    phrase: str
    sentence: str
    topic_wide: bool = False  # "everything about my dog": every note on the topic, not the closest one
    spared: tuple[str, ...] = ()  # what the message says stays ("Jess can stay", "老家无所谓"): memory.reading.sparing


@dataclass(frozen=True)
class OffRecord:
    """A span the user asked not to keep ("off the record, …", "这个别记")."""

    span: str


@dataclass(frozen=True)
class Secret:
    """A sentence carrying a password, PIN, key or code: never stored, like an identifier."""

    span: str


@dataclass(frozen=True)
class Instruction:
    """An instruction to the assistant: `kind` "style" (a form of address, a language, a format: a preference the
    user may keep) or "attack" (changing the assistant's rules, other users' data, the platform's settings: never
    stored, never pinned)."""

    kind: str
    span: str


@dataclass(frozen=True)
class NoFact:
    """A question, hypothetical or request: nothing to keep. `kind`: "hypothetical", or "request" (a text to write,
    translate or correct: what it holds is not the user's; other questions are read by the rules)."""

    kind: str
    span: str


@dataclass
class Reading:
    """What one message says, act by act, and the text whose facts may be kept (`keep`: the message without its
    forget requests, secrets, off-the-record spans, instructions that are attacks and hypotheticals)."""

    text: str
    acts: list = field(default_factory=list)
    keep: str = ""

    def of(self, cls) -> list:
        return [a for a in self.acts if isinstance(a, cls)]

    @property
    def forget(self) -> Forget | None:
        found = self.of(Forget)
        return found[0] if found else None

    @property
    def attack(self) -> bool:
        return any(a.kind == "attack" for a in self.of(Instruction))
