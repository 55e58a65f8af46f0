"""Issue 22: chat messages, memory notes and message vectors become tables partitioned by HASH(tenant_id), with
their rows, in this migration's one transaction (core/partitioning.py: copy into the partitioned table, swap
names, recreate indexes and constraints under their old names). The number of partitions is the setting
TENANT_HASH_PARTITIONS (8 by default), read here once: changing it later does not re-partition.

The copy rewrites the three tables and rebuilds their indexes, HNSW included: on a large store, run it in a
maintenance window (docs/scaling.md)."""
from django.conf import settings
from django.db import migrations

from core.partitioning import partition_by_tenant, unpartition

TABLES = ("assistants_message", "memory_memorynote", "memory_messagevector")


def forwards(apps, schema_editor):
    partitions = int(settings.TENANT_HASH_PARTITIONS)
    with schema_editor.connection.cursor() as cur:
        for table in TABLES:
            partition_by_tenant(cur, table, partitions)


def backwards(apps, schema_editor):
    with schema_editor.connection.cursor() as cur:
        for table in TABLES:
            unpartition(cur, table)


class Migration(migrations.Migration):

    dependencies = [
        ("assistants", "0010_i22_fks_into_partitioned"),
        ("memory", "0009_i22_fks_into_partitioned"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
