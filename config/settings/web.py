"""The web chat for end users (web/, docs/web.md) and the demo accounts `make run` seeds."""

from __future__ import annotations

from config.env import env

# The web chat lists this many conversations, and "What I remember" this many notes, per page.
WEB_SESSIONS_PER_PAGE = env.int("WEB_SESSIONS_PER_PAGE", default=50)
WEB_NOTES_PER_PAGE = env.int("WEB_NOTES_PER_PAGE", default=50)
# How long "Forget" on a note's card can be taken back before it is sent (docs/web.md).
WEB_FORGET_UNDO_SECONDS = env.int("WEB_FORGET_UNDO_SECONDS", default=8)
DEMO_PASSWORD = env("DEMO_PASSWORD", default="demo-pass-123")
