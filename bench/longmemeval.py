"""Workload 9: retrieval on LongMemEval_S (Wu et al., ICLR 2025), through the REST API, beside BM25.

The data set is MIT-licensed and large (40 MB xz, 257 MB of JSON): it is read from where it lies (default
../shared/evals/longmemeval/longmemeval_s.json.xz, or a path given with --longmemeval), never copied into the
project, and streamed (lzma + ijson), so only one question's haystack is in memory at a time.

Protocol: the retrieval protocol of the LongMemEval repository (src/retrieval/run_retrieval.py, eval_utils.py):
- The corpus is the **user turns** of the question's haystack. Evidence: at turn level the user turns with
  `has_answer` in its answer sessions; at session level the answer sessions that hold such a turn (the official
  script renames the others `noans`: an answer session whose evidence lies in assistant turns only is not
  evidence of a user-turn retriever).
- Evaluable: not an abstention question (`_abs`) and at least one evidence turn: 418 questions (the issue's
  figure). The file at hand holds 498 questions (the paper counts 500); left out are the 30 abstention
  questions and 50 single-session-assistant questions whose evidence lies in assistant turns only (5 of that
  type have a user evidence turn as well and are kept).
- One tenant per run, one new end user per question (`lme-<question_id>`): each haystack session is imported
  with `POST /api/v1/users/<id>/sessions/` (its user turns, turn i of the session at the session's date + i
  minutes); a session id that recurs in a haystack is imported once, and the few empty user turns are left
  out. When every question is imported the harness waits until the import jobs are done, then asks
  `GET /api/v1/users/<id>/recall/?q=<question>&k=50` for each question.
- Turn ranking: the recalled items (best first) mapped to turns through their provenance (a message's own id, a
  note's source messages), each turn once. Session ranking: the items mapped to their sessions the same way,
  each session once, in order of first appearance.
- recall_any@k: some evidence among the first k; recall_all@k: all of it; nDCG@10 with LongMemEval's DCG (the
  first two ranks weigh 1, rank r > 2 weighs 1/log2(r)). Overall and per question type, in percent.
- BM25 (bench/baselines.py) over the same user turns of the same question in the same run, all turns ranked.
"""

from __future__ import annotations

import lzma
import math
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from bench.common import ApiClient, BenchContext, bench_tenant, percentiles

DEFAULT_PATH = (
    Path(__file__).resolve().parent.parent.parent / "shared" / "evals" / "longmemeval" / "longmemeval_s.json.xz"
)
# The paper's order; single-session-assistant keeps only 5 evaluable questions (its evidence is the assistant's).
QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)
KS = (5, 10)
NDCG_K = 10
RECALL_K = 50  # enough items for 10 distinct turns and, mostly, 10 distinct sessions
METRICS = tuple(f"{m}@{k}" for k in KS for m in ("any", "all")) + (f"ndcg@{NDCG_K}",)
_DATE = re.compile(r"^(\d{4})/(\d{2})/(\d{2}) \(\w+\) (\d{2}):(\d{2})$")


def default_path() -> Path:
    for candidate in (DEFAULT_PATH, Path("/work/shared/evals/longmemeval/longmemeval_s.json.xz")):
        if candidate.exists():
            return candidate
    return DEFAULT_PATH


def parse_date(value: str) -> datetime:
    """'2023/05/20 (Sat) 07:47' -> an aware datetime (UTC)."""
    match = _DATE.match(value.strip())
    if not match:
        raise ValueError(f"unreadable LongMemEval date: {value!r}")
    year, month, day, hour, minute = (int(g) for g in match.groups())
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def read_questions(path: Path) -> Iterator[dict]:
    """The file's question objects, one at a time (the file is a JSON list; xz-compressed when it ends in .xz)."""
    import ijson

    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rb") as f:
        yield from ijson.items(f, "item")


def turn_id(session_id: str, index: int) -> str:
    """A turn's name: its session's id and its position in the session (both roles counted, from 0)."""
    return f"{session_id}#{index}"


def evidence(question: dict) -> tuple[set[str], set[str]]:
    """(evidence sessions, evidence turns) under the user-turn protocol (module docstring)."""
    answer = set(question["answer_session_ids"])
    sessions, turns = set(), set()
    for session_id, session in zip(question["haystack_session_ids"], question["haystack_sessions"], strict=True):
        if session_id not in answer:
            continue
        for i, turn in enumerate(session):
            if turn["role"] == "user" and turn.get("has_answer"):
                sessions.add(session_id)
                turns.add(turn_id(session_id, i))
    return sessions, turns


