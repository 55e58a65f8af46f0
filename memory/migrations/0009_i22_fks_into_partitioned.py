"""Issue 22: foreign keys into messages and notes stop being database constraints (db_constraint=False), and a
message vector's chunk is unique per (tenant, message, chunk): what partitioning by HASH(tenant_id) requires
(memory.0010_i22_partition_by_tenant, core/partitioning.py). Django's deletion collector still cascades."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('assistants', '0010_i22_fks_into_partitioned'),
        ('memory', '0008_i22_note_halfvec'),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='messagevector',
            name='message_vector_unique_chunk',
        ),
        migrations.AlterField(
            model_name='experience',
            name='source_message',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='assistants.message'),
        ),
        migrations.AlterField(
            model_name='experiencecontribution',
            name='source_message',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='assistants.message'),
        ),
        migrations.AlterField(
            model_name='memorynote',
            name='source_messages',
            field=models.ManyToManyField(blank=True, db_constraint=False, related_name='memory_notes', to='assistants.message'),
        ),
        migrations.AlterField(
            model_name='memorynote',
            name='supersedes',
            field=models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='superseded_by', to='memory.memorynote'),
        ),
        migrations.AlterField(
            model_name='messagevector',
            name='message',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='vectors', to='assistants.message'),
        ),
        migrations.AddConstraint(
            model_name='messagevector',
            constraint=models.UniqueConstraint(fields=('tenant', 'message', 'chunk'), name='message_vector_unique_chunk'),
        ),
    ]
