"""The PII guard on the adversarial set in the repository (bench/data/pii_adversarial.jsonl: identifiers said the
way people say them, half in Chinese, some with no label word, some beside a durable fact), on look-alikes that
must be kept (budgets, years, sizes, quantities, product codes), on the write-quality set's durable facts (at
most 2% may be lost to the guard), and end to end: through the chat turn and extraction, nothing of the set
reaches a note, summary, title, pinned fact or the export; the durable fact beside an identifier is still kept."""

import json
import re
import time
import unicodedata
from pathlib import Path

import pytest

from memory.services.identifiers.pii import pii_find, pii_redact

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
ROWS = [json.loads(line) for line in (DATA / "pii_adversarial.jsonl").read_text().splitlines() if line.strip()]
LOOKALIKES = [
    json.loads(line)["text"] for line in (DATA / "pii_lookalikes.jsonl").read_text().splitlines() if line.strip()
]
WRITE_QUALITY = [json.loads(line) for line in (DATA / "write_quality.jsonl").read_text().splitlines() if line.strip()]


def flat(text: str) -> str:
    return re.sub(r"[^0-9a-z@]", "", unicodedata.normalize("NFKC", text).lower())


def survives(value: str, text: str) -> bool:
    """`value` (or its letters and digits in any spacing, when it has 5 or more) is still readable in `text`."""
    return value in text or (len(flat(value)) >= 5 and flat(value) in flat(text))


def test_the_set_is_large_varied_and_half_chinese():
    values = [(r["lang"], v) for r in ROWS for v in r["pii"]]
    assert len(values) >= 80
    assert sum(1 for lang, _ in values if lang == "zh") >= len(values) / 2
    assert sum(1 for r in ROWS if r["write"]) >= 8  # identifiers beside a durable fact


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_every_identifier_of_the_set_is_redacted(row):
    redacted, counts = pii_redact(row["text"])
    for value in row["pii"]:
        assert not survives(value, redacted), f"{value!r} survived in {redacted!r}"
    assert counts


@pytest.mark.parametrize("text", LOOKALIKES)
def test_ordinary_numbers_and_codes_are_kept(text):
    assert pii_find(text) == [], [text[m.start : m.end] for m in pii_find(text)]


def test_at_most_two_percent_of_durable_facts_are_lost_to_the_guard():
    durable = [r for r in WRITE_QUALITY if r["write"] and not r["pii"]]
    lost = [r["text"] for r in durable if pii_find(r["text"])]
    assert len(durable) > 100
    assert len(lost) / len(durable) <= 0.02, lost


def test_precision_and_recall_on_the_set_and_the_lookalikes():
    found = sum(1 for r in ROWS for v in r["pii"] if not survives(v, pii_redact(r["text"])[0]))
    total = sum(len(r["pii"]) for r in ROWS)
    false_alarms = sum(1 for t in LOOKALIKES if pii_find(t))
    recall, precision = found / total, found / (found + false_alarms)
    print(
        f"PII guard: recall {recall:.1%} ({found}/{total}), precision {precision:.1%}, "
        f"look-alikes flagged {false_alarms}/{len(LOOKALIKES)}"
    )
    assert recall == 1.0 and precision >= 0.98


def test_the_guard_stays_fast():
    texts = [r["text"] for r in ROWS] + LOOKALIKES + [r["text"] for r in WRITE_QUALITY]
    started = time.perf_counter()
    for text in texts:
        pii_find(text)
    per_text_ms = (time.perf_counter() - started) * 1000 / len(texts)
    assert per_text_ms < 2, per_text_ms  # measured ~0.1 ms on the 2-core CI machine; it runs on every embed


@pytest.mark.parametrize(
    "text, value",
    [  # held out: phrasings and identifiers not in the set
        ("你要是找不到我就打幺八六 零零零零 幺二三四", "幺八六 零零零零 幺二三四"),
        ("我手机号码 壹叁捌零零壹叁捌零零零", "壹叁捌零零壹叁捌零零零"),
        ("加v：lina888 聊", "lina888"),
        ("住址：广州市天河区天河路385号太古汇一座2305", "天河路385号"),
        ("Mi número es 612 34 56 78", "612 34 56 78"),
        ("Meine Nummer ist 0151 23456789", "0151 23456789"),
        ("my cell: 0 7 7 0 0 9 0 0 1 2 3", "0 7 7 0 0 9 0 0 1 2 3"),
        (
            "nine one seven, five five five, oh one two three is my cell",
            "nine one seven, five five five, oh one two three",
        ),
        ("I live at 10 Downing St", "10 Downing St"),
        ("鄂A·88888 是我的车", "鄂A·88888"),
        ("ip 10.0.0.1 is my printer", "10.0.0.1"),
        ("我的银行账号是 6228480402564890018", "6228480402564890018"),
    ],
)
def test_held_out_identifiers_are_redacted(text, value):
    assert not survives(value, pii_redact(text)[0]), pii_redact(text)


# --- end to end: the chat turn, extraction, summaries, titles and the export -------------------------------------


@pytest.mark.django_db
def test_no_identifier_of_the_set_is_stored_and_facts_beside_them_are(make_person):
    from assistants.services.compaction import session_compact
    from assistants.services.privacy import user_export
    from assistants.services.sessions import session_auto_title
    from memory.models import MemoryNote
    from tenancy.models import ChatSession

    person = make_person()
    person.tenant.summary_trigger_messages = 1
    person.tenant.window_turns = 1
    person.tenant.save()
    facts_expected = 0
    for row in ROWS:
        person.new_session()
        session_auto_title(tenant=person.tenant, session=person.session, text=row["text"])
        person.say(row["text"])
        facts_expected += bool(row["write"])
    session_compact(tenant_id=person.tenant.pk, session_id=person.session.pk)
    notes = MemoryNote.objects.for_tenant(person.tenant).filter(end_user=person.end_user)
    stored = [f for n in notes for f in (n.content, n.quote, n.key, n.search_text, json.dumps(n.value or {}))]
    for s in ChatSession.objects.for_tenant(person.tenant).filter(end_user=person.end_user):
        stored += [s.title, s.summary, json.dumps(s.pinned_facts or {}, ensure_ascii=False)]
    # the export carries the user's own messages (theirs to take); its notes do not carry an identifier
    export = user_export(tenant=person.tenant, end_user=person.end_user)
    assert len(export["memory_notes"]) == notes.count()
    stored += [json.dumps(n, ensure_ascii=False, default=str) for n in export["memory_notes"]]
    leaks = [v for r in ROWS for v in r["pii"] if any(survives(v, f) for f in stored if f)]
    assert leaks == []
    kept = {(n.kind, n.key) for n in notes.filter(status=MemoryNote.Status.ACTIVE)}
    wanted = {(r["kind"], r["key"]) for r in ROWS if r["write"]}
    assert len(kept & wanted) >= len(wanted) - 2, wanted - kept


@pytest.mark.parametrize(
    "text", ["x" * 100_000, "1" * 100_000, "ab." * 33_000, "a@" * 50_000, "中" * 100_000, "12 " * 33_000]
)
def test_the_guard_is_linear_on_a_hostile_longest_message(text):
    started = time.perf_counter()
    pii_find(text)
    assert time.perf_counter() - started < 5  # a pattern that could start inside a long run took minutes
