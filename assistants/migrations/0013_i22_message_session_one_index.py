"""A message's session has one index, (session, id), not also the foreign key's own. With both,
PostgreSQL's estimate of a few messages a session made it read a long session whole through the single-column index
and sort it, to find the turn next to a recalled message (memory.services.recall.recall_context; 100-150 ms for 20
candidates in a session of 10,000 messages, 0.4 ms through (session, id): docs/benchmarks-history.md "Recall, tenth round").
Every lookup by session is served by (session, id). The foreign key constraint stays as it is."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("assistants", "0012_i22_message_user_terms")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[
                migrations.RunSQL(
                    "DROP INDEX IF EXISTS assistants_message_session_id_03159458",
                    "CREATE INDEX IF NOT EXISTS assistants_message_session_id_03159458 "
                    "ON assistants_message (session_id)",
                ),
            ],
            state_operations=[
                migrations.AlterField(
                    model_name="message",
                    name="session",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="messages",
                        to="assistants.chatsession",
                    ),
                ),
            ],
        ),
    ]
