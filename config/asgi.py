"""ASGI entry point: `make run` serves it with uvicorn so that replies can stream (server-sent events)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
# Requests run in threads of their own here: share a bounded connection pool among them (config/settings/database.py).
os.environ.setdefault("DATABASE_POOL_MAX_SIZE", "8")
django_application = get_asgi_application()

from assistants.warmup import web_process_warm_up  # noqa: E402 - needs the apps loaded by get_asgi_application()
from core.request_limits import BodySizeLimit  # noqa: E402 - needs the settings configured above
from mcp_api.asgi import mcp_mount  # noqa: E402 - the same

# /mcp/ is the MCP server (streamable HTTP); everything else is Django. The size limit wraps both: 413 before the
# body is read, on every route.
application = BodySizeLimit(mcp_mount(django_application))

web_process_warm_up()
