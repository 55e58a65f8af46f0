"""The two Celery queues, so that a chat turn's jobs never wait behind a tenant's import.

The default queue (CELERY_QUEUE, "platform") is the interactive one: a turn's extraction and message vectors,
compaction, experience learning, webhook deliveries. Bulk work goes to "<CELERY_QUEUE>-bulk". `make run` keeps one
worker slot on the interactive queue only; at scale run dedicated workers per queue (README "Scaling out").
Kept apart from the settings so that workers, tests and the benchmark derive the same names without loading them.
"""

BULK_JOBS = (
    "assistants.jobs.session_import",
    "assistants.jobs.user_erase",
    "assistants.jobs.sessions_temporary_purge",
    "memory.jobs.memory_reembed",
    "memory.jobs.memory_decay",
    "memory.jobs.memory_expire",
    "tasks.jobs.task_states_expire",
    "webhooks.jobs.webhook_deliveries_sweep",
)

# Bulk jobs whose first argument is a tenant id: at most the tenant's `bulk_jobs_max` of them run at once
# (core.dispatch), so one tenant's backlog cannot take every worker.
TENANT_BULK_JOBS = ("assistants.jobs.session_import", "assistants.jobs.user_erase", "memory.jobs.memory_reembed")


def bulk_queue_name(default_queue: str) -> str:
    return f"{default_queue}-bulk"


def task_routes(default_queue: str) -> dict:
    """CELERY_TASK_ROUTES: the bulk jobs to the bulk queue; everything else to the default (interactive) one."""
    return {name: {"queue": bulk_queue_name(default_queue)} for name in BULK_JOBS}
