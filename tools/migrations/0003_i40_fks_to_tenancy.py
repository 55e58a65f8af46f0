"""Issue 40: the tenancy models (Tenant, EndUser, Assistant, ChatSession, Message, ...) moved from the assistants app
to the tenancy app with their tables unchanged, so this app's foreign keys to them are re-pointed in the migration
state only: the columns and constraints already reference the same tables. Paired with tenancy 0001 and
assistants 0017."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tenancy', '0001_i40_models_from_assistants'),
        ('tools', '0002_i41_tool_call_names'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name='tool',
                    name='assistants',
                    field=models.ManyToManyField(blank=True, help_text='The assistants that may call it.', related_name='tools', through='tools.ToolAssistant', to='tenancy.assistant'),
                ),
                migrations.AlterField(
                    model_name='tool',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='toolassistant',
                    name='assistant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to='tenancy.assistant'),
                ),
                migrations.AlterField(
                    model_name='toolassistant',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='toolcalllog',
                    name='assistant',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='tenancy.assistant'),
                ),
                migrations.AlterField(
                    model_name='toolcalllog',
                    name='end_user',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.enduser'),
                ),
                migrations.AlterField(
                    model_name='toolcalllog',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
            ],
        ),
    ]
