"""LongMemEval_S's arithmetic and its reading (bench/longmemeval.py): which questions count, what their evidence
is, how recalled items become ranked turns and sessions, and the metrics, checked by hand."""

import json
import lzma
import math

import pytest

from bench.longmemeval import (
    Census,
    Turn,
    aggregate,
    evaluable_questions,
    evidence,
    parse_date,
    ranked_turns_and_sessions,
    read_questions,
    score,
    user_turns,
)


def _question(qid, qtype, sessions, answer_ids, dates=None):
    ids = [sid for sid, _ in sessions]
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": "What did I buy?",
        "answer": "a kayak",
        "answer_session_ids": answer_ids,
        "haystack_session_ids": ids,
        "haystack_dates": dates or ["2023/05/20 (Sat) 07:47"] * len(ids),
        "haystack_sessions": [turns for _, turns in sessions],
    }


def _u(text, has_answer=False):
    return {"role": "user", "content": text, "has_answer": has_answer}


def _a(text, has_answer=False):
    return {"role": "assistant", "content": text, "has_answer": has_answer}


def test_ndcg_uses_longmemevals_dcg_and_recall_any_all_at_k():
    # evidence at ranks 2 and 4 of 10: DCG = 1/log2(2) + 1/log2(4) = 1.5; ideal (two hits) = 1 + 1 = 2
    ranked = ["x1", "g1", "x2", "g2", "x3", "x4", "x5", "x6", "x7", "x8"]
    s = score(ranked, {"g1", "g2"})
    assert s["ndcg@10"] == pytest.approx(0.75)
    assert (s["any@5"], s["all@5"], s["any@10"], s["all@10"]) == (1.0, 1.0, 1.0, 1.0)
    # one of three evidence ids at rank 3, another at rank 7: in the top 10 but only one in the top 5
    s = score(["x1", "x2", "g1", "x3", "x4", "x5", "g2"], {"g1", "g2", "g3"})
    assert (s["any@5"], s["all@5"], s["any@10"], s["all@10"]) == (1.0, 0.0, 1.0, 0.0)
    ideal = 1 + 1 + 1 / math.log2(3)
    assert s["ndcg@10"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(7)) / ideal)
    assert score([], {"g1"}) == {"any@5": 0.0, "all@5": 0.0, "any@10": 0.0, "all@10": 0.0, "ndcg@10": 0.0}
    agg = aggregate([{"type": "multi-session", **s}, {"type": "knowledge-update", **score(["g"], {"g"})}])
    assert agg["overall"]["n"] == 2 and agg["overall"]["any@10"] == 100.0 and agg["overall"]["all@10"] == 50.0
    assert agg["per_type"]["knowledge-update"]["ndcg@10"] == 100.0 and agg["per_type"]["temporal-reasoning"] is None


def test_evidence_is_the_answer_sessions_user_turns_and_abstention_or_assistant_only_evidence_is_left_out(tmp_path):
    kept = _question(
        "q1",
        "multi-session",
        [
            ("s1", [_u("I bought a kayak", True), _a("Nice!")]),
            ("answer_a", [_u("hello"), _a("hi"), _u("It was red", True)]),
            ("answer_b", [_u("hi"), _a("You said the kayak was red", True)]),  # evidence of the assistant only
        ],
        ["answer_a", "answer_b"],
    )
    assert evidence(kept) == ({"answer_a"}, {"answer_a#2"})  # s1 is no answer session, answer_b has no user turn
    abstention = {**kept, "question_id": "q2_abs"}
    assistant_only = _question(
        "q3", "single-session-assistant", [("answer_c", [_u("hi"), _a("x", True)])], ["answer_c"]
    )
    second = {**kept, "question_id": "q4"}
    path = tmp_path / "lme.json.xz"
    with lzma.open(path, "wt") as f:
        json.dump([kept, abstention, assistant_only, second], f)
    census = Census()
    chosen = [q["question_id"] for q in evaluable_questions(read_questions(path), census, per_type=1)]
    assert chosen == ["q1"]  # one per type; the file is still counted to its end
    assert census.as_dict() == {
        "questions": 4,
        "abstention": 1,
        "no_user_evidence": 1,
        "evaluable": 2,
        "evaluable_by_type": {"multi-session": 2},
    }


