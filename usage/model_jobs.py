"""The background jobs that call a model, and the object each is about (its second argument; the first is the
tenant's id). Their calls are attributed to that message's or session's assistant and end user (usage.signals),
and they wait while their tenant is over a tenant-wide hard limit (usage.services.usage_job_held). Erasure,
webhook deliveries and sweeps call no model and never wait for usage."""

MODEL_JOBS: dict[str, str | None] = {
    "memory.jobs.memory_extract": "message",
    "tasks.jobs.experience_learn": "message",
    "assistants.jobs.session_compact": "session",
    "assistants.jobs.session_import": "session",
    "memory.jobs.memory_reembed": None,
}
