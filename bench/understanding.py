"""Workload 9: does the platform understand what people mean? The labelled set bench/data/understanding_*.jsonl
(written apart from the code: bench/data/understanding_README.md), run through the chat turn as a user would.

Each case is one new end user: their existing notes are written first (the kind and slot the platform's lexicon
gives the sentence), the assistant's previous reply is stored when the case has one, then each message is sent
through `chat_turn` and its extraction job is run (the same job the worker runs; it is idempotent, so the worker's
copy finds the message already extracted). The end state is scored per category:
- forget: exactly the named notes are gone (ambiguous cases: the reply asks which one and nothing is gone);
  over-forgetting counts every note removed that the request did not name;
- correction: the named note is replaced by one holding the new words; a mere mention replaces nothing and adds
  nothing;
- off_record / secret: the words never reach a note (any status), a pinned fact or a summary; a durable fact
  said beside them is kept;
- no_fact: nothing is written; restatement: at most one note about the fact, and at least one;
- instruction: a style preference is kept, an attack leaves no note and no pinned fact;
- meaning: a note keeps the user's predicate and object (`contains`, one of each `any_of` group).
The reader's own time per message (its cache cleared, the message's embedding already computed, as in a turn)
is reported beside it. The test half is scored once per round: `--understanding-half test`.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path

from bench.common import BenchContext, bench_tenant, percentiles
from core.policy import memory_policy_for

DATA = Path(__file__).resolve().parent / "data"
CATEGORIES = ("forget", "correction", "off_record", "no_fact", "restatement", "secret", "instruction", "meaning")


def load_cases(half: str = "dev", limit_per_category: int | None = None) -> list[dict]:
    rows = [
        json.loads(line) for line in (DATA / f"understanding_{half}.jsonl").read_text().splitlines() if line.strip()
    ]
    if not limit_per_category:
        return rows
    seen: defaultdict[tuple, int] = defaultdict(int)
    kept = []
    for row in rows:
        bucket = (row["category"], row["lang"])
        if seen[bucket] < limit_per_category:
            seen[bucket] += 1
            kept.append(row)
    return kept


def _has(text: str, word: str) -> bool:
    return word.lower() in (text or "").lower()


def _seed(*, tenant, end_user, notes: list[str]) -> list:
    from memory.services.notes.notes import memory_note_create
    from memory.services.writing.topics import topics_in

    seeded = []
    for content in notes:
        topics = topics_in(content)
        topic = topics[0] if topics else None
        seeded.append(
            memory_note_create(
                tenant=tenant,
                end_user=end_user,
                kind=topic.kind if topic else "profile",
                key=topic.slot if topic else "",
                content=content,
                source="user_stated",
                confidence=0.85,
                actor="bench:seed",
                policy=memory_policy_for(tenant=tenant),
            )
        )
    return seeded


def run_case(*, tenant, case: dict, index: int) -> dict:
    """Play one case; returns what the scorer needs (the seeded ids, the user's notes after, pinned, hints)."""
    from assistants.services.chat import chat_session_start, chat_turn
    from assistants.services.tenants import end_user_get_or_create
    from memory.models import MemoryNote
    from memory.services.writing.extraction import memory_extract_for_message
    from tenancy.models import ChatSession, Message

    end_user = end_user_get_or_create(tenant=tenant, external_id=f"u{index}-{case['id']}"[:120])
    seeded = _seed(tenant=tenant, end_user=end_user, notes=case.get("notes") or [])
    session = chat_session_start(tenant=tenant, end_user=end_user)
    if case.get("previous_reply"):
        Message.objects.for_tenant(tenant).create(
            tenant=tenant,
            session=session,
            end_user=end_user,
            role=Message.Role.ASSISTANT,
            content=case["previous_reply"],
        )
    hints, asked = [], False
    for text in case["messages"]:
        result = chat_turn(tenant=tenant, session=session, text=text)
        hints += list(result.context.hints or [])
        asked = asked or any((h.get("data") or {}).get("ask") for h in _hook_data(result))
        memory_extract_for_message(tenant_id=tenant.pk, message_id=result.user_message.pk)
    notes = list(MemoryNote.objects.for_tenant(tenant).filter(end_user=end_user))
    sessions = list(ChatSession.objects.for_tenant(tenant).filter(end_user=end_user))
    return {
        "seeded": [n.pk for n in seeded],
        "notes": notes,
        "pinned": json.dumps([s.pinned_facts for s in sessions], ensure_ascii=False),
        "summary": " ".join(s.summary or "" for s in sessions),
        "hints": hints,
        "asked": asked,
    }


def _hook_data(result) -> list[dict]:
    """The memory hooks' results of a turn, as kept on the user's message (memory_command, forget_ask)."""
    metadata = result.user_message.metadata or {}
    return [{"data": {"ask": metadata.get("forget_ask")}}] if metadata.get("forget_ask") else []


def score_case(case: dict, played: dict) -> dict:
    """{"right": bool, "over_forgot": int, "secret_stored": bool, "duplicate": bool, "why": str}."""
    from memory.models import MemoryNote

    s = MemoryNote.Status
    expect = case["expect"]
    seeded = played["seeded"]
    by_id = {n.pk: n for n in played["notes"]}
    alive = {pk for pk in seeded if by_id.get(pk) and by_id[pk].status in (s.ACTIVE, s.PENDING_REVIEW)}
    gone = [i for i, pk in enumerate(seeded) if pk not in alive]
    new = [n for n in played["notes"] if n.pk not in seeded]
    new_active = [n for n in new if n.status in (s.ACTIVE, s.PENDING_REVIEW)]
    active = [n for n in played["notes"] if n.status in (s.ACTIVE, s.PENDING_REVIEW)]
    every_text = " ".join(
        [
            n.content + " " + (n.quote or "") + " " + json.dumps(n.value or {}, ensure_ascii=False)
            for n in played["notes"]
        ]
    )
    stored_text = every_text + " " + played["pinned"] + " " + played["summary"]
    out = {"right": False, "over_forgot": 0, "secret_stored": False, "duplicate": False, "why": ""}
    category = case["category"]
    if category == "forget":
        wanted = set(expect.get("forget") or [])
        out["over_forgot"] = len(set(gone) - wanted)
        if expect.get("ask"):
            out["right"] = played["asked"] and not gone
        else:
            out["right"] = set(gone) == wanted and not played["asked"]
        out["why"] = f"gone {gone}, asked {played['asked']}"
    elif category == "correction":
        if expect.get("update") is None:
            out["right"] = not gone and not new_active
            out["why"] = f"gone {gone}, new {[n.content for n in new_active]}"
        else:
            replaced = expect["update"] not in [i for i, pk in enumerate(seeded) if pk in alive]
            holds = any(all(_has(n.content, w) for w in expect.get("contains") or []) for n in new_active)
            out["right"] = replaced and holds
            out["why"] = f"replaced {replaced}, new {[n.content for n in new_active]}"
    elif category in ("off_record", "secret"):
        leaked = [w for w in expect.get("not_stored") or [] if _has(stored_text, w)]
        kept = all(any(_has(n.content, w) for n in active) for w in expect.get("contains") or [])
        out["right"] = not leaked and kept
        out["secret_stored"] = category == "secret" and bool(leaked)
        out["why"] = f"leaked {leaked}, kept {kept}, new {[n.content for n in new_active]}"
    elif category == "no_fact":
        out["right"] = not new
        out["why"] = f"new {[n.content for n in new]}"
    elif category == "restatement":
        about = [n for n in active if any(_has(n.content, w) for w in expect.get("about") or [])]
        out["right"] = 1 <= len(about) <= expect.get("max_notes_about", 1)
        out["duplicate"] = len(about) > expect.get("max_notes_about", 1)
        out["why"] = f"about {[n.content for n in about]}"
    elif category == "instruction":
        if expect.get("kind") == "attack":
            out["right"] = not new and played["pinned"] in ("[{}]", "[]")
        else:
            out["right"] = any(all(_has(n.content, w) for w in expect.get("contains") or []) for n in new_active)
        out["why"] = f"new {[n.content for n in new]}, pinned {played['pinned']}"
    elif category == "meaning":
        out["right"] = any(
            all(_has(n.content, w) for w in expect.get("contains") or [])
            and all(any(_has(n.content, w) for w in group) for group in expect.get("any_of") or [])
            for n in new_active
        )
        out["why"] = f"new {[n.content for n in new_active]}"
    return out


def reader_latency(cases: list[dict]) -> dict:
    """The offline reader's own time per message: its cache cleared, the message's embedding already computed."""
    from memory.reading import message_read
    from memory.services.vectors.embeddings import SENTENCE_MODEL, embed_texts, recent_vectors_clear

    message_read("warm-up: forget my coffee preference")
    samples = []
    for case in cases:
        for text in case["messages"]:
            recent_vectors_clear()  # no sentence of it is known to the encoder but the message itself
            embed_texts(texts=[text], model=SENTENCE_MODEL)  # the turn's recall has embedded the message
            message_read.cache_clear()
            t0 = time.perf_counter()
            message_read(text)
            samples.append((time.perf_counter() - t0) * 1000)
    return percentiles(samples)


def secrets_scored(half: str) -> dict:
    """The secret guard on bench/data/secrets_<half>.jsonl (written apart from the code; the test half once a
    round): values that survive the redaction or the reader's kept text, facts beside them kept, look-alikes
    redacted."""
    from memory.reading import message_read
    from memory.reading.secrets import secret_spans
    from memory.services.identifiers.pii import pii_redacted_text

    rows = [json.loads(line) for line in (DATA / f"secrets_{half}.jsonl").read_text().splitlines() if line.strip()]
    values = leaked = beside = kept = 0
    for row in (r for r in rows if r["kind"] == "secret"):
        redacted, said = pii_redacted_text(row["text"]), message_read(row["text"]).keep or ""
        values += len(row["secrets"])
        leaked += sum(1 for v in row["secrets"] if v in redacted or v in said)
        if row.get("keep"):
            beside += 1
            kept += int(row["keep"].lower() in said.lower())
    lookalikes = [r for r in rows if r["kind"] == "lookalike"]
    return {
        "half": half,
        "values": values,
        "leaked": leaked,
        "facts_beside": beside,
        "facts_kept": kept,
        "lookalikes": len(lookalikes),
        "lookalikes_redacted": sum(1 for r in lookalikes if secret_spans(r["text"])),
    }


def run_understanding(ctx: BenchContext, *, half: str = "dev", limit_per_category: int | None = None) -> dict:
    cases = load_cases(half, limit_per_category)
    tenant, _key = bench_tenant(f"bench-understanding-{half}")
    per: defaultdict[str, dict] = defaultdict(lambda: {"n": 0, "right": 0})
    per_lang: defaultdict[str, dict] = defaultdict(lambda: {"n": 0, "right": 0})
    over_forgot = secrets = duplicates = restatements = 0
    misses = []
    started = time.monotonic()
    for index, case in enumerate(cases):
        played = run_case(tenant=tenant, case=case, index=index)
        score = score_case(case, played)
        for bucket in (per[case["category"]], per_lang[f"{case['category']}:{case['lang']}"]):
            bucket["n"] += 1
            bucket["right"] += int(score["right"])
        over_forgot += score["over_forgot"]
        secrets += int(score["secret_stored"])
        duplicates += int(score["duplicate"])
        restatements += int(case["category"] == "restatement")
        if not score["right"]:
            misses.append({"id": case["id"], "messages": case["messages"], "why": score["why"][:300]})
    ctx.wait_idle()
    accuracy = {c: round(v["right"] / v["n"], 3) for c, v in per.items() if v["n"]}
    return {
        "half": half,
        "cases": len(cases),
        "seconds": round(time.monotonic() - started, 1),
        "accuracy": accuracy,
        "accuracy_by_language": {c: round(v["right"] / v["n"], 3) for c, v in sorted(per_lang.items()) if v["n"]},
        "overall": round(sum(v["right"] for v in per.values()) / max(1, len(cases)), 3),
        "secrets_stored": secrets,
        "over_forgotten_notes": over_forgot,
        "duplicate_rate": round(duplicates / max(1, restatements), 3),
        "reader_ms": reader_latency(cases),
        "misses": misses,
        "secrets": secrets_scored("test" if half == "test" else "dev"),
    }
