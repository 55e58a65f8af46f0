"""Issue 40: the tenancy models (Tenant, EndUser, Assistant, ChatSession, Message, ...) moved from the assistants app
to the tenancy app with their tables unchanged, so this app's foreign keys to them are re-pointed in the migration
state only: the columns and constraints already reference the same tables. Paired with tenancy 0001 and
assistants 0017."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tenancy', '0001_i40_models_from_assistants'),
        ('web', '0001_i39_streamed_turn'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name='streamedturn',
                    name='session',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.chatsession'),
                ),
                migrations.AlterField(
                    model_name='streamedturn',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
            ],
        ),
    ]
