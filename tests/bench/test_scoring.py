"""The harness's arithmetic and its shipped data set: wrong here means every published figure is wrong."""

import json
import re
import unicodedata

from bench.common import percentiles
from bench.locomo import aggregate, clean_evidence, flatten_dia_ids, normalise_dia_id, score
from bench.write_quality import DATA, load_dataset, pii_leaks
from memory.services.recall.recall import RecalledItem


def test_recall_at_k_is_the_per_question_fraction_of_evidence_in_the_top_k():
    ranked = ["D1:1", "D1:2", "D2:5", "D3:1", "D3:2", "D4:4", "D5:1"]
    s = score(ranked, ["D2:5", "D5:1"])
    assert s["R@5"] == 0.5 and s["all@5"] == 0.0
    assert s["R@10"] == 1.0 and s["all@10"] == 1.0
    agg = aggregate([{"category": 1, **s}, {"category": 4, **score(["D9:9"], ["D1:1"])}])
    assert agg["overall"]["R@5"] == 25.0 and agg["per_category"]["multi-hop"]["R@10"] == 100.0
    assert agg["per_category"]["temporal"] is None


def test_locomo_label_defects_are_cleaned():
    known = {"D8:6", "D9:17", "D9:1", "D4:4", "D4:6", "D11:26", "D30:5"}
    assert clean_evidence(["D8:6; D9:17"], known) == (["D8:6", "D9:17"], 0)
    assert clean_evidence(["D9:1 D4:4 D4:6"], known) == (["D9:1", "D4:4", "D4:6"], 0)
    assert clean_evidence(["D"], known) == ([], 1)
    assert clean_evidence(["D:11:26", "D30:05"], known) == (["D11:26", "D30:5"], 0)
    assert clean_evidence(["D10:19"], known) == ([], 1)  # a turn that does not exist
    assert normalise_dia_id("D3:07") == "D3:7"


def test_recalled_items_map_to_dia_ids_through_provenance_in_rank_order():
    dia = {10: "D1:1", 11: "D1:2", 12: "D1:3", 13: "D2:1"}
    items = [
        RecalledItem(type="note", id=99, content="", score=0.9, message_ids=[12, 10]),
        RecalledItem(type="message", id=11, content="", score=0.8),
        RecalledItem(type="message", id=12, content="", score=0.7, message_ids=[12]),
        RecalledItem(type="note", id=98, content="", score=0.6, message_ids=[404]),
    ]
    assert flatten_dia_ids(items, dia) == ["D1:3", "D1:1", "D1:2"]


def test_percentiles_use_nearest_rank():
    p = percentiles([float(i) for i in range(1, 101)])
    assert (p["p50"], p["p95"], p["p99"], p["n"]) == (50.0, 95.0, 99.0, 100)
    assert percentiles([])["p95"] is None


def test_pii_is_found_whatever_its_formatting():
    haystacks = ["用户手机 １３８－００１３－８０００", "mail: Jenny.Ross+Shop@gmail.com", "budget 400000"]
    assert pii_leaks(["138 0013 8000", "jenny.ross+shop@gmail.com", "13912345678"], haystacks) == [
        "138 0013 8000",
        "jenny.ross+shop@gmail.com",
    ]


def test_a_chinese_address_is_found_by_its_characters_not_by_its_number_alone():
    """A Chinese address or name keeps its characters in the comparison: "科苑路15号" is not "found" in a note
    about a budget of 15 万, and is found when a note holds it, spaced or not."""
    assert pii_leaks(["科苑路15号", "张伟"], ["用户的预算为 15 万元。", "amount 12000"]) == []
    assert pii_leaks(["科苑路15号", "张伟"], ["店在科苑路 15 号", "联系人张伟"]) == ["科苑路15号", "张伟"]


def _luhn_ok(number: str) -> bool:
    digits = [int(d) for d in number][::-1]
    return sum(d if i % 2 == 0 else (d * 2 - 9 if d * 2 > 9 else d * 2) for i, d in enumerate(digits)) % 10 == 0


def _cn_id_ok(number: str) -> bool:
    weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return "10X98765432"[sum(int(d) * w for d, w in zip(number[:17], weights, strict=True)) % 11] == number[17].upper()


def test_the_write_quality_set_is_large_balanced_and_labelled():
    rows = load_dataset()
    assert len(rows) >= 300
    langs = {lang: sum(r["lang"] == lang for r in rows) for lang in ("en", "zh")}
    assert langs["en"] == langs["zh"]
    for category in ("durable", "whim", "smalltalk", "pii", "hedge", "correction", "repeat"):
        assert sum(r["category"] == category for r in rows) >= 20, category
    ids = {r["id"]: r for r in rows}
    assert len(ids) == len(rows)
    for r in rows:
        assert r["lang"] == "zh" or not re.search(r"[\u4e00-\u9fff]", r["text"]), r["id"]
        for value in r["pii"]:
            assert value in r["text"], r["id"]
        if r["supersedes"]:
            assert ids[r["supersedes"]]["user"] == r["user"] and ids[r["supersedes"]]["key"] == r["key"]
        if r["write"]:
            assert r["kind"] in {"profile", "preference", "plan", "business_status", "constraint", "conclusion"}
    formats = [v for r in rows for v in r["pii"]]
    assert any("\u3000" in v for v in formats) and any("－" in v for v in formats)  # full-width spaces, dashes
    assert any(re.search(r"[０-９]", v) for v in formats)
    numbers = [re.sub(r"[^0-9X]", "", unicodedata.normalize("NFKC", v).upper()) for v in formats]
    ids = [n for n in numbers if len(n) == 18 and n[:17].isdigit()]
    assert len(ids) >= 4 and all(_cn_id_ok(n) for n in ids)
    assert [n for n in numbers if len(n) in (16, 19) and n.startswith(("4", "5", "62"))] and all(
        _luhn_ok(n) for n in numbers if len(n) in (16, 19) and n.startswith(("4", "5", "62"))
    )
    assert DATA.read_text().count("\n") == len(rows)
    assert all(json.loads(line) for line in DATA.read_text().splitlines())
