"""Test settings: the same real PostgreSQL + pgvector and a real broker; only speed knobs differ."""

import os
from pathlib import Path

from config.queues import bulk_queue_name, task_routes

from .base import *  # noqa: F403 - split settings: each layer starts from all of base's names
from .base import BASE_DIR, CELERY_BROKER_URL, DATABASES, broker_transport_options, env

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast user creation in tests
DATABASES["default"]["CONN_MAX_AGE"] = 0

# Each test run gets its own queue (and, without Redis, its own filesystem broker folder), so that parallel runs
# on one machine never take each other's jobs. The test worker is started with the same values.
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_QUEUE", default=f"test-{os.getpid()}")
CELERY_BULK_QUEUE = bulk_queue_name(CELERY_TASK_DEFAULT_QUEUE)
CELERY_TASK_ROUTES = task_routes(CELERY_TASK_DEFAULT_QUEUE)
RUN_DIR = Path(env("RUN_DIR", default=str(BASE_DIR / ".run" / f"test-{os.getpid()}")))
CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(CELERY_BROKER_URL, RUN_DIR)
WORKER_HEARTBEAT_SECONDS = 2
# Webhook tests receive on 127.0.0.1; the production rule is tested with this setting turned off.
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env.bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=True)
WEBHOOK_BACKOFF_SECONDS = env.float("WEBHOOK_BACKOFF_SECONDS", default=0.3)
# Streams in tests do not wait for a worker most tests do not start; the memory-event tests set their own wait.
MEMORY_EVENTS_WAIT_SECONDS = env.float("MEMORY_EVENTS_WAIT_SECONDS", default=0.0)
# A model job held while its tenant is over a usage limit is sent again this soon in tests.
USAGE_JOB_WAIT_SECONDS = env.float("USAGE_JOB_WAIT_SECONDS", default=1.0)
# No periodic usage flush thread in tests: it would write from its own connection outside the test's transaction.
USAGE_FLUSH_SECONDS = env.float("USAGE_FLUSH_SECONDS", default=0.0)
