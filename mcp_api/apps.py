from django.apps import AppConfig


class McpApiConfig(AppConfig):
    """The MCP server: /mcp/ on the web process (mcp_api.asgi) and `manage.py mcp_server` over stdio."""

    name = "mcp_api"
    verbose_name = "MCP server"
