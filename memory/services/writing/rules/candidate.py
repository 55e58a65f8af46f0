"""The candidate fact, whatever proposes it (the offline rules or the model)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Candidate:
    """One fact the extractor proposes. `quote` is the user's own words it rests on."""

    kind: str
    key: str
    content: str
    value: dict | None
    confidence: float
    source: str = "user_stated"
    quote: str = ""
    hedged: bool = False
    change: bool = False
    whim: bool = False
    unclear: bool = False
    extra: dict = field(default_factory=dict)
