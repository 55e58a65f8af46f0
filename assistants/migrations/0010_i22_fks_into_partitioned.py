"""Issue 22: foreign keys into chat messages stop being database constraints (db_constraint=False), so that
memory.0010_i22_partition_by_tenant can partition the table by HASH(tenant_id). Django still cascades."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('assistants', '0009_i18_bulk_jobs_max'),
    ]

    operations = [
        migrations.AlterField(
            model_name='chatsession',
            name='summary_through',
            field=models.ForeignKey(blank=True, db_constraint=False, help_text='The last message the summary covers; later messages are still verbatim.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='assistants.message'),
        ),
        migrations.AlterField(
            model_name='feedback',
            name='message',
            field=models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='feedback', to='assistants.message'),
        ),
    ]
