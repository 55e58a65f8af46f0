"""Where a webhook may be delivered (webhooks.services): only http(s) URLs whose host resolves to public
addresses, checked when an endpoint is saved and again, on the resolved address, at each delivery."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

from core.exceptions import InvalidInput


def _address_allowed(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def webhook_url_check(url: str) -> str:
    """The URL, if it may receive webhooks; else InvalidInput with a sentence saying why."""
    return webhook_url_resolve(url)[0]


def webhook_url_resolve(url: str) -> tuple[str, str | None]:
    """(url, the public address to connect to) or InvalidInput. The address is None when private addresses are
    allowed (local settings), where the URL is used as it is."""
    url = (url or "").strip()
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or port == -1:
        raise InvalidInput(
            "A webhook URL must be an http:// or https:// URL with a host (and a valid port).",
            code="invalid_url",
            details={"url": url[:500]},
        )
    if parts.username or parts.password:
        raise InvalidInput(
            "Put no user name or password in a webhook URL; deliveries are signed instead.", code="invalid_url"
        )
    if settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES:
        return url, None
    try:
        infos = socket.getaddrinfo(
            parts.hostname, port or (443 if parts.scheme == "https" else 80), proto=socket.IPPROTO_TCP
        )
    except (socket.gaierror, UnicodeError):
        raise InvalidInput(f"The host '{parts.hostname}' could not be resolved.", code="invalid_url") from None
    addresses = [str(info[4][0]) for info in infos]  # an IPv4/IPv6 address string for TCP
    blocked = sorted({a for a in addresses if not _address_allowed(a)})
    if blocked or not addresses:
        raise InvalidInput(
            f"'{parts.hostname}' resolves to a private, loopback or link-local address; webhooks "
            f"go to public addresses only.",
            code="url_not_public",
            details={"addresses": blocked},
        )
    return url, addresses[0]


def webhook_request_target(url: str, address: str | None) -> tuple[str, dict, dict]:
    """(url to connect to, extra headers, httpx extensions). With an address, the connection goes to that checked
    address (so DNS cannot answer differently between the check and the request) while the Host header, TLS SNI
    and certificate check keep the URL's host name."""
    if address is None:
        return url, {}, {}
    parts = urlsplit(url)
    ip = ipaddress.ip_address(address.split("%")[0])
    host = f"[{ip}]" if ip.version == 6 else str(ip)
    netloc = f"{host}:{parts.port}" if parts.port else host
    pinned = parts._replace(netloc=netloc).geturl()
    host_header = parts.hostname if not parts.port else f"{parts.hostname}:{parts.port}"
    extensions = {"sni_hostname": parts.hostname} if parts.scheme == "https" else {}
    return pinned, {"Host": host_header}, extensions


# --- endpoints -----------------------------------------------------------------------------------------------------
