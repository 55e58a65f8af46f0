"""The secret guard on the secrets set written apart from the code (bench/data/secrets_dev.jsonl: passwords, PINs,
door and lock codes, keys, recovery phrases and security answers said the way people say them, half in Chinese,
beside look-alikes that hold no secret). Its test half (secrets_test.jsonl) is scored by `make bench` once a round.
No value may survive the redaction or the reader's kept text; the durable fact said beside it mostly survives."""

import json
from pathlib import Path

import pytest

from memory.reading import message_read
from memory.reading.secrets import secret_spans
from memory.services.identifiers.pii import pii_redacted_text

ROWS = [
    json.loads(line)
    for line in (Path(__file__).resolve().parents[2] / "bench" / "data" / "secrets_dev.jsonl").read_text().splitlines()
    if line.strip()
]
SECRETS = [r for r in ROWS if r["kind"] == "secret"]
LOOKALIKES = [r for r in ROWS if r["kind"] == "lookalike"]


@pytest.mark.parametrize("row", SECRETS, ids=[r["id"] for r in SECRETS])
def test_no_secret_of_the_set_survives_redaction_or_reading(row):
    redacted, kept = pii_redacted_text(row["text"]), message_read(row["text"]).keep or ""
    for value in row["secrets"]:
        assert value not in redacted and value not in kept, (redacted, kept)


def test_the_fact_beside_a_secret_is_mostly_kept_and_look_alikes_are_left_alone():
    beside = [r for r in SECRETS if r.get("keep")]
    kept = [r for r in beside if r["keep"].lower() in (message_read(r["text"]).keep or "").lower()]
    flagged = [r["text"] for r in LOOKALIKES if secret_spans(r["text"])]
    assert len(kept) >= 0.9 * len(beside), [r["text"] for r in beside if r not in kept]
    assert len(flagged) <= 1, flagged