@dataclass
class Census:
    """What the file holds: how many questions, and why the others are not evaluable."""

    questions: int = 0
    abstention: int = 0
    no_user_evidence: int = 0
    evaluable: Counter = field(default_factory=Counter)

    def as_dict(self) -> dict:
        return {
            "questions": self.questions,
            "abstention": self.abstention,
            "no_user_evidence": self.no_user_evidence,
            "evaluable": sum(self.evaluable.values()),
            "evaluable_by_type": {t: self.evaluable[t] for t in QUESTION_TYPES if self.evaluable[t]},
        }


def evaluable_questions(
    questions: Iterator[dict], census: Census, per_type: int | None = None, abstention: bool = False
) -> Iterator[dict]:
    """The evaluable questions in file order, the first `per_type` of each type (all when None), and with
    `abstention` the abstention questions too, the first `per_type` of each type (abstention_question tells
    them). Reads to the end of the file either way, so `census` counts all of it once the iterator is exhausted."""
    taken: Counter = Counter()
    for question in questions:
        census.questions += 1
        if abstention_question(question):
            census.abstention += 1
            kind = ("abstention", question["question_type"])
            if abstention and (per_type is None or taken[kind] < per_type):
                taken[kind] += 1
                yield question
            continue
        if not evidence(question)[1]:
            census.no_user_evidence += 1
            continue
        kind = question["question_type"]
        census.evaluable[kind] += 1
        if per_type is None or taken[kind] < per_type:
            taken[kind] += 1
            yield question


def abstention_question(question: dict) -> bool:
    """A question whose answer the haystack does not hold (the right answer is to say so): its id ends in _abs."""
    return question["question_id"].endswith("_abs")


@dataclass
class Turn:
    id: str
    session: str
    content: str
    created_at: datetime


def user_turns(question: dict) -> tuple[list[list[Turn]], Counter]:
    """The haystack's user turns, session by session, and what was left out (a repeated session, an empty turn)."""
    sessions: list[list[Turn]] = []
    seen: set[str] = set()
    left_out: Counter[str] = Counter()
    for session_id, date, session in zip(
        question["haystack_session_ids"], question["haystack_dates"], question["haystack_sessions"], strict=True
    ):
        if session_id in seen:
            left_out["repeated_session"] += 1
            continue
        seen.add(session_id)
        start, turns = parse_date(date), []
        for i, turn in enumerate(session):
            if turn["role"] != "user":
                continue
            if not turn["content"].strip():
                left_out["empty_turn"] += 1
                continue
            turns.append(Turn(turn_id(session_id, i), session_id, turn["content"], start + timedelta(minutes=i)))
        if turns:
            sessions.append(turns)
    return sessions, left_out


def dcg(relevances: list[int]) -> float:
    """LongMemEval's DCG (eval_utils.dcg): rel_1 + sum over r >= 2 of rel_r / log2(r)."""
    return sum(rel if r == 1 else rel / math.log2(r) for r, rel in enumerate(relevances, start=1))


def score(ranked: list[str], gold: set[str]) -> dict:
    """recall_any@k, recall_all@k and nDCG@10 of one ranking (ids best first, each once) against the evidence."""
    out = {}
    for k in KS:
        top = set(ranked[:k])
        out[f"any@{k}"] = 1.0 if gold & top else 0.0
        out[f"all@{k}"] = 1.0 if gold <= top else 0.0
    ideal = dcg([1] * min(len(gold), NDCG_K))
    out[f"ndcg@{NDCG_K}"] = dcg([1 if x in gold else 0 for x in ranked[:NDCG_K]]) / ideal if ideal else 0.0
    return out


def aggregate(rows: list[dict]) -> dict:
    """Mean of the per-question scores in percent, overall and per question type."""

    def mean_of(subset: list[dict]) -> dict | None:
        if not subset:
            return None
        return {"n": len(subset), **{m: round(100 * sum(r[m] for r in subset) / len(subset), 1) for m in METRICS}}

    return {
        "overall": mean_of(rows),
        "per_type": {t: mean_of([r for r in rows if r["type"] == t]) for t in QUESTION_TYPES},
    }


def ranked_turns_and_sessions(
    items: list[dict], turn_of_message: dict[int, Turn], session_of_api: dict[int, str]
) -> tuple[list[str], list[str]]:
    """Recalled items (best first) -> (turn ids, session ids), each once, in order of first appearance.

    An item stands for its own message (a message item) and its source messages (`message_ids`); its `session`
    names a session too when none of its messages is one of the imported turns."""
    turns: dict[str, None] = {}
    sessions: dict[str, None] = {}
    for item in items:
        ids = list(item.get("message_ids") or [])
        if item.get("type") == "message" and item.get("id") not in ids:
            ids.insert(0, item.get("id"))
        mine = [turn_of_message[m] for m in ids if m in turn_of_message]
        for turn in mine:
            turns.setdefault(turn.id)
            sessions.setdefault(turn.session)
        if not mine and item.get("session") in session_of_api:
            sessions.setdefault(session_of_api[item["session"]])
    return list(turns), list(sessions)


