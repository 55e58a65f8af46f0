"""Issue 40: the tenancy models (Tenant, EndUser, Assistant, ChatSession, Message, ...) moved from the assistants app
to the tenancy app with their tables unchanged, so this app's foreign keys to them are re-pointed in the migration
state only: the columns and constraints already reference the same tables. Paired with tenancy 0001 and
assistants 0017."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tasks', '0005_i42_plural_names'),
        ('tenancy', '0001_i40_models_from_assistants'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name='sessionscratch',
                    name='end_user',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.enduser'),
                ),
                migrations.AlterField(
                    model_name='sessionscratch',
                    name='session',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='scratch', to='tenancy.chatsession'),
                ),
                migrations.AlterField(
                    model_name='sessionscratch',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='taskstate',
                    name='end_user',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='task_states', to='tenancy.enduser'),
                ),
                migrations.AlterField(
                    model_name='taskstate',
                    name='session',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='task_states', to='tenancy.chatsession'),
                ),
                migrations.AlterField(
                    model_name='taskstate',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='tasktype',
                    name='assistant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='task_types', to='tenancy.assistant'),
                ),
                migrations.AlterField(
                    model_name='tasktype',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
            ],
        ),
    ]
