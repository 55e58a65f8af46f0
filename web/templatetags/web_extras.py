"""Labels the pages show for stored codes (note kinds, sources), translated."""

from django import template
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from tools.services.memory_tools import MEMORY_TOOLS
from web.memory_labels import SOURCE_LABELS, fact_label, fact_value, pinned_fact_label, places_text

register = template.Library()

KIND_LABELS = {
    "profile": _("About you"),
    "preference": _("Preference"),
    "plan": _("Plan"),
    "business_status": _("Business status"),
    "constraint": _("Constraint"),
    "conclusion": _("Conclusion"),
}


@register.filter
def kind_label(kind):
    return KIND_LABELS.get(kind, kind or "")


@register.filter
def source_label(source):
    return SOURCE_LABELS.get(source, source or "")


@register.filter
def event_label(event):
    """What a memory event of a turn is about, in the page's language ("预算 约 40 万元")."""
    return fact_label(event.get("key", ""), event.get("label", ""))


@register.filter
def event_before(event):
    """The version a superseding event replaced, in the page's language."""
    return fact_label(event.get("key", ""), (event.get("before") or {}).get("label", ""))


@register.filter
def event_value(event):
    """The new value alone of a superseding event ("30 万元")."""
    return fact_value(event.get("key", ""), event.get("value", ""))


@register.filter
def places(names):
    return places_text(names)


@register.filter
def pinned_label(key):
    return pinned_fact_label(key)


@register.filter
def percent(value):
    try:
        return f"{round(float(value) * 100)}%"
    except (TypeError, ValueError):
        return ""


@register.filter
def markdown(text):
    """A reply's Markdown as sanitised HTML (web.rendering)."""
    from web.rendering import markdown_render

    return markdown_render(text)


MEMORY_TOOL_NAMES = frozenset(spec.name for spec in MEMORY_TOOLS)
TOOL_STATUS_LABELS = {  # a tool call's status (tools.services.toolbox.ToolOutcome), as the tool line says it
    "error": _("failed"),
    "timeout": _("timed out"),
    "too_large": _("answer too large"),
    "invalid_arguments": _("wrong arguments"),
    "unknown_tool": _("no such tool"),
    "refused": _("refused"),
}


@register.filter
def tool_label(call):
    """The tool line's label in the page's language: a built-in tool's from the catalogue (stored in English), a
    tenant's or Python tool's as it is named."""
    label = call.get("label") or call.get("name") or ""
    return gettext(label) if call.get("name") in MEMORY_TOOL_NAMES else label


@register.filter
def tool_status(status):
    return TOOL_STATUS_LABELS.get(status, status or "")
