"""The erasure receipt's job now points at core.JobRecord (moved from tasks, same table): state only, the
foreign key constraint in the database is the same one."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('assistants', '0010_i22_fks_into_partitioned'),
        ('core', '0002_jobrecord_workerheartbeat_from_tasks'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name='erasurereceipt',
                    name='job',
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='core.jobrecord'),
                ),
            ],
        ),
    ]
