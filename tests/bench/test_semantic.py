"""The held-out-style recall sets and their workload (bench/semantic.py): the data keeps its own rules, the
scoring is right, and the tiny profile runs end to end through the REST API and the real worker."""

import json

import pytest
from django.conf import settings

from bench.common import BenchContext, has_cjk
from bench.report import semantic_markdown
from bench.semantic import DATA, BM25Matched, load_jsonl, note_hits, session_scores


def test_the_shipped_jsonl_is_what_the_builder_writes(tmp_path, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_recall_sets", DATA / "build_recall_sets.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    monkeypatch.setattr(builder, "HERE", tmp_path)
    builder.main()
    for name in (
        "recall_notes_zh.jsonl",
        "recall_notes_en.jsonl",
        "recall_cross.jsonl",
        "recall_episodic_en.jsonl",
        "recall_episodic_zh.jsonl",
    ):
        assert (tmp_path / name).read_text() == (DATA / name).read_text(), f"{name} is stale: run the builder"


def test_the_sets_have_the_promised_size_language_and_distractors():
    for lang in ("zh", "en"):
        rows = load_jsonl(f"recall_notes_{lang}.jsonl")
        users = {r["user"] for r in rows}
        assert len(rows) >= 120 and len(users) >= 4 and len({r["content"] for r in rows}) == len(rows)
        assert all(sum(1 for r in rows if r["user"] == u) >= 30 for u in users)
        assert all(has_cjk(r["content"]) == (lang == "zh") for r in rows)
        assert all(has_cjk(q["text"]) == (lang == "zh") for r in rows for q in r["queries"])
        types = [q["type"] for r in rows for q in r["queries"]]
        assert (
            types.count("paraphrase") > 100
            and types.count("overlap") >= 5
            and types.count("dialogue") >= 40
            and types.count("noisy") >= 25
        )
    notes = {r["id"]: r for lang in ("zh", "en") for r in load_jsonl(f"recall_notes_{lang}.jsonl")}
    cross = load_jsonl("recall_cross.jsonl")
    for direction, query_lang in (("en->zh", "en"), ("zh->en", "zh")):
        mine = [r for r in cross if r["direction"] == direction]
        assert len(mine) >= 40
        assert all(
            has_cjk(r["query"]) == (query_lang == "zh")
            and notes[r["target"]]["lang"] != query_lang
            and notes[r["target"]]["user"] == r["user"]
            for r in mine
        )
    for lang in ("en", "zh"):
        users = load_jsonl(f"recall_episodic_{lang}.jsonl")
        questions = [q for u in users for q in u["questions"]]
        assert len(users) >= 3 and len(questions) >= 12
        assert any(len(q["sessions"]) > 1 for q in questions)
        for user in users:
            ids = {s["id"] for s in user["sessions"]}
            assert all(set(q["sessions"]) <= ids for q in user["questions"])
            assert {m["role"] for s in user["sessions"] for m in s["messages"]} == {"user", "assistant"}


def test_note_hits_and_session_scores():
    items = [
        {"type": "note", "id": 3, "content": "a"},
        {"type": "message", "id": 9, "content": "b"},
        *[{"type": "note", "id": 100 + i, "content": f"x{i}"} for i in range(4)],
        {"type": "note", "id": 7, "content": "target"},
    ]
    assert note_hits(items, 3, "zzz") == {"R@5": 1.0, "R@10": 1.0}
    assert note_hits(items, 7, "target") == {"R@5": 0.0, "R@10": 1.0}
    assert note_hits(items, 8, "elsewhere") == {"R@5": 0.0, "R@10": 0.0}
    ranked = [{"s1"}, set(), {"s2"}, {"s2"}, {"s4"}, {"s3"}]
    assert session_scores(ranked, ["s3"]) == {"any@5": 0.0, "all@5": 0.0, "any@10": 1.0, "all@10": 1.0}
    assert session_scores(ranked, ["s1", "s3"]) == {"any@5": 1.0, "all@5": 0.0, "any@10": 1.0, "all@10": 1.0}
    assert session_scores([], ["s1"])["any@10"] == 0.0


def test_bm25_baseline_retrieves_only_what_shares_a_token():
    corpus = ["上个月在杭州跑了马拉松", "Adopted a greyhound named Biscuit", "女儿对牛奶过敏", "Plays the cello"]
    ranked = BM25Matched().rank(corpus, ["孩子能喝牛奶吗", "Is Biscuit hungry?", "What instrument do I play?"], k=10)
    assert ranked[0][0] == 2 and ranked[1] == [1]
    assert ranked[2] == []  # no shared token: nothing retrieved, not the first notes by position


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_tiny_profile_loads_through_the_api_and_scores_every_set(celery_worker):
    from bench.run import PROFILES
    from bench.semantic import run_semantic_recall

    ctx = BenchContext(queue=settings.CELERY_TASK_DEFAULT_QUEUE, log=lambda text: None)
    result = run_semantic_recall(ctx, baselines=("bm25",), **PROFILES["tiny"]["semantic_recall"])
    assert result["errors"] == [] and result["foreign_items"] == 0
    assert result["shadow_tenant"]["notes"] == 12 and result["shadow_tenant"]["sessions"] == 20
    assert result["import_path"] == ["api (POST /api/v1/users/<id>/sessions/)"]
    sets = result["sets"]
    assert set(sets) == {"notes_zh", "notes_en", "cross_en_to_zh", "cross_zh_to_en", "episodic_en", "episodic_zh"}
    for name in ("notes_zh", "notes_en"):
        assert sets[name]["users"] == 1 and sets[name]["notes"] == 6 and sets[name]["queries"] >= 6
        assert 0.0 <= sets[name]["systems"]["BM25 (rank_bm25, same texts)"]["R@10"] <= 1.0
        assert 0.0 <= sets[name]["systems"]["platform"]["R@5"] <= sets[name]["systems"]["platform"]["R@10"] <= 1.0
    assert sets["cross_en_to_zh"]["queries"] >= 1 and sets["cross_zh_to_en"]["queries"] >= 1
    for lang in ("en", "zh"):
        ep = sets[f"episodic_{lang}"]
        assert ep["users"] == 1 and ep["questions"] >= 4
        platform = ep["systems"]["platform"]
        assert platform["all@5"] <= platform["any@5"] and platform["all@5"] <= platform["all@10"]
    assert result["returned"]["asked"] == 10 and result["recall_latency_ms"]["n"] > 0
    assert result["returned_memories_endpoint"]["lists"] == sum(
        sets[name]["queries"] for name in ("notes_zh", "notes_en", "cross_en_to_zh", "cross_zh_to_en")
    )
    assert "platform, GET …/memories/?q=" in sets["notes_zh"]["systems"]
    json.dumps(result)  # the results file can hold it
    text = "\n".join(semantic_markdown(result))
    assert "Chinese dialogue → memory" in text and "English multi-session history" in text


def test_an_item_the_user_does_not_own_is_counted_and_never_scores():
    from bench.semantic import _Recaller

    class Answers:  # the API's answer, fixed: this checks the harness's own bookkeeping
        def get(self, path):
            return 200, {
                "results": [
                    {"type": "note", "id": 41, "content": "the target sentence"},
                    {"type": "message", "id": 7, "session": 99, "content": "x"},
                    {"type": "note", "id": 5, "content": "mine"},
                ]
            }

    recall = _Recaller(Answers(), k=10)
    items = recall("u1", "q", owned_notes={5}, owned_sessions={3})
    assert [i.get("foreign", False) for i in items] == [True, True, False]
    assert len(recall.foreign) == 2 and recall.returned["recall"] == [3]
    assert note_hits(items, 40, "the target sentence")["R@10"] == 0.0  # same words, another user's note
    assert note_hits(items, 5, "")["R@5"] == 1.0
