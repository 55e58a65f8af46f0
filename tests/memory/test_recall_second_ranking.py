"""The second ranking of an explicit list (memory.services.recall.recall_feedback) re-orders only the first
ranking's best candidates: what it keeps of the first reading."""

from memory.services.recall.recall_feedback import FirstReading
from memory.services.recall.recall_messages import MessageEvidence
from memory.services.recall.recall_types import Candidate, RecalledItem


def _note(note_id: int, sources: list[int]) -> Candidate:
    return Candidate(RecalledItem(type="note", id=note_id, content="", score=1.0, message_ids=sources), 1.0)


def _message(message_id: int) -> Candidate:
    return Candidate(RecalledItem(type="message", id=message_id, content="", score=1.0, message_ids=[message_id]), 1.0)


def _note_row(note_id: int) -> tuple:
    return (note_id, *[None] * 9, 0.5, [])


def _message_row(message_id: int) -> tuple:
    return (message_id, 1, "", None, 0.0, 0.0, 0.5)


def test_the_best_candidates_keep_their_rows_cited_messages_and_neighbours():
    reading = FirstReading(
        count=3,
        has_messages=True,
        note_rows=[_note_row(1), _note_row(2)],
        messages=MessageEvidence(
            rows=[_message_row(m) for m in (10, 11, 12, 13)],
            # (candidate, neighbour, ...): 21 joined next to 12; 22 next to 13
            neighbours=[(12, 21, 1, "", None, 0.4), (13, 22, 1, "", None, 0.1)],
        ),
    )
    # best first: note 1 (citing message 10), the joined neighbour 21, message 11; then note 2, 13, 12
    ranked = [_note(1, [10]), _message(21), _message(11), _note(2, [13]), _message(13), _message(12)]
    kept = reading.only_best(ranked, 3)
    assert [row[0] for row in kept.note_rows] == [1]
    # 10: cited by the kept note; 11: kept itself; 12: the match next to which 21 joined (its evidence)
    assert [row[0] for row in kept.messages.rows] == [10, 11, 12]
    assert [row[:2] for row in kept.messages.neighbours] == [(12, 21)]
    assert kept.count == 3 and kept.has_messages
    # the reading itself is not changed, and keeping more than there are keeps everything
    assert len(reading.messages.rows) == 4
    everything = reading.only_best(ranked, 100)
    assert everything.note_rows == reading.note_rows and everything.messages.rows == reading.messages.rows
