from django.apps import AppConfig


class ToolsConfig(AppConfig):
    """Tools the chat turn's model may call: built-in memory tools, a tenant's HTTP tools, Python tools by path."""

    name = "tools"
    verbose_name = "Tools"