@dataclass
class Imported:
    """One question once its haystack is in: what scoring needs, without the haystack's texts."""

    question_id: str
    type: str
    question: str
    user: str
    evidence_sessions: set[str]
    evidence_turns: set[str]
    turn_of_message: dict[int, Turn]
    session_of_api: dict[int, str]
    bm25: dict
    abstention: bool = False


def _import_haystack(client: ApiClient, tenant, user: str, sessions: list[list[Turn]]) -> tuple[dict, dict, str]:
    """Every session through the import endpoint. Returns ({message id: turn}, {API session id: session id}, path)."""
    from bench.importing import import_conversation

    turn_of_message: dict[int, Turn] = {}
    session_of_api: dict[int, str] = {}
    path = ""
    for turns in sessions:
        messages = [{"role": "user", "content": t.content, "created_at": t.created_at} for t in turns]
        imported = import_conversation(
            client=client, tenant=tenant, external_id=user, messages=messages, title=f"LongMemEval {turns[0].session}"
        )
        if len(imported["message_ids"]) != len(turns):
            raise RuntimeError(
                f"import of {user}/{turns[0].session} returned {len(imported['message_ids'])} ids for {len(turns)}"
            )
        turn_of_message.update(zip(imported["message_ids"], turns, strict=True))
        session_of_api[imported["session_id"]] = turns[0].session
        path = imported["path"]
    return turn_of_message, session_of_api, path


def _bm25_scores(retriever, sessions: list[list[Turn]], question: str, gold_sessions, gold_turns) -> dict:
    corpus = [t for turns in sessions for t in turns]
    ranked_idx = retriever.rank([t.content for t in corpus], [question], k=len(corpus))[0]
    turns = [corpus[i] for i in ranked_idx]
    return {
        "session": score(list(dict.fromkeys(t.session for t in turns)), gold_sessions),
        "turn": score(list(dict.fromkeys(t.id for t in turns)), gold_turns),
    }


