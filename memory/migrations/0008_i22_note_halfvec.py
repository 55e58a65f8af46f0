"""Issue 22: a half-precision copy of each note's embedding, computed by PostgreSQL and kept in the row (1 KB,
where the full 512-float vector is stored out of line in TOAST). Recall ranks a user's notes exactly on it and
re-ranks the best candidates on the full vectors (memory.services.recall.recall). Not a model field: see MemoryNote.

Adding a stored generated column rewrites the table (291 s for 100,000 notes on 2 busy cores): on a large store,
run it in a maintenance window."""
from django.conf import settings
from django.db import migrations, models

DIMS = int(settings.EMBEDDING_DIMENSIONS)


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0007_i16_corrected_by'),
    ]

    operations = [
        migrations.RunSQL(
            f"ALTER TABLE memory_memorynote ADD COLUMN IF NOT EXISTS embedding_half halfvec({DIMS}) "
            f"GENERATED ALWAYS AS (embedding::halfvec({DIMS})) STORED",
            "ALTER TABLE memory_memorynote DROP COLUMN IF EXISTS embedding_half",
        ),
        migrations.AddIndex(
            model_name='memorynote',
            index=models.Index(condition=models.Q(('status', 'active')), fields=['tenant', 'end_user', 'expires_at'],
                               name='note_user_active_expiry'),
        ),
    ]
