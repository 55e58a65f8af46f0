"""Recall around a match (memory.services.recall.recall_context): the turn next to a matching one shares its evidence, and
k slots go to k different pieces of evidence while there are any."""

from memory.services.recall.recall import RecalledItem
from memory.services.recall.recall_context import Episode, distinct_first, spread_to_neighbours


def _episode(mid: int, relevance: float) -> Episode:
    return Episode(mid, 1, f"turn {mid}", None, relevance)


def test_the_reply_to_a_matching_turn_joins_with_a_share_of_its_evidence():
    episodes = {1: _episode(1, 1.2), 7: _episode(7, 0.3)}
    # message 2 (the reply to 1, not a candidate itself, cosine 0.1) and message 6 (before 7) come from the SQL
    rows = [(1, 2, 1, "Lisbon, with my sister", None, 0.1), (7, 6, 1, "turn 6", None, 0.2)]
    spread = spread_to_neighbours(episodes, rows, share=0.5, vector_weight=1.0)
    assert spread[2].relevance == 0.1 + 0.5 * 1.2  # its own cosine plus half of the match next to it
    assert spread[2].relevance > spread[7].relevance
    assert spread[1].relevance == 1.2 + 0.5 * 0.1  # lent from the relevances before spreading, one turn only
    assert episodes[1].relevance == 1.2  # the input is not changed


def test_k_slots_go_to_different_evidence_first_and_the_list_stays_k_long():
    def note(nid: int, sources: list[int], text: str) -> RecalledItem:
        return RecalledItem(type="note", id=nid, content=text, score=1.0, message_ids=sources)

    items = [
        note(1, [10], "Has a dog named Max"),
        note(2, [10], "Lives in Berlin"),
        RecalledItem(type="message", id=10, content="My dog Max and I live in Berlin", score=0.9, message_ids=[10]),
        note(3, [11], "Likes hiking"),
        note(4, [], "likes  HIKING"),
        note(5, [12], "Drinks tea"),
    ]
    assert [i.id for i in distinct_first(items, 3)] == [1, 3, 5]
    # fewer distinct pieces than k: the repeats fill the list in their order, so k items still come back
    assert [i.id for i in distinct_first(items, 6)] == [1, 3, 5, 2, 10, 4]
    assert [i.id for i in distinct_first(items, 10)] == [1, 3, 5, 2, 10, 4]
