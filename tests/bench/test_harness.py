"""The harness end to end on tiny inputs, against the test database and the real test worker, so that it cannot
rot while the layers it measures change. Sizes are tiny: these tests check that every workload runs and reports
figures that mean something, not the figures themselves."""

import json

import pytest
from django.conf import settings

from bench.common import BenchContext
from bench.report import markdown, write_plots

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def ctx(celery_worker):
    return BenchContext(queue=settings.CELERY_TASK_DEFAULT_QUEUE, log=lambda text: None)


def _locomo_file(tmp_path):
    """Two sessions in LoCoMo's format, with a category-5 question and two of its label defects."""
    conv = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "Hi Ben, I adopted a greyhound called Pixel last week!"},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Congrats! I started pottery classes on Tuesdays."},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "Nice. I'm still working as a nurse at the city hospital."},
        ],
        "session_2_date_time": "10:04 am on 20 June, 2023",
        "session_2": [
            {
                "speaker": "Ben",
                "dia_id": "D2:1",
                "text": "My pottery teacher says my vases improved a lot.",
                "blip_caption": "a photo of a blue vase",
            },
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Pixel loves the beach near our flat."},
        ],
    }
    qa = [
        {"question": "What is the name of Ana's greyhound?", "answer": "Pixel", "evidence": ["D1:1"], "category": 4},
        {
            "question": "When does Ben take pottery classes?",
            "answer": "Tuesdays",
            "evidence": ["D1:2; D2:1"],
            "category": 1,
        },
        {"question": "Where does Ana work?", "answer": "city hospital", "evidence": ["D1:03", "D9:9"], "category": 4},
        {"question": "What is Ben's favourite opera?", "answer": "", "evidence": [], "category": 5},
    ]
    path = tmp_path / "locomo_tiny.json"
    path.write_text(json.dumps([{"sample_id": "conv-test", "conversation": conv, "qa": qa}]))
    return path


def test_locomo_workload_imports_scores_and_runs_the_bm25_baseline(ctx, tmp_path):
    from bench.locomo import run_locomo

    result = run_locomo(ctx, path=_locomo_file(tmp_path), baselines=("bm25",))
    assert result["turns"] == 5 and result["questions"] == 3
    assert result["skipped"] == {"category_5": 1, "no_evidence": 0, "dropped_ids": 1}
    bm25 = result["systems"]["BM25 (rank_bm25, raw turns)"]["overall"]
    assert bm25["n"] == 3 and bm25["R@5"] == 100.0  # five turns: everything is in the top 5
    platform = result["systems"]["platform"]["overall"]
    assert platform["n"] == 3 and 0 <= platform["R@25"] <= 100
    assert result["targets"]["R@10"]["dragon"] == 66.2


def test_every_other_workload_runs_on_tiny_inputs_and_the_report_is_written(ctx, tmp_path):
    from bench.latency import run_recall_latency
    from bench.metering import run_metering_overhead
    from bench.throughput import run_job_throughput
    from bench.tokens import run_token_cost
    from bench.turns import run_api_throughput, run_turn_overhead
    from bench.write_quality import run_write_quality

    shared = {}
    workloads = {
        "recall_latency": run_recall_latency(ctx, sizes=(60, 300), queries=6, keep_store=shared),
    }
    workloads["turn_overhead"] = run_turn_overhead(ctx, store=shared["store"], turns=5)
    workloads["metering_overhead"] = run_metering_overhead(ctx, turns=5)
    workloads["api_throughput"] = run_api_throughput(ctx)
    workloads["token_cost"] = run_token_cost(ctx, turns=6, checkpoints=(3, 6), languages=("zh",))
    workloads["write_quality"] = run_write_quality(ctx, limit_per_category=1)
    workloads["job_throughput"] = run_job_throughput(
        ctx, extraction_messages=4, compaction_sessions=1, import_messages=10
    )

    steps = workloads["recall_latency"]["steps"]
    assert [s["notes"] for s in steps] == [60, 300]
    typical = steps[-1]["typical user (100 notes)"]
    assert typical["bare_sql_ms"]["n"] > 0 and typical["bare_sql_ms"]["p95"] > 0
    # a returning user (a past conversation, so the messages side runs too) is measured beside them
    returning = [g for who, g in steps[-1].items() if who.startswith("returning user")]
    assert len(returning) == 1 and returning[0]["recall_ms"]["n"] > 0 and returning[0]["empty_results"] == 0
    assert workloads["turn_overhead"]["heavy user"]["assembly_ms"]["n"] == 2
    assert workloads["api_throughput"] == {"skipped": "no API server in this run"}
    for tenant in ("no limits set", "limits at every scope"):  # the turn's metering calls were found and timed
        metered = workloads["metering_overhead"][tenant]
        assert metered["in_turn_ms"]["n"] == 2 and metered["in_turn_ms"]["p50"] > 0, metered
    zh = workloads["token_cost"]["languages"]["zh"]["checkpoints"]
    assert zh["3"]["sent"] > 0 and zh["6"]["full_history"] > zh["3"]["full_history"]
    wq = workloads["write_quality"]
    assert wq["utterances"] >= 14 and wq["pii_values"] >= 2
    jobs = workloads["job_throughput"]
    assert jobs["extraction"]["jobs"] == 4 and jobs["import"]["messages"] == 10

    results = {
        "profile": "test",
        "git": {"short": "test"},
        "machine": {},
        "database": {},
        "settings": {},
        "workloads": workloads,
    }
    text = markdown(results)
    assert "### 1. Recall latency" in text and "### 5. Write quality" in text and "### 6. Job throughput" in text
    assert "### 12. Metering's cost to a chat turn" in text
    plots = write_plots(results, tmp_path)
    assert set(plots) == {"recall_latency.png", "tokens.png"}
    assert all((tmp_path / p).stat().st_size > 1000 for p in plots)
