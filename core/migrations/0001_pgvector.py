"""Create the `vector` extension first, with a clear sentence when the server does not have pgvector."""
from django.db import migrations


def create_vector_extension(apps, schema_editor):
    from core.checks import PGVECTOR_MISSING, database_location, pgvector_available

    conn = schema_editor.connection
    if not pgvector_available(conn):
        raise RuntimeError(PGVECTOR_MISSING.format(where=database_location(conn)))
    with conn.cursor() as cursor:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS vector")


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [migrations.RunPython(create_vector_extension, migrations.RunPython.noop)]
