"""Issue 40: the tenancy models (Tenant, EndUser, Assistant, ChatSession, Message, ...) moved from the assistants app
to the tenancy app with their tables unchanged, so this app's foreign keys to them are re-pointed in the migration
state only: the columns and constraints already reference the same tables. Paired with tenancy 0001 and
assistants 0017.
The proxy TenantUsage is re-created on its new base (a proxy has no table: nothing to do in the database either)."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('tenancy', '0001_i40_models_from_assistants'),
        ('usage', '0001_initial'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name='usagehour',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.AlterField(
                    model_name='usagenotice',
                    name='tenant',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='tenancy.tenant'),
                ),
                migrations.DeleteModel(name='TenantUsage'),
                migrations.CreateModel(
                    name='TenantUsage',
                    fields=[],
                    options={
                        'verbose_name': 'tenant usage and quotas',
                        'verbose_name_plural': 'tenant usage and quotas',
                        'proxy': True,
                        'indexes': [],
                        'constraints': [],
                    },
                    bases=('tenancy.tenant',),
                ),
            ],
        ),
    ]
