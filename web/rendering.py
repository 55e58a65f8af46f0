"""Replies as HTML: Markdown parsed by markdown-it-py with raw HTML disabled, then sanitised by nh3 (Ammonia).

One function renders both the streamed text (each delta re-renders what has arrived so far) and the stored reply,
so what a person sees while a reply streams is what they see after a reload. A model's HTML never reaches the page:
markdown-it turns it into text, and nh3 keeps only the tags and attributes below, whatever the parser produced."""

from __future__ import annotations

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

# CommonMark plus GFM tables and strikethrough; "breaks": a single newline is a line break, as models write.
_PARSER = MarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False}).enable(["table", "strikethrough"])

ALLOWED_TAGS = {
    "p",
    "br",
    "hr",
    "strong",
    "em",
    "del",
    "s",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "a",
}
# No <img>: a remote image in a reply would tell its server who read it (a model can be made to write one).
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"class"}, "td": {"class"}, "code": {"class"}}
_ALIGN_CLASSES = {
    "text-align:left": "align-left",
    "text-align:center": "align-center",
    "text-align:right": "align-right",
}
URL_SCHEMES = {"http", "https", "mailto"}


def _class_filter(element: str, attribute: str, value: str) -> str | None:
    """Only the classes this module sets: a code block's language and a table column's alignment."""
    if attribute != "class":
        return value
    if element == "code":
        return value if value.startswith("language-") and value[9:].replace("-", "").isalnum() else None
    return value if value in _ALIGN_CLASSES.values() else None


def markdown_render(text: str) -> SafeString:
    """Safe HTML for a reply written in Markdown (lists, tables, code, links)."""
    env: dict = {}
    tokens = _PARSER.parse(text or "", env)
    for token in tokens:  # column alignment as a class, not an inline style a strict CSP would refuse
        if token.type in ("th_open", "td_open") and token.attrGet("style"):
            token.attrs = {"class": _ALIGN_CLASSES.get(str(token.attrGet("style")), "")}
    html = _PARSER.renderer.render(tokens, _PARSER.options, env)
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        attribute_filter=_class_filter,
        strip_comments=True,
    )
    return mark_safe(clean)  # noqa: S308 - sanitised by nh3 just above
