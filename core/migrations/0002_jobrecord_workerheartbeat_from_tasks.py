"""The job ledger and the worker heartbeat move from the tasks app to core, the layer that uses them.

State only: the tables keep their names (`tasks_jobrecord`, `tasks_workerheartbeat`) and their rows; nothing in
the database changes except the two content types, relabelled so that permissions already granted on them
(tenant staff's `view_jobrecord`) and admin log entries stay attached. Paired with assistants 0010 (the erasure
receipt's foreign key) and tasks 0004 (the models leave the tasks app's state).
"""
import django.db.models.deletion
from django.db import migrations, models

MOVED = ("jobrecord", "workerheartbeat")


def relabel_content_types(apps, schema_editor, *, old: str = "tasks", new: str = "core"):
    content_type = apps.get_model("contenttypes", "ContentType")
    for model in MOVED:
        if not content_type.objects.filter(app_label=new, model=model).exists():
            content_type.objects.filter(app_label=old, model=model).update(app_label=new)


def relabel_back(apps, schema_editor):
    relabel_content_types(apps, schema_editor, old="core", new="tasks")


class Migration(migrations.Migration):

    dependencies = [
        ('assistants', '0009_i18_bulk_jobs_max'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('core', '0001_pgvector'),
        ('tasks', '0003_i18_job_lease'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name='WorkerHeartbeat',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('hostname', models.CharField(max_length=200, unique=True)),
                        ('last_seen', models.DateTimeField()),
                    ],
                    options={
                        'db_table': 'tasks_workerheartbeat',
                    },
                ),
                migrations.CreateModel(
                    name='JobRecord',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('kind', models.CharField(db_index=True, max_length=60)),
                        ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], db_index=True, default='queued', max_length=20)),
                        ('idempotency_key', models.CharField(blank=True, db_index=True, max_length=200)),
                        ('progress', models.JSONField(blank=True, default=dict)),
                        ('result', models.JSONField(blank=True, default=dict)),
                        ('error', models.TextField(blank=True)),
                        ('attempts', models.PositiveIntegerField(default=0)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('lease_expires_at', models.DateTimeField(blank=True, help_text="Outbox rows (kind 'dispatch'): when the job is sent again unless it completed by then. A running job's worker renews it every JOB_LEASE_SECONDS / 3; a sent job waits DISPATCH_START_SECONDS.", null=True)),
                        ('end_user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='assistants.enduser')),
                        ('tenant', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='assistants.tenant')),
                    ],
                    options={
                        'db_table': 'tasks_jobrecord',
                        'ordering': ['-created_at'],
                        'indexes': [models.Index(condition=models.Q(('kind', 'dispatch'), ('status__in', ['queued', 'running'])), fields=['lease_expires_at'], name='job_outbox_due')],
                        'constraints': [models.UniqueConstraint(condition=models.Q(('idempotency_key', ''), _negated=True), fields=('kind', 'idempotency_key'), name='uniq_job_key')],
                    },
                ),
            ],
        ),
        migrations.RunPython(relabel_content_types, relabel_back),
    ]
