"""Issue 22: the keyword pool of episodic recall reads one user's entries of a GIN index, as the notes do
(memory.0014): message_user_terms_gin holds each user message's search terms plus one lexeme for its user ("u<id>",
which no term can be), and replaces message_search_tsv_gin (assistants.0004), which only that pool read. The pool
asks for the user's lexeme AND any of the question's terms (memory.services.recall.recall_messages_sql.MESSAGE_KEYWORDS_SQL), so its
cost follows the user's matching messages, not the tenant's, whatever plan the prepared statement gets."""

from django.db import migrations

# as memory.services.recall.recall_sql.USER_TERMS, written out: a migration does not change when the code does
USER_TERMS = "(search_tsv || array_to_tsvector(ARRAY['u' || end_user_id::text]))"


class Migration(migrations.Migration):
    dependencies = [("assistants", "0011_erasurereceipt_job_in_core")]

    operations = [
        migrations.RunSQL(
            # fastupdate off as for the notes' index: a pending list is scanned whole by every query
            f"CREATE INDEX IF NOT EXISTS message_user_terms_gin ON assistants_message USING gin ({USER_TERMS}) "
            "WITH (fastupdate = off) WHERE role = 'user'",
            "DROP INDEX IF EXISTS message_user_terms_gin",
        ),
        migrations.RunSQL(
            "DROP INDEX IF EXISTS message_search_tsv_gin",
            "CREATE INDEX IF NOT EXISTS message_search_tsv_gin ON assistants_message USING gin (search_tsv)",
        ),
    ]
