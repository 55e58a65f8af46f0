"""Fail at start, in one sentence, when the configured PostgreSQL has no pgvector."""

from django.core.checks import Error, Tags, register
from django.db import connection
from django.db.utils import OperationalError

PGVECTOR_MISSING = (
    "The PostgreSQL server at {where} has no pgvector extension: install pgvector "
    "(https://github.com/pgvector/pgvector#installation) on that server, or unset DATABASE_URL to use the "
    "embedded PostgreSQL with pgvector."
)


def pgvector_available(conn=connection) -> bool:
    with conn.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        return cursor.fetchone() is not None


def database_location(conn=connection) -> str:
    settings = conn.settings_dict
    host = settings.get("HOST") or (settings.get("OPTIONS") or {}).get("host") or "localhost"
    port = settings.get("PORT") or 5432
    return f"{host}:{port}/{settings.get('NAME')}"


@register(Tags.database)
def check_pgvector(app_configs, databases=None, **kwargs):
    if not databases or "default" not in databases:
        return []
    try:
        if pgvector_available():
            return []
    except OperationalError as exc:
        return [Error(f"Cannot connect to PostgreSQL at {database_location()}: {exc}".strip(), id="core.E002")]
    return [Error(PGVECTOR_MISSING.format(where=database_location()), id="core.E001")]
