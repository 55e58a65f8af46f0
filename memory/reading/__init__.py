"""The reader of a user's message: typed acts (a forget, off the record, a secret, an instruction, a hypothetical)
and the text whose facts may be kept, read once and consumed by extraction, the pre-turn hooks and pinned facts.

Offline it is the shipped multilingual encoder against a bilingual bank of labelled examples, with cue words as
features (memory.reading.intents); the target of a forget is found by meaning among the user's notes, and when
two notes are about equally close the turn asks (memory.reading.targets). Facts themselves are read from the
kept text by memory.services.writing.rules (offline) or the connected model (memory.services.writing.extraction).
"""

from memory.reading.acts import Forget, Instruction, NoFact, OffRecord, Reading, Secret
from memory.reading.reader import message_read
from memory.reading.targets import Targeting, user_notes_targeted

__all__ = [
    "Forget",
    "Instruction",
    "NoFact",
    "OffRecord",
    "Reading",
    "Secret",
    "Targeting",
    "message_read",
    "user_notes_targeted",
]
