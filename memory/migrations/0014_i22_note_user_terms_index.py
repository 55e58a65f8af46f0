"""Issue 22: a GIN index over each active note's keyword terms plus one lexeme for its user ("u<id>"), so that the
keyword matches of a user with many notes come from that user's entries of the index instead of matching every one
of their rows (memory.services.recall_sql.KEYWORD_SQL, used above recall.KEYWORD_PASS_MAX notes). Created on the
partitioned table, so on every partition: on a large store, run it in a maintenance window (docs/scaling.md)."""

from django.db import migrations

# as memory.services.recall_sql.USER_TERMS, written out: a migration does not change when the code does
USER_TERMS = "(search_tsv || array_to_tsvector(ARRAY['u' || end_user_id::text]))"


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0013_i22_message_vector_halfvec"),
    ]

    operations = [
        migrations.RunSQL(
            f"CREATE INDEX IF NOT EXISTS note_user_terms_gin ON memory_memorynote USING gin ({USER_TERMS}) "
            "WHERE status = 'active'",
            "DROP INDEX IF EXISTS note_user_terms_gin",
        ),
    ]
