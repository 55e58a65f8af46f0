"""Episodic recall (issue 4): a stored 'simple' tsvector of the user's messages' search terms (filled by the
extraction job) with a GIN index, queried by memory.services.recall.recall. A GENERATED column: Django never writes it."""
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("assistants", "0003_enduser_erasure_requested_at")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE assistants_message ADD COLUMN search_tsv tsvector "
            "GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, search_vector)) STORED; "
            "CREATE INDEX message_search_tsv_gin ON assistants_message USING gin (search_tsv)",
            "DROP INDEX IF EXISTS message_search_tsv_gin; ALTER TABLE assistants_message DROP COLUMN IF EXISTS search_tsv",
        ),
    ]
