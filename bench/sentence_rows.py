"""`python -m bench.sentence_rows`: does a message's sentence rows (memory.services.recall.episodes) find the remark that
answers a question about one of its sentences? Vector only, the platform's own embedder and rows: for each
question, the rank of the answering remark among the user's remarks when a remark's cosine is that of its
first row only (the whole message) and when it is that of its best row (the message and its sentences).
Reports R@1 and MRR per language. Needs no database: the rows are built as message_vectors_write builds them."""

from __future__ import annotations

import os

import numpy as np


def _rows(texts: list[str]) -> list[np.ndarray]:
    from memory.services.recall.episodes import message_pieces, piece_vector
    from memory.services.vectors.embeddings import embed_texts

    out = []
    for text in texts:
        pieces = message_pieces(text, None)
        vectors = embed_texts(texts=[p[1] for p in pieces])[1]
        rows = [
            v if parent is None else piece_vector(vectors[parent], v)
            for (_, _, parent), v in zip(pieces, vectors, strict=True)
        ]
        out.append(np.asarray(rows, dtype=np.float64))
    return out


def evaluate(remarks: list[str], questions: list[tuple[str, int]]) -> dict:
    from memory.services.vectors.embeddings import embed_texts

    rows = _rows(remarks)
    queries = np.asarray(embed_texts(texts=[q for q, _ in questions])[1], dtype=np.float64)
    result = {}
    for name, pick in (
        ("whole message", lambda r, q: float(r[0] @ q)),
        ("best row", lambda r, q: float(np.max(r @ q))),
    ):
        ranks = []
        for q, (_, answer) in zip(queries, questions, strict=True):
            scores = [pick(r, q) for r in rows]
            ranks.append(1 + sum(s > scores[answer] for s in scores))
        result[name] = {
            "R@1": round(sum(r == 1 for r in ranks) / len(ranks), 3),
            "MRR": round(sum(1 / r for r in ranks) / len(ranks), 3),
        }
    return result


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")
    import django

    django.setup()
    from bench.data import remark_sentences as data

    for lang, remarks, others, questions in (
        ("en", data.EN_REMARKS, data.EN_DISTRACTORS, data.EN_QUESTIONS),
        ("zh", data.ZH_REMARKS, data.ZH_DISTRACTORS, data.ZH_QUESTIONS),
    ):
        said = remarks + others  # the answers are the first ones: their indexes hold
        print(lang, f"{len(questions)} questions, {len(said)} messages", evaluate(said, questions))


if __name__ == "__main__":
    main()
