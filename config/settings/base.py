"""Settings shared by every environment, one module per concern; local.py, production.py and test.py start from
all of them. Every value comes from the environment through the one `env` object of config/env.py; README
"Settings" and docs/settings.md list the variables.

- framework: Django itself: apps, middleware, templates, languages, static files
- database: PostgreSQL + pgvector, connections, the pool, partitions
- security: secret key and hosts, security headers, login lockout, trusted proxies, request sizes, /healthz
- celery: background jobs: broker and queues, the outbox, fairness, periodic jobs
- llm: chat and embedding models
- chat: the chat turn: pre-turn hooks, tools, message limits, compaction
- memory: experiences, export and erasure
- api: the REST API: errors, limits, paging, the OpenAPI schema
- web: the web chat and the demo accounts
- usage: metering and quotas
- integrations: webhooks and the MCP server
- logs: logging, with user content redacted
"""

from config.env import BASE_DIR, env  # noqa: F401 - re-exported for local, production and test

from .api import *  # noqa: F403 - one module per concern, gathered here
from .celery import *  # noqa: F403
from .chat import *  # noqa: F403
from .database import *  # noqa: F403
from .framework import *  # noqa: F403
from .integrations import *  # noqa: F403
from .llm import *  # noqa: F403
from .logs import *  # noqa: F403
from .memory import *  # noqa: F403
from .security import *  # noqa: F403
from .usage import *  # noqa: F403
from .web import *  # noqa: F403
