"""The tenancy models leave the assistants app's state (issue 40): they are the tenancy app's now (tenancy 0001),
with the same tables. State only: nothing in the database changes. It runs after every app's foreign keys were
re-pointed to tenancy, so that no model in the state still refers to the ones removed here.
"""
from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('tenancy', '0001_i40_models_from_assistants'),
        ('api', '0002_i40_fks_to_tenancy'),
        ('assistants', '0016_i41_python_tools'),
        ('core', '0004_i40_fks_to_tenancy'),
        ('memory', '0016_i40_fks_to_tenancy'),
        ('tasks', '0006_i40_fks_to_tenancy'),
        ('tools', '0003_i40_fks_to_tenancy'),
        ('usage', '0002_i40_fks_to_tenancy'),
        ('web', '0002_i40_fks_to_tenancy'),
        ('webhooks', '0003_i40_fks_to_tenancy'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveField(
                    model_name='apikey',
                    name='tenant',
                ),
                migrations.RemoveField(
                    model_name='assistant',
                    name='tenant',
                ),
                migrations.RemoveField(
                    model_name='chatsession',
                    name='assistant',
                ),
                migrations.RemoveField(
                    model_name='chatsession',
                    name='end_user',
                ),
                migrations.RemoveField(
                    model_name='chatsession',
                    name='summary_through',
                ),
                migrations.RemoveField(
                    model_name='chatsession',
                    name='tenant',
                ),
                migrations.RemoveField(
                    model_name='message',
                    name='session',
                ),
                migrations.RemoveField(
                    model_name='enduser',
                    name='tenant',
                ),
                migrations.RemoveField(
                    model_name='enduser',
                    name='user',
                ),
                migrations.RemoveField(
                    model_name='message',
                    name='end_user',
                ),
                migrations.RemoveField(
                    model_name='feedback',
                    name='end_user',
                ),
                migrations.RemoveField(
                    model_name='erasurereceipt',
                    name='job',
                ),
                migrations.RemoveField(
                    model_name='erasurereceipt',
                    name='tenant',
                ),
                migrations.RemoveField(
                    model_name='feedback',
                    name='message',
                ),
                migrations.RemoveField(
                    model_name='feedback',
                    name='tenant',
                ),
                migrations.RemoveField(
                    model_name='message',
                    name='tenant',
                ),
                migrations.RemoveField(
                    model_name='tenantstaff',
                    name='tenant',
                ),
                migrations.RemoveField(
                    model_name='tenantstaff',
                    name='user',
                ),
                migrations.DeleteModel(
                    name='ApiKey',
                ),
                migrations.DeleteModel(
                    name='Assistant',
                ),
                migrations.DeleteModel(
                    name='ChatSession',
                ),
                migrations.DeleteModel(
                    name='EndUser',
                ),
                migrations.DeleteModel(
                    name='ErasureReceipt',
                ),
                migrations.DeleteModel(
                    name='Feedback',
                ),
                migrations.DeleteModel(
                    name='Message',
                ),
                migrations.DeleteModel(
                    name='Tenant',
                ),
                migrations.DeleteModel(
                    name='TenantStaff',
                ),
            ],
        ),
    ]