def run_longmemeval(
    ctx: BenchContext, *, path: str | Path | None = None, per_type: int | None = None, recall_k: int = RECALL_K
) -> dict:
    """Import each chosen question's haystack as a new end user, recall for the question, score it beside BM25
    over the same user turns (module docstring). `per_type`: the first N evaluable questions of each type."""
    from bench import baselines as bl

    path = Path(path) if path else default_path()
    if not path.exists():
        return {"skipped": f"LongMemEval_S not found at {path}; pass --longmemeval PATH"}
    bm25 = bl.make("bm25")
    if bm25 is None:
        return {"skipped": "rank-bm25 is not installed (requirements-test.txt)"}
    tenant, raw_key = bench_tenant("bench-longmemeval")
    client = ApiClient(raw_key, ctx.base_url)
    census, left_out, paths = Census(), Counter[str](), set()
    pending: list[Imported] = []
    n_turns = n_sessions = 0
    started = time.monotonic()
    for question in evaluable_questions(read_questions(path), census, per_type, abstention=True):
        sessions, skipped = user_turns(question)
        left_out.update(skipped)
        gold_sessions, gold_turns = evidence(question)
        unanswerable = abstention_question(question)
        user = f"lme-{question['question_id']}"
        turn_of_message, session_of_api, import_path = _import_haystack(client, tenant, user, sessions)
        paths.add(import_path)
        n_turns += len(turn_of_message)
        n_sessions += len(session_of_api)
        pending.append(
            Imported(
                question_id=question["question_id"],
                type=question["question_type"],
                question=question["question"],
                user=user,
                evidence_sessions=gold_sessions,
                evidence_turns=gold_turns,
                turn_of_message=turn_of_message,
                session_of_api=session_of_api,
                bm25={}
                if unanswerable
                else _bm25_scores(bm25, sessions, question["question"], gold_sessions, gold_turns),
                abstention=unanswerable,
            )
        )
        if len(pending) % 10 == 0:
            ctx.log(f"longmemeval: {len(pending)} questions imported ({n_turns:,} turns)")
    import_s = time.monotonic() - started
    ctx.log(f"longmemeval: {len(pending)} questions, {n_turns:,} user turns imported in {import_s:.1f}s; waiting")
    drain_s = ctx.wait_idle(timeout=max(1800.0, 30.0 * len(pending)))

    t0 = time.monotonic()
    latencies: list[float] = []
    returned: list[tuple[int, int, int]] = []
    foreign, errors = 0, []
    said: list[dict] = []
    rows: dict[str, dict[str, list[dict]]] = {name: {"session": [], "turn": []} for name in ("platform", bm25.label)}
    for q in pending:
        r0 = time.perf_counter()
        status, body = client.get(
            f"/api/v1/users/{quote(q.user, safe='')}/recall/?{urlencode({'q': q.question, 'k': recall_k})}"
        )
        latencies.append((time.perf_counter() - r0) * 1000)
        items = (body.get("results") or []) if status == 200 else []
        if status != 200:
            errors.append(f"recall for {q.user}: HTTP {status} {str(body)[:200]}")
        foreign += sum(1 for item in items if item.get("session") not in q.session_of_api)
        said.append(_what_recall_said(q, body if status == 200 else {}))
        if q.abstention:
            continue
        ranked_turns, ranked_sessions = ranked_turns_and_sessions(items, q.turn_of_message, q.session_of_api)
        returned.append((len(items), len(ranked_turns), len(ranked_sessions)))
        rows["platform"]["session"].append({"type": q.type, **score(ranked_sessions, q.evidence_sessions)})
        rows["platform"]["turn"].append({"type": q.type, **score(ranked_turns, q.evidence_turns)})
        for level in ("session", "turn"):
            rows[bm25.label][level].append({"type": q.type, **q.bm25[level]})
    recall_s = time.monotonic() - t0
    client.close()
    answerable = [q for q in pending if not q.abstention]
    n = len(answerable)
    result: dict[str, Any] = {
        "dataset": str(path),
        "census": census.as_dict(),
        "per_type_limit": per_type,
        "questions": n,
        "question_ids": [q.question_id for q in answerable],
        "abstention": _abstention_figures(said),
        "sessions": n_sessions,
        "turns": n_turns,
        "left_out": dict(left_out),
        "import_path": sorted(paths),
        "import_seconds": round(import_s, 1),
        "processing_seconds": round(drain_s, 1),
        "recall_seconds": round(recall_s, 1),
        "seconds_per_question": round((import_s + drain_s + recall_s) / len(pending), 2) if pending else None,
        "recall_k": recall_k,
        "recall_latency_ms": percentiles(latencies),
        "returned": {
            "mean_items": round(sum(r[0] for r in returned) / n, 1) if n else None,
            "mean_turns": round(sum(r[1] for r in returned) / n, 1) if n else None,
            "mean_sessions": round(sum(r[2] for r in returned) / n, 1) if n else None,
            "fewer_than_10_sessions": sum(1 for r in returned if r[2] < NDCG_K),
        },
        "foreign_items": foreign,
        "errors": errors,
        "systems": {name: {level: aggregate(r) for level, r in levels.items()} for name, levels in rows.items()},
    }
    return result


def _what_recall_said(q: Imported, body: dict) -> dict:
    """Whether the recall said it found nothing relevant, and, for an answerable question, whether an evidence turn
    is among the items it called relevant (the ones an integrator keeps in a prompt)."""
    relevant = [item for item in body.get("results") or [] if item.get("relevant")]
    turns, _sessions = ranked_turns_and_sessions(relevant, q.turn_of_message, q.session_of_api)
    return {
        "abstention": q.abstention,
        "nothing_relevant": body.get("nothing_relevant"),
        "evidence_kept": None if q.abstention else bool(set(turns) & q.evidence_turns),
        "all_evidence_kept": None if q.abstention else q.evidence_turns <= set(turns),
    }


def _abstention_figures(said: list[dict]) -> dict:
    """What the recall's relevance says, in percent: of the abstention questions, how many got
    `nothing_relevant`; of the answerable ones, how many kept an evidence turn (all of it) among the items called
    relevant, and how many got `nothing_relevant` wrongly."""

    def share(rows: list[dict], key: str) -> float | None:
        known = [r[key] for r in rows if r[key] is not None]
        return round(100 * sum(map(bool, known)) / len(known), 1) if known else None

    unanswerable = [r for r in said if r["abstention"]]
    answerable = [r for r in said if not r["abstention"]]
    return {
        "abstention_questions": len(unanswerable),
        "abstention_nothing_relevant": share(unanswerable, "nothing_relevant"),
        "answerable_questions": len(answerable),
        "answerable_evidence_kept": share(answerable, "evidence_kept"),
        "answerable_all_evidence_kept": share(answerable, "all_evidence_kept"),
        "answerable_nothing_relevant": share(answerable, "nothing_relevant"),
    }
