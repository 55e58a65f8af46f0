"""Webhooks and the MCP server (docs/integrations.md)."""

from __future__ import annotations

from config.env import env

# Deliveries only to public addresses (checked after DNS resolution, at registration and before each delivery), so
# that a tenant cannot make the platform call into its own network; local settings allow private and loopback ones
# so that a developer can receive on 127.0.0.1.
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = env.bool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", default=False)
WEBHOOK_TIMEOUT_SECONDS = env.float("WEBHOOK_TIMEOUT_SECONDS", default=5.0)
# Retry n waits BACKOFF * 2^(n-1) s, at most BACKOFF_MAX: with the defaults 12 attempts span about 50 minutes,
# so a receiver that is down for a while loses nothing.
WEBHOOK_BACKOFF_SECONDS = env.float("WEBHOOK_BACKOFF_SECONDS", default=1.0)
WEBHOOK_BACKOFF_MAX_SECONDS = env.float("WEBHOOK_BACKOFF_MAX_SECONDS", default=600.0)
WEBHOOK_MAX_ATTEMPTS = env.int("WEBHOOK_MAX_ATTEMPTS", default=12)
WEBHOOK_DISABLE_AFTER = env.int("WEBHOOK_DISABLE_AFTER", default=5)  # deliveries in a row that failed for good
# Largest export the MCP `export_user` tool answers inline, so an agent's context is not flooded; a bigger one is
# downloaded from the REST export.
MCP_EXPORT_MAX_BYTES = env.int("MCP_EXPORT_MAX_BYTES", default=5_000_000)
