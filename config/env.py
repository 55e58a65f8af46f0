"""The one `env` object every setting is read through, and the project folder. A `.env` file there is read first;
a variable set in the real environment wins over it."""

from __future__ import annotations

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)
