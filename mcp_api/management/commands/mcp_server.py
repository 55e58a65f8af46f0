"""`python manage.py mcp_server --tenant <slug>`: the MCP server over stdio, for desktop agents.

The agent starts this command and talks JSON-RPC over its stdin/stdout; whoever can run it can read the
database, so the tenant is given on the command line instead of by an API key. Logs go to stderr only: stdout
carries the protocol.
"""

import logging
import sys

import anyio
from django.core.management.base import BaseCommand, CommandError

from mcp_api.server import build_mcp_server
from tenancy.models import Tenant


class Command(BaseCommand):
    help = "Serve the MCP tools (remember, recall, ...) of one tenant over stdio."

    def add_arguments(self, parser):
        parser.add_argument("--tenant", required=True, help="The tenant's slug.")

    def handle(self, *args, tenant, **options):
        found = Tenant.objects.filter(slug=tenant).first()
        if found is None:
            raise CommandError(f"There is no tenant with the slug '{tenant}'.")
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.StreamHandler) and getattr(handler, "stream", None) is sys.stdout:
                handler.setStream(sys.stderr)
        actor = f"mcp-stdio:{found.slug}"
        server = build_mcp_server(tenant_of=lambda ctx: (found, actor))
        anyio.run(server.run_stdio_async)
