"""Workload 4: retrieval quality on LoCoMo (Maharana et al., ACL 2024), side by side with raw-turn baselines.

The data set is CC BY-NC 4.0: it is read from where it lies (default ../shared/evals/locomo/locomo10.json, or a
path given with --locomo) and never copied into the project.

Protocol (docs/benchmarks.md says the same):
- One tenant; one end user per conversation. Every turn of both speakers is imported as a `user` message
  "<speaker>: <text>" (plus "[shares a photo: <caption>]" when the turn has one), through the import path, with
  the session's date as its timestamp (turn i of a session at date + i minutes) and its dia_id in the message
  metadata. The jobs then extract and compact as after any import; the harness waits until they are done.
- For every question of categories 1-4, `memory_recall(query=question, k=25, touch=False)` runs with a budget
  large enough not to cut the list. Each recalled item maps to dia_ids through its provenance (a note's source
  message ids, a message's own id); the ranked items are flattened into ranked dia_ids (first occurrence kept)
  and the first k dia_ids count. R@k = per-question fraction of evidence ids in the top k, averaged (LoCoMo's
  definition); all@k = share of questions with every evidence id in the top k.
- Baselines over the same turn texts, one conversation at a time: BM25 (rank_bm25.BM25Okapi) and, when the
  package is installed, dense retrieval with the local all-MiniLM-L6-v2 (bench/baselines.py).
- Label defects are cleaned (evals README): ids split on ';'/spaces, 'D:11:26' read as D11:26, 'D30:05' as
  D30:5, ids that name no turn dropped; a question left with no evidence is skipped and counted.
"""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.common import ApiClient, BenchContext, bench_tenant, percentiles, timed_ms

DEFAULT_PATH = Path(__file__).resolve().parent.parent.parent / "shared" / "evals" / "locomo" / "locomo10.json"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
KS = (5, 10, 25)
PUBLISHED_DRAGON = {"R@5": 56.7, "R@10": 66.2, "R@25": 76.7}


def _ablation() -> dict:
    """The platform's fused ranking beside each signal alone (docs/benchmarks.md, section 4)."""
    from dataclasses import replace

    from memory.services.recall.recall import WEIGHTS

    return {
        "platform": WEIGHTS,
        "platform, vector only": replace(WEIGHTS, keyword=0.0, topic=0.0),
        "platform, keyword only": replace(WEIGHTS, vector=0.0),
        "platform, no turn context or distinct slots": replace(WEIGHTS, neighbour=0.0, distinct=False),
        "platform, no relevance feedback": replace(WEIGHTS, feedback=0.0),
    }


_DIA = re.compile(r"^D:?(\d+):0*(\d+)$")


def default_path() -> Path:
    for candidate in (DEFAULT_PATH, Path("/work/shared/evals/locomo/locomo10.json")):
        if candidate.exists():
            return candidate
    return DEFAULT_PATH


def turn_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn.get('text', '')}".strip()
    if turn.get("blip_caption"):
        text += f" [shares a photo: {turn['blip_caption']}]"
    return text


