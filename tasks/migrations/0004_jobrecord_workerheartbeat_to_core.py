"""The job ledger and the worker heartbeat leave the tasks app's state (core 0002 took them over with their
tables): state only, no table is dropped."""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('assistants', '0011_erasurereceipt_job_in_core'),
        ('tasks', '0003_i18_job_lease'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.DeleteModel(name='WorkerHeartbeat'),
                migrations.DeleteModel(name='JobRecord'),
            ],
        ),
    ]
