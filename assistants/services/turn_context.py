"""What one chat turn's reply is built from: the type that context assembly returns and the turn stores.

Its own module so that the turn (assistants.services.chat) and context assembly (assistants.services.context)
both import it and neither imports the other back.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TurnContext:
    """What the reply was built from. `messages` is exactly what was sent to the model."""

    messages: list[dict]
    summary: str = ""
    pinned_facts: dict = field(default_factory=dict)
    memories: list = field(default_factory=list)  # list[memory.services.recall.recall.RecalledItem]
    task: dict | None = None
    hints: list[str] = field(default_factory=list)  # reply hints from pre-turn hooks (assistants.services.hooks)
    hint_sections: list[str] = field(default_factory=list)  # the hook section each hint came from, in order
    experience_ids: list[int] = field(default_factory=list)  # experiences offered as hints this turn
    token_count: int = 0
    window_message_ids: list[int] = field(default_factory=list)  # the stored messages sent verbatim
    truncated: bool = False  # the new user message was cut for the model (it is stored intact)
    # How many messages of the session came after the summary and before this turn (None: not counted). Not part
    # of as_dict(): it spares the turn a second count when it decides whether compaction is due.
    unsummarised_before: int | None = None

    def as_dict(self) -> dict:
        """What is stored with the reply (metadata.context) and sent to clients. An experience hint is kept by
        reference (`experiences`: ids), never as text: it was computed for this turn, and the stored message must
        not carry words that came from elsewhere."""
        sections = self.hint_sections if len(self.hint_sections) == len(self.hints) else [""] * len(self.hints)
        own = [(h, s) for h, s in zip(self.hints, sections, strict=True) if s != "experience"]
        return {
            "summary": self.summary,
            "pinned_facts": self.pinned_facts,
            "memories": [m.as_dict() for m in self.memories],
            "task": self.task,
            "hints": [h for h, _ in own],
            "hint_sections": [s for _, s in own],
            "experiences": list(self.experience_ids),
            "token_count": self.token_count,
            "window_message_ids": self.window_message_ids,
            "truncated": self.truncated,
        }
