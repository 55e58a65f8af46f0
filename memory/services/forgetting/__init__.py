"""Forgetting: forget requests, TTL, decay and archiving."""
