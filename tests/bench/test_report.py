"""The generated tables say when a workload's figures are of older code than the run named at their top."""

from bench.report import markdown


def test_a_workload_carried_over_from_an_earlier_run_names_the_commit_it_was_measured_at():
    results = {
        "profile": "quick",
        "git": {"short": "new1234"},
        "workloads": {
            "recall_latency": {"skipped": "not measured here", "commit": "old5678"},
            "write_quality": {"skipped": "not measured here", "commit": "new1234"},
        },
    }
    lines = markdown(results).splitlines()
    recall = lines.index("### 1. Recall latency")
    quality = lines.index("### 5. Write quality")
    note = "Measured at commit `old5678`, carried over from an earlier run (not re-run at `new1234`)."
    assert note in lines[recall:quality]
    assert not any("carried over" in line for line in lines[quality:])
