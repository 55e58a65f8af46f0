"""Builds the held-out-style recall sets in bench/data/ (run: python bench/data/build_recall_sets.py).

Sources: recall_sets_notes.py (dialogue -> memory, Chinese and English, and the cross-language queries) and
recall_sets_episodes.py (multi-session histories). Output, one JSON object a line:

- recall_notes_zh.jsonl, recall_notes_en.jsonl: {id, lang, user, kind, content, queries: [{text, type}]}, type
  `paraphrase` (no deliberate shared wording), `overlap` (shares a name, brand or place with its note) or
  `dialogue` (a later chat turn that needs the note without asking about it) or `noisy` (a turn that talks about
  other things of the user's life before the part that needs the note).
- recall_cross.jsonl: {id, direction (en->zh | zh->en), user, target (a note id of the sets above), query}.
- recall_episodic_en.jsonl, recall_episodic_zh.jsonl: one user a line, {user, lang, sessions: [{id, date,
  messages: [{role, content}]}], questions: [{id, text, sessions: [ids]}]}.

The build refuses a set that breaks its own rules (duplicate ids, a query equal to its note, a question naming no
session or an unknown one, a user with too few distractors), so a later edit cannot quietly make it easier.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import recall_sets_episodes as episodes  # noqa: E402 - the data modules sit beside this script
import recall_sets_notes as notes  # noqa: E402 - the same

KINDS = {"p": "profile", "f": "preference", "l": "plan"}
MIN_NOTES_PER_USER = 30


def note_rows(lang: str, users: dict, dialogue: dict, noisy: dict) -> list[dict]:
    rows = []
    for user, items in users.items():
        turns, noise = dialogue.get(user, {}), noisy.get(user, {})
        if (set(turns) | set(noise)) - set(range(1, len(items) + 1)):
            raise ValueError(f"{user}: turns for notes that do not exist")
        if len(items) < MIN_NOTES_PER_USER:
            raise ValueError(f"{user}: {len(items)} notes, fewer than {MIN_NOTES_PER_USER} (too few distractors)")
        for i, (kind, content, queries) in enumerate(items, start=1):
            out = []
            for q in queries:
                overlap = q.startswith("~")
                text = q.lstrip("~").strip()
                if not text or text == content:
                    raise ValueError(f"{user} #{i}: a query must be a new sentence")
                out.append({"text": text, "type": "overlap" if overlap else "paraphrase"})
            if i in turns:
                out.append({"text": turns[i], "type": "dialogue"})
            if i in noise:
                out.append({"text": noise[i], "type": "noisy"})
            if not out:
                raise ValueError(f"{user} #{i}: no query")
            rows.append(
                {
                    "id": f"{user}-{i:02d}",
                    "lang": lang,
                    "user": user,
                    "kind": KINDS[kind],
                    "content": content,
                    "queries": out,
                }
            )
    return rows


def cross_rows(known: dict[str, dict]) -> list[dict]:
    rows = []
    for direction, items, target_lang in (("en->zh", notes.EN_TO_ZH, "zh"), ("zh->en", notes.ZH_TO_EN, "en")):
        for n, (user, index, query) in enumerate(items, start=1):
            target = f"{user}-{index:02d}"
            if target not in known or known[target]["lang"] != target_lang:
                raise ValueError(f"{direction} #{n}: no {target_lang} note {target}")
            rows.append(
                {
                    "id": f"{direction.replace('->', '2')}-{n:02d}",
                    "direction": direction,
                    "user": user,
                    "target": target,
                    "query": query,
                }
            )
        if len(items) < 40:
            raise ValueError(f"{direction}: {len(items)} queries, fewer than 40")
    return rows


def episodic_rows(lang: str, users: list[dict]) -> list[dict]:
    rows = []
    for entry in users:
        ids = [s["id"] for s in entry["sessions"]]
        if len(set(ids)) != len(ids) or len(ids) < 3:
            raise ValueError(f"{entry['user']}: session ids must be unique, at least 3 sessions")
        sessions = [
            {
                "id": s["id"],
                "date": s["date"],
                "messages": [
                    {"role": {"u": "user", "a": "assistant"}[role], "content": text} for role, text in s["turns"]
                ],
            }
            for s in entry["sessions"]
        ]
        questions = []
        for n, (text, gold) in enumerate(entry["questions"], start=1):
            if not gold or set(gold) - set(ids):
                raise ValueError(f"{entry['user']} question {n}: unknown or no sessions {gold}")
            questions.append({"id": f"{entry['user']}-q{n}", "text": text, "sessions": list(gold)})
        rows.append({"user": entry["user"], "lang": lang, "sessions": sessions, "questions": questions})
    return rows


def write(name: str, rows: list[dict]) -> None:
    (HERE / name).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def main() -> None:
    zh = note_rows("zh", notes.ZH, notes.DIALOGUE_ZH, notes.NOISY_ZH)
    en = note_rows("en", notes.EN, notes.DIALOGUE_EN, notes.NOISY_EN)
    known = {r["id"]: r for r in zh + en}
    if len(known) != len(zh) + len(en):
        raise ValueError("duplicate note ids")
    cross = cross_rows(known)
    ep_en, ep_zh = episodic_rows("en", episodes.EN), episodic_rows("zh", episodes.ZH)
    write("recall_notes_zh.jsonl", zh)
    write("recall_notes_en.jsonl", en)
    write("recall_cross.jsonl", cross)
    write("recall_episodic_en.jsonl", ep_en)
    write("recall_episodic_zh.jsonl", ep_zh)
    for name, rows in (("zh", zh), ("en", en)):
        print(
            f"notes {name}: {len(rows)} notes, {sum(len(r['queries']) for r in rows)} queries, "
            f"{len({r['user'] for r in rows})} users"
        )
    print(f"cross: {len(cross)} queries")
    for name, rows in (("episodic en", ep_en), ("episodic zh", ep_zh)):
        print(
            f"{name}: {len(rows)} users, {sum(len(r['sessions']) for r in rows)} sessions, "
            f"{sum(len(s['messages']) for r in rows for s in r['sessions'])} messages, "
            f"{sum(len(r['questions']) for r in rows)} questions"
        )


if __name__ == "__main__":
    main()
