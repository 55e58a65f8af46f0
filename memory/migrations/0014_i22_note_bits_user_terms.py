"""Issue 22: what a heavy user's recall reads instead of every row of theirs.

- `embedding_bit`, the note's embedding binary-quantised (one bit a dimension: 64 bytes for 512), a stored generated
  column like embedding_half (memory.0008), and a covering index of the user's active notes that holds it
  (note_user_active_bits, replacing note_user_active_expiry): recall ranks a user's notes on it by Hamming distance
  reading the index only, then re-ranks the nearest on embedding_half and those on the full vectors
  (memory.services.recall.recall_sql).
- note_user_terms_gin, a GIN index over each active note's keyword terms plus one lexeme for its user ("u<id>"): the
  keyword matches of a user come from that user's entries of the index instead of matching every one of their rows.

Adding a stored generated column rewrites the table (every partition; 143 s for 100,000 notes on 2 cores): on a large
store, run it in a maintenance window (docs/scaling.md)."""

from django.conf import settings
from django.db import migrations

DIMS = int(settings.EMBEDDING_DIMENSIONS)
# as memory.services.recall.recall_sql.USER_TERMS, written out: a migration does not change when the code does
USER_TERMS = "(search_tsv || array_to_tsvector(ARRAY['u' || end_user_id::text]))"


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0013_i22_message_vector_halfvec"),
    ]

    operations = [
        migrations.RunSQL(
            f"ALTER TABLE memory_memorynote ADD COLUMN IF NOT EXISTS embedding_bit bit({DIMS}) "
            f"GENERATED ALWAYS AS (binary_quantize(embedding)::bit({DIMS})) STORED",
            "ALTER TABLE memory_memorynote DROP COLUMN IF EXISTS embedding_bit",
        ),
        migrations.RemoveIndex(model_name="memorynote", name="note_user_active_expiry"),
        migrations.RunSQL(
            "CREATE INDEX IF NOT EXISTS note_user_active_bits ON memory_memorynote (tenant_id, end_user_id, expires_at) "
            "INCLUDE (id, embedding_model, embedding_bit) WHERE status = 'active'",
            "DROP INDEX IF EXISTS note_user_active_bits",
        ),
        migrations.RunSQL(
            # fastupdate off: with GIN's pending list, a query scans every entry not yet merged (up to 4 MB): 6-16 ms
            # instead of 1.6-4.9 for a 10,000-note user after a load; a note's insert costs 0.16 ms more without it
            f"CREATE INDEX IF NOT EXISTS note_user_terms_gin ON memory_memorynote USING gin ({USER_TERMS}) "
            "WITH (fastupdate = off) WHERE status = 'active'",
            "DROP INDEX IF EXISTS note_user_terms_gin",
        ),
    ]
