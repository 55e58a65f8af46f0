"""Labels the pages show for stored codes (note kinds, sources), translated."""

from django import template
from django.utils.translation import gettext_lazy as _

register = template.Library()

KIND_LABELS = {
    "profile": _("About you"),
    "preference": _("Preference"),
    "plan": _("Plan"),
    "business_status": _("Business status"),
    "constraint": _("Constraint"),
    "conclusion": _("Conclusion"),
}

SOURCE_LABELS = {
    "user_stated": _("You said it"),
    "agent_inferred": _("Inferred by the assistant"),
    "tool_result": _("From a tool"),
    "admin": _("Added by an administrator"),
}


@register.filter
def kind_label(kind):
    return KIND_LABELS.get(kind, kind or "")


@register.filter
def source_label(source):
    return SOURCE_LABELS.get(source, source or "")


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
