"""ASGI entry point: `make run` serves it with uvicorn so that replies can stream (server-sent events)."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
application = get_asgi_application()
