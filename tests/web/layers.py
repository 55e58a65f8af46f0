"""Which of the other layers this checkout has. A few web tests drive a layer another helper is building (model
errors: the chat layer; notes: long-term memory; tasks: working memory; export/erasure: privacy). While that
layer is still the fixed-interface stub (a body that only raises NotImplementedError or returns a constant),
those tests skip and say which issue they wait for; the moment the layer is merged they run."""

from __future__ import annotations

import ast
import inspect
import textwrap

import pytest

from assistants.llm import get_chat_model
from assistants.services.privacy import user_erase_request, user_export
from memory.services.recall.recall import memory_recall
from memory.services.writing.extraction import memory_extract_for_message
from tasks.services.working_memory import task_route_message


def is_stub(function) -> bool:
    """True when the function body (after its docstring) is one placeholder statement."""
    definition = ast.parse(textwrap.dedent(inspect.getsource(function))).body[0]
    if not isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    body = definition.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]
    if len(body) != 1:
        return False
    statement = body[0]
    if isinstance(statement, ast.Raise):
        return "NotImplementedError" in ast.unparse(statement)
    if isinstance(statement, ast.Return):
        value = statement.value
        return (
            value is None
            or isinstance(value, (ast.Constant, ast.Dict, ast.List))
            or (isinstance(value, ast.Call) and not value.args and not value.keywords)
        )
    return False


def _needs(reason: str, *functions):
    return pytest.mark.skipif(any(is_stub(f) for f in functions), reason=f"waits for {reason}: still the stub here")


needs_chat_layer = _needs("the chat layer (issue 3: real model provider and errors)", get_chat_model)
needs_long_term_memory = _needs(
    "long-term memory (issue 4: extraction, recall, re-embedding)", memory_extract_for_message, memory_recall
)
needs_working_memory = _needs("working memory (issue 5: task states)", task_route_message)
needs_privacy = _needs("the privacy services (issue 7: export and erasure)", user_export, user_erase_request)
