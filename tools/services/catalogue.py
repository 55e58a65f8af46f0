"""What a turn's model may call: the built-in memory tools, the Python tools of settings that its assistant lists
(Assistant.python_tools), and the tenant's HTTP tools listed for its assistant. Another tenant's tool is never
looked at: the query carries the tenant."""

from __future__ import annotations

from functools import cache

from django.conf import settings
from django.utils.module_loading import import_string

from tools.models import Tool
from tools.services.memory_tools import LONG_TERM_TOOLS, MEMORY_TOOLS
from tools.types import ToolSpec


def _python_spec(path: str) -> ToolSpec:
    """A function of ASSISTANT_PYTHON_TOOLS as a tool: named by the last part of its path (what
    Assistant.python_tools lists), its docstring's first paragraph the description, `tool_parameters` its JSON
    Schema, `tool_timeout_seconds` its timeout (ASSISTANT_PYTHON_TOOL_TIMEOUT_SECONDS if unset), `tool_cacheable`
    False for a tool whose answer changes from one call to the next."""
    function = import_string(path)
    name = path.rsplit(".", 1)[-1]
    doc = (function.__doc__ or "").strip()
    parameters = getattr(function, "tool_parameters", None) or {"type": "object", "properties": {}}

    def run(ctx, **arguments):
        return function(**arguments)

    return ToolSpec(
        name=name,
        description=doc.split("\n\n")[0][:1000],
        parameters=parameters,
        kind="python",
        label=name,
        run=run,
        cacheable=bool(getattr(function, "tool_cacheable", True)),
        timeout=float(getattr(function, "tool_timeout_seconds", 0) or settings.ASSISTANT_PYTHON_TOOL_TIMEOUT_SECONDS),
    )


@cache
def _python_specs(paths: tuple[str, ...]) -> tuple[ToolSpec, ...]:
    return tuple(_python_spec(path) for path in paths)


def python_tool_specs() -> list[ToolSpec]:
    return list(_python_specs(tuple(settings.ASSISTANT_PYTHON_TOOLS)))


def reserved_tool_names() -> set[str]:
    return {spec.name for spec in MEMORY_TOOLS} | {spec.name for spec in python_tool_specs()}


def tool_specs_for(*, tenant, assistant, long_term: bool) -> list[ToolSpec]:
    """The tools a turn of `assistant` may offer its model: memory tools (the search, note and forget ones only
    when the turn uses long-term memory), the Python tools it lists, and the tenant's active HTTP tools listed
    for it."""
    specs = [spec for spec in MEMORY_TOOLS if long_term or spec.name not in LONG_TERM_TOOLS]
    listed = set(assistant.python_tools or [])
    specs += [spec for spec in python_tool_specs() if spec.name in listed]
    rows = Tool.objects.for_tenant(tenant).filter(is_active=True, assistants=assistant).order_by("name")
    specs += [
        ToolSpec(
            name=row.name,
            description=row.description,
            parameters=row.parameters or {"type": "object", "properties": {}},
            kind="http",
            label=row.name,
            tool=row,
            cacheable=True,
        )
        for row in rows
    ]
    return specs
