"""The language of a sentence a service writes for the user: the user's own (Chinese when they wrote Chinese), not
the language of the request that happens to run it (a worker has none; the web chat's may differ).

Services write English msgids with gettext (`django.utils.translation`), inside `user_language(chinese)`; the
Chinese is in locale/zh_Hans, compiled with the web chat's own messages.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from django.utils import translation

CHINESE = "zh-hans"
ENGLISH = "en"


def user_language(chinese: bool) -> AbstractContextManager:
    """Activate Chinese or English for the sentences written inside the block (then restore the previous one)."""
    return translation.override(CHINESE if chinese else ENGLISH)
