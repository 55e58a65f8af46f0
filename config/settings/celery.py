"""Background jobs on Celery: the broker and queues, the outbox every job goes through, fairness between tenants and
between bulk and interactive work, and the periodic jobs."""

from __future__ import annotations

from pathlib import Path

from config.env import BASE_DIR, env
from config.queues import bulk_queue_name, task_routes

from .framework import TIME_ZONE

# Runtime files of `make run`: the filesystem broker, the demo API key, the processes' logs.
RUN_DIR = Path(env("RUN_DIR", default=str(BASE_DIR / ".run")))
# No CELERY_BROKER_URL: kombu's filesystem transport in RUN_DIR/broker, a real broker that needs no server, with a
# real separate worker process (never task_always_eager outside unit tests).
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="filesystem://")


def broker_transport_options(broker_url: str, run_dir: Path) -> dict:
    if broker_url.startswith("filesystem://"):
        folder = run_dir / "broker"
        for sub in ("in", "processed", "control"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        return {
            "data_folder_in": str(folder / "in"),
            "data_folder_out": str(folder / "in"),
            "processed_folder": str(folder / "processed"),
            "control_folder": str(folder / "control"),  # kombu's default is ./control in the working directory
            "store_processed": False,
            # kombu polls the folder and sleeps this long whenever the worker has no free slot; its 1 s default
            # capped a worker at about two jobs a second. A listdir every 0.1 s costs nothing measurable.
            "polling_interval": env.float("FILESYSTEM_BROKER_POLL_SECONDS", default=0.1),
        }
    # visibility_timeout > the longest job, so an unacked job is redelivered only after its worker is gone.
    visibility_timeout = env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)
    return {
        "visibility_timeout": visibility_timeout,
        # kombu sweeps for jobs of dead workers every interval x throttle seconds (10 x 10 by default), so a killed
        # worker's job would wait 100 s past its visibility timeout. Sweep on every tick instead; each sweep is one
        # ZRANGE on the broker.
        "unacked_restore_interval": max(1, min(10, visibility_timeout // 2)),
        "unacked_restore_throttle": 1,
        "socket_connect_timeout": 2,
    }  # an unreachable broker fails fast (core.dispatch keeps the job)


CELERY_BROKER_TRANSPORT_OPTIONS = broker_transport_options(CELERY_BROKER_URL, RUN_DIR)
CELERY_TASK_DEFAULT_QUEUE = env("CELERY_QUEUE", default="platform")

# Interactive and bulk queues (config/queues.py): a turn's jobs never wait behind a tenant's import.
CELERY_BULK_QUEUE = bulk_queue_name(CELERY_TASK_DEFAULT_QUEUE)
CELERY_TASK_ROUTES = task_routes(CELERY_TASK_DEFAULT_QUEUE)
CELERY_TASK_IGNORE_RESULT = True  # results live in the job ledger (core.JobRecord), not in a result backend
CELERY_TASK_ACKS_LATE = True  # a job killed mid-run is redelivered; services are idempotent so that is safe
CELERY_TASK_REJECT_ON_WORKER_LOST = True  # a job whose worker process died is requeued, not acknowledged
CELERY_WORKER_PREFETCH_MULTIPLIER = 1  # a worker holds only what it runs: a long job hides no queued one from others
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True  # a worker started before its broker waits for it instead of exiting
# Publishing gives up after about a second; core.dispatch then keeps the job in the ledger and beat re-sends it,
# so a broker outage never blocks a chat turn for long (docs/reliability.md).
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 0.5}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_ALWAYS_EAGER = False  # jobs always cross a real broker to a worker, in tests too
# Periodic jobs live in the database so that staff can change them in the admin (django-celery-beat).
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = TIME_ZONE
# Worker heartbeat for /healthz: a worker is "up" if it wrote a heartbeat within this many seconds.
WORKER_HEARTBEAT_SECONDS = env.int("WORKER_HEARTBEAT_SECONDS", default=10)

# --- The outbox (core.dispatch) -------------------------------------------------------------------------------
# A running job's worker renews its lease every JOB_LEASE_SECONDS / 3; a job whose lease ran out without completion
# is sent again, so a job lost with a killed worker or refused by a broker that was down still runs. A sent job
# that has not started within DISPATCH_START_SECONDS is sent again too (a copy of a completed job does nothing).
# Completed outbox rows are forgotten after DISPATCH_KEEP_HOURS.
JOB_LEASE_SECONDS = env.float("JOB_LEASE_SECONDS", default=60.0)
DISPATCH_START_SECONDS = env.float("DISPATCH_START_SECONDS", default=900.0)
DISPATCH_KEEP_HOURS = env.float("DISPATCH_KEEP_HOURS", default=24.0)

# --- Fairness ---------------------------------------------------------------------------------------------------
# A tenant's bulk jobs (config.queues.TENANT_BULK_JOBS) that may run at once, unless Tenant.bulk_jobs_max says
# otherwise, so that one tenant's backlog cannot take every worker; a job over the limit waits
# BULK_JOB_WAIT_SECONDS and tries again, leaving its slot to others.
BULK_JOBS_PER_TENANT = env.int("BULK_JOBS_PER_TENANT", default=1)
BULK_JOB_WAIT_SECONDS = env.float("BULK_JOB_WAIT_SECONDS", default=5.0)
# A bulk job's worker thread and its PostgreSQL backend (when the server runs on this machine under our OS user, as
# the embedded one does) run this many steps nicer (0 = off), and its commits do not wait for the WAL flush
# (safe: bulk steps are idempotent and re-delivered from the outbox). core/priority.py says why.
BULK_JOB_NICENESS = env.int("BULK_JOB_NICENESS", default=10)
BULK_JOB_ASYNC_COMMIT = env.bool("BULK_JOB_ASYNC_COMMIT", default=True)
# A bulk job pauses between two imported messages while a write request (a chat turn), a turn or an interactive job
# ran on this machine within the last this many seconds (0 = never), at most as long as it has worked, so that an
# import gives way to the chat without being starved by it.
BULK_YIELD_SECONDS = env.float("BULK_YIELD_SECONDS", default=0.5)

# --- Periodic jobs (django-celery-beat's DatabaseScheduler loads these and keeps them editable in the admin) -----
CELERY_BEAT_SCHEDULE = {
    # Re-send jobs whose outbox lease ran out (see above).
    "dispatch-redeliver": {
        "task": "core.jobs.dispatch_redeliver",
        "schedule": env.float("DISPATCH_REDELIVER_SECONDS", default=30.0),
    },
    # Pending webhook deliveries whose job was lost (broker restart, worker killed) are sent again.
    "webhook-deliveries-sweep": {
        "task": "webhooks.jobs.webhook_deliveries_sweep",
        "schedule": 30.0,
    },
    # Temporary chats are deleted once their time is up (Tenant.temporary_chat_ttl_hours). Between expiry and the
    # purge they are already hidden from the web chat and a turn in one is refused.
    "sessions-temporary-purge": {
        "task": "assistants.jobs.sessions_temporary_purge",
        "schedule": env.float("TEMPORARY_CHAT_PURGE_SECONDS", default=600.0),
    },
}
