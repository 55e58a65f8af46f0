"""Whose address a request comes from, for the login lockout and the per-address API limits.

The address is the connection's (REMOTE_ADDR). Only when that connection comes from a proxy named in
TRUSTED_PROXIES does X-Forwarded-For count, read from the right: the first address that is not itself a trusted
proxy is the client. A client therefore cannot choose its address by sending the header, and a proxy chain is
followed only as far as the proxies you named. `make run` starts uvicorn with the same list
(`runplatform.uvicorn_proxy_options`), so uvicorn's own view of the client agrees with this one.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@lru_cache(maxsize=8)
def _networks(trusted: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in trusted if entry.strip())


def _parsed(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(address.strip().strip("[]"))
    except ValueError:
        return None


def is_trusted_proxy(address: str) -> bool:
    parsed = _parsed(address)
    return parsed is not None and any(parsed in network for network in _networks(tuple(settings.TRUSTED_PROXIES)))


def client_address(request) -> str:
    """The client's address (AXES_CLIENT_IP_CALLABLE, and the key of the per-address limits). `request` is a Django
    or DRF request, or anything with a `META` dict."""
    remote = str(request.META.get("REMOTE_ADDR") or "")
    if not remote or not is_trusted_proxy(remote):
        return remote
    hops = [hop.strip() for hop in str(request.META.get("HTTP_X_FORWARDED_FOR") or "").split(",") if hop.strip()]
    for hop in reversed(hops):
        if _parsed(hop) is None:
            return remote  # a malformed entry: nothing left of it can be trusted either
        if not is_trusted_proxy(hop):
            return hop
    return hops[0] if hops else remote