def test_user_turns_keep_the_session_date_skip_repeats_and_empty_turns():
    q = _question(
        "q1",
        "temporal-reasoning",
        [("s1", [_a("hi"), _u("first"), _a("ok"), _u("  ")]), ("s2", [_u("second")]), ("s1", [_u("first")])],
        [],
        dates=["2023/05/20 (Sat) 07:47", "2023/01/02 (Mon) 10:00", "2023/05/20 (Sat) 07:47"],
    )
    sessions, left_out = user_turns(q)
    assert [[t.id for t in s] for s in sessions] == [["s1#1"], ["s2#0"]]
    assert sessions[0][0].created_at == parse_date("2023/05/20 (Sat) 07:48")  # turn 1: the date + 1 minute
    assert left_out == {"repeated_session": 1, "empty_turn": 1}


def test_recalled_items_become_turns_and_sessions_in_order_of_first_appearance():
    t = {
        10: Turn("s1#0", "s1", "", parse_date("2023/05/20 (Sat) 07:47")),
        11: Turn("s1#2", "s1", "", parse_date("2023/05/20 (Sat) 07:49")),
        20: Turn("s2#0", "s2", "", parse_date("2023/05/21 (Sun) 07:47")),
    }
    items = [
        {"type": "note", "id": 5, "session": 102, "message_ids": [20, 10]},
        {"type": "message", "id": 11, "session": 101, "message_ids": []},
        {"type": "message", "id": 10, "session": 101, "message_ids": [10]},
        {"type": "note", "id": 6, "session": 103, "message_ids": [999]},  # a note whose sources are not turns
    ]
    turns, sessions = ranked_turns_and_sessions(items, t, {101: "s1", 102: "s2", 103: "s3"})
    assert turns == ["s2#0", "s1#0", "s1#2"]
    assert sessions == ["s2", "s1", "s3"]


def test_abstention_questions_are_taken_apart_and_what_the_recall_said_is_counted():
    """With `abstention`, the _abs questions come too (the first per_type of each type), never as evaluable; the
    figures count `nothing_relevant` on them, and on answerable ones whether an evidence turn is among the items the
    recall called relevant."""
    from bench.longmemeval import Imported, _abstention_figures, _what_recall_said

    answer = [("s1", [_u("I bought a kayak", True)])]
    questions = [
        _question("q1", "single-session-user", answer, ["s1"]),
        _question("q2_abs", "single-session-user", answer, ["s1"]),
        _question("q3_abs", "single-session-user", answer, ["s1"]),
    ]
    census = Census()
    assert [q["question_id"] for q in evaluable_questions(iter(questions), census, 1)] == ["q1"]
    census = Census()
    taken = [q["question_id"] for q in evaluable_questions(iter(questions), census, 1, abstention=True)]
    assert taken == ["q1", "q2_abs"] and census.abstention == 2 and sum(census.evaluable.values()) == 1

    turn = Turn("s1#0", "s1", "I bought a kayak", parse_date("2023/05/20 (Sat) 07:47"))

    def imported(qid, abstention):
        gold = set() if abstention else {"s1#0"}
        return Imported(qid, "single-session-user", "q", "u", {"s1"}, gold, {7: turn}, {3: "s1"}, {}, abstention)

    kept = {"nothing_relevant": False, "results": [{"type": "message", "id": 7, "session": 3, "relevant": True}]}
    weak = {"nothing_relevant": True, "results": [{"type": "message", "id": 7, "session": 3, "relevant": False}]}
    said = [
        _what_recall_said(imported("a1", False), kept),
        _what_recall_said(imported("a2", False), weak),
        _what_recall_said(imported("x1", True), weak),
        _what_recall_said(imported("x2", True), kept),
        _what_recall_said(imported("x3", True), weak),
    ]
    figures = _abstention_figures(said)
    assert figures["abstention_questions"] == 3 and figures["abstention_nothing_relevant"] == round(100 * 2 / 3, 1)
    assert figures["answerable_questions"] == 2 and figures["answerable_evidence_kept"] == 50.0
    assert figures["answerable_nothing_relevant"] == 50.0
    # a recall that does not say (an older server): no figure, not a zero
    assert (
        _abstention_figures([_what_recall_said(imported("x4", True), {"results": []})])["abstention_nothing_relevant"]
        is None
    )
