"""Issue 22: a half-precision copy of each message vector, computed by PostgreSQL and kept in the row (1 KB, where
the full 512-float vector is stored out of line in TOAST), as memory.0008 did for notes. Episodic recall ranks a
user's message vectors exactly on it and re-ranks the best candidates on the full vectors
(memory.services.recall.recall_messages_sql.EPISODES_SQL). Not a model field: see MemoryNote.

Adding a stored generated column rewrites the table (every partition): on a large store, run it in a maintenance
window."""

from django.conf import settings
from django.db import migrations

DIMS = int(settings.EMBEDDING_DIMENSIONS)


class Migration(migrations.Migration):
    dependencies = [
        ("memory", "0012_i14_keyword_terms_lemma_stem"),
    ]

    operations = [
        migrations.RunSQL(
            f"ALTER TABLE memory_messagevector ADD COLUMN IF NOT EXISTS embedding_half halfvec({DIMS}) "
            f"GENERATED ALWAYS AS (embedding::halfvec({DIMS})) STORED",
            "ALTER TABLE memory_messagevector DROP COLUMN IF EXISTS embedding_half",
        ),
    ]
