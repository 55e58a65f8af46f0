"""Usage metering and quotas (usage/, docs/api.md): how a tenant over a limit is held, how fresh the totals are."""

from __future__ import annotations

from config.env import env

# Before a job runs, core.dispatch asks this (by name: it sits above core) how long the job must wait; the usage
# app holds a tenant's model jobs while the tenant is over a hard usage limit, USAGE_JOB_WAIT_SECONDS at a time.
JOB_HOLD_CHECK = env("JOB_HOLD_CHECK", default="usage.services.usage_job_held")
USAGE_JOB_WAIT_SECONDS = env.float("USAGE_JOB_WAIT_SECONDS", default=60.0)
# A quota check reuses the usage totals it read (Django's cache, kept up by each flush) for at most this long while
# they are under 80% of every limit; nearer, it reads the table every time (usage/quotas.py says why it is safe).
USAGE_QUOTA_CACHE_SECONDS = env.int("USAGE_QUOTA_CACHE_SECONDS", default=10)
# Metered events are written after each request and job; this thread writes what no request follows (MCP tool
# calls) every this many seconds; 0: only after requests and jobs.
USAGE_FLUSH_SECONDS = env.float("USAGE_FLUSH_SECONDS", default=5.0)
