"""Episodic recall (issue 4): a GIN index over the user's messages' search terms (filled by the extraction job),
with the same 'simple' tsvector expression memory.services.recall queries."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("assistants", "0003_enduser_erasure_requested_at")]

    operations = [
        migrations.RunSQL(
            "CREATE INDEX IF NOT EXISTS message_search_vector_gin ON assistants_message "
            "USING gin (to_tsvector('simple'::regconfig, search_vector))",
            "DROP INDEX IF EXISTS message_search_vector_gin",
        ),
    ]
