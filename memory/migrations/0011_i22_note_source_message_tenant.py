"""Issue 22: the table of MemoryNote.source_messages gets the tenant of its note, as a model of its own
(NoteSourceMessage), so that it can be distributed by tenant_id with notes and messages on Citus and its lookups
name the tenant (docs/scaling.md). Existing rows take their note's tenant; a row whose note no longer exists
(possible since memory.0009 made the key a plain column) points at nothing and is dropped."""
import django.db.models.deletion
from django.db import migrations, models

TABLE = "memory_memorynote_source_messages"

FORWARD = [
    f"ALTER TABLE {TABLE} ADD COLUMN tenant_id bigint",
    f"UPDATE {TABLE} s SET tenant_id = n.tenant_id FROM memory_memorynote n WHERE n.id = s.memorynote_id",
    f"DELETE FROM {TABLE} WHERE tenant_id IS NULL",
    f"ALTER TABLE {TABLE} ALTER COLUMN tenant_id SET NOT NULL",
    f"ALTER TABLE {TABLE} ADD CONSTRAINT memory_memorynote_source_tenant_id_fk_assistants_tenant_id "
    "FOREIGN KEY (tenant_id) REFERENCES assistants_tenant (id) DEFERRABLE INITIALLY DEFERRED",
    f"CREATE INDEX memory_memorynote_source_messages_tenant_id ON {TABLE} (tenant_id)",
    # the automatic through table's UNIQUE (memorynote_id, message_id), named with a hash: found by its columns
    f"""DO $$ DECLARE name text; BEGIN
        SELECT conname INTO name FROM pg_constraint WHERE conrelid = '{TABLE}'::regclass AND contype = 'u';
        IF name IS NOT NULL THEN EXECUTE format('ALTER TABLE {TABLE} DROP CONSTRAINT %I', name); END IF;
    END $$""",
    f"ALTER TABLE {TABLE} ADD CONSTRAINT note_source_message_unique UNIQUE (tenant_id, memorynote_id, message_id)",
]
BACKWARD = [
    f"ALTER TABLE {TABLE} DROP CONSTRAINT note_source_message_unique",
    f"ALTER TABLE {TABLE} ADD CONSTRAINT memory_memorynote_source_memorynote_id_message_id_uniq "
    "UNIQUE (memorynote_id, message_id)",
    f"ALTER TABLE {TABLE} DROP COLUMN tenant_id",
]


class Migration(migrations.Migration):

    dependencies = [
        ("assistants", "0010_i22_fks_into_partitioned"),
        ("memory", "0010_i22_partition_by_tenant"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, BACKWARD)],
            state_operations=[
                migrations.CreateModel(
                    name="NoteSourceMessage",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False,
                                                   verbose_name="ID")),
                        ("memorynote", models.ForeignKey(db_constraint=False,
                                                         on_delete=django.db.models.deletion.CASCADE,
                                                         to="memory.memorynote")),
                        ("message", models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.CASCADE,
                                                      to="assistants.message")),
                        ("tenant", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+",
                                                     to="assistants.tenant")),
                    ],
                    options={
                        "db_table": "memory_memorynote_source_messages",
                        "constraints": [models.UniqueConstraint(fields=("tenant", "memorynote", "message"),
                                                                name="note_source_message_unique")],
                    },
                ),
                migrations.AlterField(
                    model_name="memorynote",
                    name="source_messages",
                    field=models.ManyToManyField(blank=True, related_name="memory_notes",
                                                 through="memory.NoteSourceMessage", to="assistants.message"),
                ),
            ],
        ),
    ]
