"""Issue 40: the tenancy models (Tenant, EndUser, Assistant, ChatSession, Message, ...) moved from the assistants app
to the tenancy app with their tables unchanged, so this app's foreign keys to them are re-pointed in the migration
state only: the columns and constraints already reference the same tables. Paired with tenancy 0001 and
assistants 0017."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('memory', '0015_i42_admin_names'),
        ('tenancy', '0001_i40_models_from_assistants'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name='auditlog',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='experience',
                    name='assistant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='experiences', to='tenancy.assistant'),
                ),
                migrations.AlterField(
                    model_name='experience',
                    name='contributed_by',
                    field=models.ForeignKey(blank=True, help_text='The first contributor (all of them: contributions).', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='experiences', to='tenancy.enduser'),
                ),
                migrations.AlterField(
                    model_name='experience',
                    name='source_message',
                    field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='tenancy.message'),
                ),
                migrations.AlterField(
                    model_name='experience',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='experiencecontribution',
                    name='end_user',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.enduser'),
                ),
                migrations.AlterField(
                    model_name='experiencecontribution',
                    name='source_message',
                    field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='tenancy.message'),
                ),
                migrations.AlterField(
                    model_name='experiencecontribution',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='memorynote',
                    name='end_user',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memory_notes', to='tenancy.enduser'),
                ),
                migrations.AlterField(
                    model_name='memorynote',
                    name='session',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='memory_notes', to='tenancy.chatsession'),
                ),
                migrations.AlterField(
                    model_name='memorynote',
                    name='source_messages',
                    field=models.ManyToManyField(blank=True, related_name='memory_notes', through='memory.NoteSourceMessage', to='tenancy.message'),
                ),
                migrations.AlterField(
                    model_name='memorynote',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='messagevector',
                    name='end_user',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.enduser'),
                ),
                migrations.AlterField(
                    model_name='messagevector',
                    name='message',
                    field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='vectors', to='tenancy.message'),
                ),
                migrations.AlterField(
                    model_name='messagevector',
                    name='session',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.chatsession'),
                ),
                migrations.AlterField(
                    model_name='messagevector',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='notesourcemessage',
                    name='message',
                    field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, to='tenancy.message'),
                ),
                migrations.AlterField(
                    model_name='notesourcemessage',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='piirejection',
                    name='end_user',
                    field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.enduser'),
                ),
                migrations.AlterField(
                    model_name='piirejection',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
            ],
        ),
    ]