def parse_session_date(value: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware datetime (UTC)."""
    clean = re.sub(r"\s+", " ", value.strip())
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y"):
        try:
            return datetime.strptime(clean, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    raise ValueError(f"unreadable LoCoMo session date: {value!r}")


def load_conversations(path: Path, limit: int | None = None) -> list[dict]:
    """[{id, turns: [{dia_id, text, created_at}], questions: [{question, category, evidence}], skipped}]"""
    raw = json.loads(Path(path).read_text())
    out: list[dict] = []
    for sample in raw[:limit] if limit else raw:
        conv = sample["conversation"]
        turns: list[dict] = []
        numbers = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
        for n in numbers:
            start = parse_session_date(conv[f"session_{n}_date_time"])
            for i, turn in enumerate(conv[f"session_{n}"]):
                turns.append(
                    {
                        "dia_id": normalise_dia_id(turn["dia_id"]) or turn["dia_id"],
                        "text": turn_text(turn),
                        "created_at": start + timedelta(minutes=i),
                    }
                )
        known = {t["dia_id"] for t in turns}
        questions, skipped = [], {"category_5": 0, "no_evidence": 0, "dropped_ids": 0}
        for qa in sample["qa"]:
            if qa.get("category") not in CATEGORIES:
                skipped["category_5"] += 1
                continue
            evidence, dropped = clean_evidence(qa.get("evidence") or [], known)
            skipped["dropped_ids"] += dropped
            if not evidence:
                skipped["no_evidence"] += 1
                continue
            questions.append({"question": qa["question"], "category": qa["category"], "evidence": evidence})
        out.append(
            {
                "id": sample.get("sample_id", f"conv-{len(out)}"),
                "turns": turns,
                "questions": questions,
                "skipped": skipped,
            }
        )
    return out


def normalise_dia_id(value: str) -> str | None:
    match = _DIA.match(value.strip())
    return f"D{int(match.group(1))}:{int(match.group(2))}" if match else None


def clean_evidence(evidence: list, known: set[str]) -> tuple[list[str], int]:
    """The evidence ids that name a turn of this conversation, and how many raw pieces were dropped."""
    kept, dropped = [], 0
    for item in evidence:
        for piece in re.split(r"[;,\s]+", str(item).strip()):
            if not piece:
                continue
            dia = normalise_dia_id(piece)
            if dia and dia in known:
                if dia not in kept:
                    kept.append(dia)
            else:
                dropped += 1
    return kept, dropped


def score(ranked: list[str], evidence: list[str]) -> dict:
    """R@k and all@k of one question, from ranked dia_ids (best first)."""
    gold = set(evidence)
    out = {}
    for k in KS:
        top = set(ranked[:k])
        hit = len(gold & top)
        out[f"R@{k}"] = hit / len(gold)
        out[f"all@{k}"] = 1.0 if hit == len(gold) else 0.0
    return out


def aggregate(rows: list[dict]) -> dict:
    """Mean of the per-question scores, overall and per category, in percent."""

    def mean_of(subset):
        if not subset:
            return None
        keys = [f"{m}@{k}" for m in ("R", "all") for k in KS]
        return {"n": len(subset), **{key: round(100 * sum(r[key] for r in subset) / len(subset), 1) for key in keys}}

    return {
        "overall": mean_of(rows),
        "per_category": {CATEGORIES[c]: mean_of([r for r in rows if r["category"] == c]) for c in CATEGORIES},
    }


def flatten_dia_ids(items, dia_by_message: dict[int, str]) -> list[str]:
    """Recalled items (best first) -> dia_ids (best first, each once) through their provenance."""
    ranked, seen = [], set()
    for item in items:
        ids = list(item.message_ids or [])
        if item.type == "message" and item.id not in ids:
            ids.insert(0, item.id)
        for message_id in ids:
            dia = dia_by_message.get(message_id)
            if dia and dia not in seen:
                seen.add(dia)
                ranked.append(dia)
    return ranked


def run_locomo(
    ctx: BenchContext,
    *,
    path: str | Path | None = None,
    conversations: int | None = None,
    baselines: tuple[str, ...] = ("bm25", "minilm"),
) -> dict:
    from bench import baselines as bl
    from core.policy import memory_policy_for
    from memory.services.recall.recall import memory_recall
    from memory.services.vectors.embeddings import embed_texts
    from tenancy.models import EndUser

    path = Path(path) if path else default_path()
    if not path.exists():
        return {"skipped": f"LoCoMo not found at {path}; pass --locomo PATH"}
    convs = load_conversations(path, conversations)
    tenant, raw_key = bench_tenant("bench-locomo")
    client = ApiClient(raw_key, ctx.base_url)
    started = time.monotonic()
    dia_maps, import_paths = {}, set()
    for conv in convs:
        messages = [
            {
                "role": "user",
                "content": t["text"],
                "created_at": t["created_at"],
                "metadata": {"dia_id": t["dia_id"], "source": "locomo"},
            }
            for t in conv["turns"]
        ]
        imported = import_conversation_checked(client, tenant, conv["id"], messages)
        import_paths.add(imported["path"])
        dia_maps[conv["id"]] = {mid: t["dia_id"] for mid, t in zip(imported["message_ids"], conv["turns"], strict=True)}
    import_s = time.monotonic() - started
    ctx.log(f"locomo: imported {sum(len(c['turns']) for c in convs)} turns in {import_s:.1f}s; waiting for jobs")
    drain_s = ctx.wait_idle(timeout=3600)
    client.close()

    ablation = _ablation()
    systems: dict[str, list[dict]] = {name: [] for name in ablation}
    latencies = []
    policy = memory_policy_for(tenant=tenant)
    for conv in convs:
        end_user = EndUser.objects.for_tenant(tenant).get(external_id=conv["id"])
        for q in conv["questions"]:
            vector = embed_texts(texts=[q["question"]])[1][0]
            for name, weights in ablation.items():
                ms, items = timed_ms(
                    memory_recall,
                    tenant=tenant,
                    end_user=end_user,
                    query=q["question"],
                    policy=policy,
                    k=25,
                    touch=False,
                    weights=weights,
                    query_embedding=vector,
                )
                if name == "platform":
                    latencies.append(ms)
                ranked = flatten_dia_ids(items, dia_maps[conv["id"]])
                systems[name].append({"category": q["category"], **score(ranked, q["evidence"])})
    baseline_info = {}
    for name in baselines:
        retriever = bl.make(name)
        if retriever is None:
            baseline_info[name] = "not installed"
            continue
        t0 = time.monotonic()
        rows = []
        for conv in convs:
            ranked_lists = retriever.rank(
                [t["text"] for t in conv["turns"]], [q["question"] for q in conv["questions"]], k=max(KS)
            )
            for q, ranked_idx in zip(conv["questions"], ranked_lists, strict=True):
                ranked = [conv["turns"][i]["dia_id"] for i in ranked_idx]
                rows.append({"category": q["category"], **score(ranked, q["evidence"])})
        systems[retriever.label] = rows
        baseline_info[name] = f"{retriever.label} ({time.monotonic() - t0:.1f}s)"

    skipped = {key: sum(c["skipped"][key] for c in convs) for key in ("category_5", "no_evidence", "dropped_ids")}
    result: dict[str, Any] = {
        "dataset": str(path),
        "conversations": len(convs),
        "turns": sum(len(c["turns"]) for c in convs),
        "questions": sum(len(c["questions"]) for c in convs),
        "skipped": skipped,
        "import_path": sorted(import_paths),
        "import_seconds": round(import_s, 2),
        "processing_seconds": round(drain_s, 2),
        "recall_latency_ms": percentiles(latencies),
        "systems": {name: aggregate(rows) for name, rows in systems.items()},
        "baselines": baseline_info,
        "published": {"DRAGON (LoCoMo paper, Table 3)": PUBLISHED_DRAGON},
    }
    plat = result["systems"]["platform"]["overall"] or {}
    bm25 = result["systems"].get("BM25 (rank_bm25, raw turns)", {}).get("overall") or {}
    result["targets"] = {
        f"R@{k}": {
            "platform": plat.get(f"R@{k}"),
            "bm25": bm25.get(f"R@{k}"),
            "dragon": PUBLISHED_DRAGON.get(f"R@{k}"),
            "vs_bm25": _diff(plat.get(f"R@{k}"), bm25.get(f"R@{k}")),
            "vs_dragon": _diff(plat.get(f"R@{k}"), PUBLISHED_DRAGON.get(f"R@{k}")),
        }
        for k in KS
    }
    return result


def _diff(a, b):
    return None if a is None or b is None else round(a - b, 1)


def import_conversation_checked(client, tenant, external_id, messages):
    from bench.importing import import_conversation

    imported = import_conversation(
        client=client, tenant=tenant, external_id=external_id, messages=messages, title=f"LoCoMo {external_id}"
    )
    if len(imported["message_ids"]) != len(messages):
        raise RuntimeError(
            f"import of {external_id} returned {len(imported['message_ids'])} ids for {len(messages)} messages"
        )
    return imported
