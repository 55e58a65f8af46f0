"""Development defaults: what `make run` uses."""

from .base import *  # noqa: F403 - split settings: each layer starts from all of base's names
from .base import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)
# Webhooks to a receiver on this machine (127.0.0.1) are allowed for development; production refuses them.
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env.bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=True)
# The login page names the demo account `make run` seeds. Not tied to DEBUG: `make run` serves the web chat with
# DEBUG off (core.management.commands.runplatform), and a first visitor still needs the demo login.
SHOW_DEMO_ACCOUNT = env.bool("SHOW_DEMO_ACCOUNT", default=True)
