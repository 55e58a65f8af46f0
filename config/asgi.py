"""ASGI entry point: `make run` serves it with uvicorn so that replies can stream (server-sent events)."""

import os

import django

from core.asgi_handler import SyncStackASGIHandler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
# Requests run in threads of their own here: share a bounded connection pool among them (config/settings/database.py).
os.environ.setdefault("DATABASE_POOL_MAX_SIZE", "8")
django.setup(set_prefix=False)  # what get_asgi_application() does before it builds Django's own handler
# Django's handler with the middleware run in sync mode, in one trip to the request's thread (core/asgi_handler.py)
django_application = SyncStackASGIHandler()

from assistants.warmup import web_process_warm_up  # noqa: E402 - needs the apps loaded by django.setup()
from core.request_limits import BodySizeLimit  # noqa: E402 - needs the settings configured above
from mcp_api.asgi import mcp_mount  # noqa: E402 - the same

# /mcp/ is the MCP server (streamable HTTP); everything else is Django. The size limit wraps both: 413 before the
# body is read, on every route.
application = BodySizeLimit(mcp_mount(django_application))

web_process_warm_up()
