"""The foundation's promises: pgvector, healthz, create_tenant, the pgvector-missing message, real jobs."""

import os
import subprocess
import sys
import uuid

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection
from psycopg import sql

from assistants.services.tenants import hash_api_key
from core.ledger import job_record_create
from core.models import JobRecord
from tasks.jobs import platform_ping
from tenancy.models import ApiKey, Assistant, Tenant
from tests.conftest import ROOT, wait_for


@pytest.mark.django_db
def test_database_is_postgres_with_pgvector_and_hnsw_index():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        assert cursor.fetchone()[0].startswith("0.8")
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'note_embedding_hnsw'")
        assert "hnsw" in cursor.fetchone()[0]


@pytest.mark.django_db
def test_create_tenant_prints_the_key_alone_on_the_last_line(capsys):
    call_command("create_tenant", "noodles", "--name", "Noodle Co")
    last_line = capsys.readouterr().out.strip().splitlines()[-1]
    tenant = Tenant.objects.get(slug="noodles")
    assert tenant.name == "Noodle Co"
    key = ApiKey.objects.for_tenant(tenant).get()
    assert key.hashed_key == hash_api_key(last_line) and last_line not in key.hashed_key
    assert Assistant.objects.for_tenant(tenant).count() == 1


@pytest.mark.django_db
def test_create_tenant_twice_says_why(capsys):
    from django.core.management.base import CommandError

    call_command("create_tenant", "dup")
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_tenant", "dup")


PLAIN_POSTGRES = "host=127.0.0.1 port=5432 user=postgres"  # this machine's PostgreSQL 15, trust auth, no pgvector


@pytest.fixture
def database_without_pgvector():
    """A throwaway database on the PostgreSQL at 127.0.0.1:5432, dropped afterwards. Skips only when that server
    cannot be reached; a server that offers pgvector fails the test, since it can no longer prove anything."""
    try:
        admin = psycopg.connect(f"{PLAIN_POSTGRES} dbname=postgres", connect_timeout=3, autocommit=True)
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL reachable on 127.0.0.1:5432 (user postgres, trust auth): {exc}".strip())
    name = f"pgvector_missing_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    try:
        available = admin.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone()
        assert available is None, "the PostgreSQL on 127.0.0.1:5432 offers pgvector: this test needs one without it"
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        yield name
    finally:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        admin.close()


def test_missing_pgvector_fails_with_one_clear_sentence(database_without_pgvector):
    """Pointed at a PostgreSQL without pgvector, the start says so in one sentence naming the server, with no
    traceback, and leaves that database as it was (migrate creates nothing there)."""
    name = database_without_pgvector
    env = dict(
        os.environ,
        DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{name}",
        DJANGO_SETTINGS_MODULE="config.settings.local",
    )
    env.pop("DATABASE_NAME", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "migrate"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode != 0, result.stdout
    assert f"The PostgreSQL server at 127.0.0.1:5432/{name} has no pgvector extension" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    with psycopg.connect(f"{PLAIN_POSTGRES} dbname={name}", connect_timeout=3) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").fetchone()
    assert tables == (0,)


@pytest.mark.django_db
def test_healthz_reports_each_part(admin_client):
    response = admin_client.get("/healthz")  # the parts are for staff (or HEALTH_TOKEN): tests/api/test_http_edge.py
    body = response.json()
    assert body["database"]["ok"] and body["pgvector"]["ok"] and body["broker"]["ok"]
    # No worker in this test: the report says so, and the status is not ok.
    assert response.status_code == 503 and body["status"] == "degraded"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_job_crosses_the_broker_to_a_separate_worker(celery_worker, admin_client):
    job = job_record_create(kind="ping")
    platform_ping.delay(job.pk)
    done = wait_for(lambda: JobRecord.objects.filter(pk=job.pk, status="succeeded").first(), message="ping job")
    assert done.result["worker_pid"] == celery_worker.proc.pid != os.getpid()
    health = wait_for(lambda: admin_client.get("/healthz").json()["worker"]["ok"], message="worker heartbeat")
    assert health
    assert admin_client.get("/healthz").json()["status"] == "ok"
