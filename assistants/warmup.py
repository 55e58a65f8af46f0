"""A web process's one-time costs, paid when it starts instead of in its first requests."""

from __future__ import annotations

import importlib

from django.utils.module_loading import import_string


def web_process_warm_up() -> None:
    """Import what a chat turn imports lazily and load the tokenizer, so that the first user of a fresh process
    does not wait seconds for them (the URLconf imports the model client libraries, the hooks and the tokenizer
    load on first use); with several web workers each would pay it in a user's request.
    Touches no database, so a process still starts while PostgreSQL is down."""
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports every view and what they import
    from assistants.services.hooks import pre_turn_hooks

    for path in pre_turn_hooks():
        import_string(path)
    for module in (
        "assistants.services.context",
        "assistants.jobs",
        "memory.jobs",
        "memory.services.recall.recall",
        "memory.services.writing.extraction",
    ):
        importlib.import_module(module)
    from assistants.services.tokens import token_count
    from memory.services.vectors.embeddings import search_terms

    token_count("warm up 预热")
    search_terms("warming up")  # English keyword terms load lemminflect's lexicon at first use
