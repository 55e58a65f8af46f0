"""Memory the platform keeps about users: experiences shared as hints, and how a user's data is exported and erased.
The memory policy itself (window, budgets, TTLs, recall sizes) is per tenant, in the admin."""

from __future__ import annotations

from config.env import env

# Cosine similarity an experience needs to be recalled as a hint. Both sides are generalised first (numbers to
# magnitudes, material to its kind); with the offline lexical embedder the same kind of task then scores 0.7-1.0,
# a neighbouring one (text translation vs text classification) about 0.55, unrelated requests below 0.1.
EXPERIENCE_MIN_SIMILARITY = env.float("EXPERIENCE_MIN_SIMILARITY", default=0.6)
# Rows deleted per transaction by the per-user erasure job (progress is written to the job ledger after each), so
# that no transaction holds a huge user's rows at once and a killed erasure resumes where it stopped.
ERASURE_BATCH_SIZE = env.int("ERASURE_BATCH_SIZE", default=500)
# An export bigger than this is spooled to a temporary file and streamed, so a user with 100,000 notes does not
# sit in the web process's memory (docs/reliability.md, "Extreme data").
EXPORT_MEMORY_BYTES = env.int("EXPORT_MEMORY_BYTES", default=1_000_000)
