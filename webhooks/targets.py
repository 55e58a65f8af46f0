"""Where a webhook may be delivered (webhooks.services): only http(s) URLs whose host resolves to allowed
addresses, checked when an endpoint is saved and again, on the resolved address, at each delivery (the request
goes to the address checked, so DNS cannot answer differently a moment later).

Link-local (169.254/16, fe80::/10), cloud metadata, multicast, unspecified and reserved addresses are refused
under every setting: a webhook there reaches the machine's own cloud credentials or the local network segment,
never a receiver. Loopback and private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7) are
allowed only with WEBHOOK_ALLOW_PRIVATE_ADDRESSES (the local and test settings, for a receiver on this machine).
An IPv6 form of an IPv4 address (mapped, NAT64, 6to4, Teredo) is judged by the IPv4 address inside."""

from __future__ import annotations

import ipaddress
import socket
from typing import TypeAlias
from urllib.parse import urlsplit

from django.conf import settings

from core.exceptions import InvalidInput

IP: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address

# Cloud metadata services outside link-local: AWS over IPv6 (in fc00::/7), Alibaba Cloud (in 100.64/10),
# Oracle Cloud's older one (in 192.0.0/24). 169.254.169.254 (AWS, GCP, Azure, ...) is link-local.
METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a) for a in ("fd00:ec2::254", "100.100.100.200", "192.0.0.192", "169.254.169.254")
)
PRIVATE_NETWORKS = tuple(
    ipaddress.ip_network(n)
    for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7", "127.0.0.0/8", "::1/128")
)
NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _inner(ip: IP) -> IP:
    """The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4, Teredo's client), else the address."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped:
            return ip.ipv4_mapped
        if ip in NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if ip.sixtofour:
            return ip.sixtofour
        if ip.teredo:
            return ip.teredo[1]
    return ip


def address_refusal(address: str, *, allow_private: bool) -> str | None:
    """Why a webhook may not go to `address` (a few words), or None if it may."""
    ip = _inner(ipaddress.ip_address(address.split("%")[0]))
    if ip in METADATA_ADDRESSES:
        return "a cloud metadata address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_global:
        return None
    if allow_private and any(ip in network for network in PRIVATE_NETWORKS):
        return None
    return "a private or loopback address" if ip.is_private or ip.is_loopback else "a reserved address"


def webhook_url_check(url: str) -> str:
    """The URL, if it may receive webhooks; else InvalidInput with a sentence saying why."""
    return webhook_url_resolve(url)[0]


def webhook_url_resolve(url: str) -> tuple[str, str | None]:
    """(url, the checked address to connect to) or InvalidInput with a sentence. Every address the host resolves
    to must be allowed (a name that also resolves to a refused address is refused)."""
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
    try:
        infos = socket.getaddrinfo(
            parts.hostname, port or (443 if parts.scheme == "https" else 80), proto=socket.IPPROTO_TCP
        )
    except (socket.gaierror, UnicodeError):
        raise InvalidInput(f"The host '{parts.hostname}' could not be resolved.", code="invalid_url") from None
    addresses = [str(info[4][0]) for info in infos]  # an IPv4/IPv6 address string for TCP
    allow_private = settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES
    refused = {a: why for a in addresses if (why := address_refusal(a, allow_private=allow_private))}
    if refused or not addresses:
        why = sorted(set(refused.values()))[0] if refused else "no address"
        rule = (
            "never to link-local, metadata or multicast addresses"
            if allow_private
            else "public addresses only, never to private, loopback or link-local ones (nor metadata or multicast)"
        )
        raise InvalidInput(
            f"'{parts.hostname}' resolves to {why}; webhooks go to {rule}.",
            code="url_not_public",
            details={"addresses": sorted(refused)},
        )
    # IPv4 first: a receiver on this machine often listens on 127.0.0.1 only, while 'localhost' lists ::1 first
    return url, min(addresses, key=lambda a: ":" in a)


def webhook_request_target(url: str, address: str | None) -> tuple[str, dict, dict]:
    """(url to connect to, extra headers, httpx extensions). The connection goes to the checked `address` (so DNS
    cannot answer differently between the check and the request) while the Host header, TLS SNI and certificate
    check keep the URL's host name. Without an address the URL is used as it is."""
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
