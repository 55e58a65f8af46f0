"""The Celery app. Job modules are named `jobs.py` so that "task" means a working-memory task in this code."""

import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

# "filesystem://" uses kombu's filesystem transport with atomic message writes (core/broker.py explains why).
TRANSPORT_ALIASES["filesystem"] = "core.broker:Transport"

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

# Every job holds a lease on its outbox row while it runs, so a job its worker lost is sent again (core.dispatch).
app = Celery("config", task_cls="core.dispatch:OutboxTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(related_name="jobs")
