"""Webhook targets under every setting (issue 39): link-local (169.254/16, fe80::/10), cloud metadata, multicast,
unspecified and reserved addresses are refused at registration and at delivery, after DNS resolution, whether or
not WEBHOOK_ALLOW_PRIVATE_ADDRESSES lets loopback and private ranges through (local and test settings do).

Nothing here reaches another machine: the tests register literal addresses, the one name they resolve through a
stand-in resolver is never connected to, and a guard fails the test at any connection to an address other than
127.0.0.1 before a byte is sent."""

from __future__ import annotations

import ipaddress
import json
import socket

import pytest
from django.test import Client as DjangoClient
from django.test import override_settings

from tests.integrations.webhook_receiver import Receiver
from webhooks.models import WebhookDelivery, WebhookEndpoint
from webhooks.services import webhook_delivery_attempt, webhook_endpoint_create, webhook_url_check
from webhooks.targets import address_refusal

pytestmark = pytest.mark.django_db(transaction=True)

ALWAYS_REFUSED = [
    "http://169.254.169.254/latest/meta-data/",  # the cloud metadata address (link-local)
    "http://169.254.10.1:8080/hook",
    "http://[fe80::1]/hook",
    "http://[fd00:ec2::254]/latest",  # AWS metadata over IPv6 (in the private fc00::/7)
    "http://100.100.100.200/latest",  # Alibaba Cloud metadata (in 100.64/10)
    "http://[::ffff:169.254.169.254]/hook",  # IPv4-mapped
    "http://[64:ff9b::a9fe:a9fe]/hook",  # NAT64 of 169.254.169.254
    "http://[2002:a9fe:a9fe::1]/hook",  # 6to4 of 169.254.169.254
    "http://224.0.0.1/hook",
    "http://239.255.255.250:1900/hook",
    "http://[ff02::1]/hook",
    "http://0.0.0.0:9/hook",
    "http://[::]:9/hook",
    "http://255.255.255.255/hook",
    "http://240.0.0.1/hook",
]


@pytest.fixture
def no_other_host(monkeypatch):
    """Any connection to an address other than loopback fails the test before it is made."""
    attempts: list[str] = []
    real_connect = socket.socket.connect

    def connect(sock, address):
        host = address[0] if isinstance(address, tuple) else ""
        if sock.family in (socket.AF_INET, socket.AF_INET6) and not ipaddress.ip_address(host).is_loopback:
            attempts.append(host)
            raise OSError(f"the test refused a connection to {host}")
        return real_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    return attempts


@pytest.mark.parametrize("allow_private", [True, False], ids=["local-and-test", "production"])
@pytest.mark.parametrize("url", ALWAYS_REFUSED)
def test_registration_refuses_link_local_metadata_and_multicast_under_every_setting(
    tenant_a, url, allow_private, no_other_host
):
    with override_settings(WEBHOOK_ALLOW_PRIVATE_ADDRESSES=allow_private):
        response = DjangoClient().post(
            "/api/v1/webhooks/",
            json.dumps({"url": url, "events": ["memory.created"]}),
            content_type="application/json",
            headers={"Authorization": f"Bearer {tenant_a.key}"},
        )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "url_not_public" and "never to" in error["message"] and "link-local" in error["message"]
    assert not WebhookEndpoint.objects.for_tenant(tenant_a.tenant).exists()
    assert no_other_host == []


def test_loopback_and_private_only_where_the_setting_allows(tenant_a):
    for url in ("http://127.0.0.1:9/h", "http://10.1.2.3/h", "http://[::1]:9/h", "http://192.168.1.5/h"):
        with override_settings(WEBHOOK_ALLOW_PRIVATE_ADDRESSES=True):
            assert webhook_url_check(url) == url
        with override_settings(WEBHOOK_ALLOW_PRIVATE_ADDRESSES=False), pytest.raises(Exception) as refused:
            webhook_url_check(url)
        assert "private, loopback or link-local" in str(refused.value)
    assert address_refusal("93.184.216.34", allow_private=False) is None
    assert address_refusal("2606:2800:220:1:248:1893:25c8:1946", allow_private=False) is None


def test_a_name_is_judged_by_the_addresses_it_resolves_to(tenant_a, monkeypatch, no_other_host):
    """A host name resolving to the metadata address is refused at registration, even with private addresses
    allowed; one that resolves to a public and a link-local address too."""
    real = socket.getaddrinfo
    answers = {"metadata.test": ["169.254.169.254"], "split.test": ["93.184.216.34", "169.254.169.254"]}

    def resolve(host, *args, **kwargs):
        if host in answers:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 80)) for a in answers[host]]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    with override_settings(WEBHOOK_ALLOW_PRIVATE_ADDRESSES=True):
        for host in answers:
            with pytest.raises(Exception) as refused:
                webhook_endpoint_create(tenant=tenant_a.tenant, url=f"http://{host}/hook", events=["memory.created"])
            assert "link-local" in str(refused.value) or "metadata" in str(refused.value)
    assert not WebhookEndpoint.objects.for_tenant(tenant_a.tenant).exists()
    assert no_other_host == []


def test_delivery_refuses_a_target_that_now_resolves_to_link_local_and_sends_nothing(
    tenant_a, monkeypatch, no_other_host
):
    """Registered when its name pointed at the receiver on this machine; at delivery it points at the metadata
    address (DNS rebinding): the attempt records why and nothing is sent anywhere."""
    receiver = Receiver().start()
    try:
        real = socket.getaddrinfo
        answer = {"now": "127.0.0.1"}

        def resolve(host, port, *args, **kwargs):
            if host == "rebinding.test":
                return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answer["now"], port))]
            return real(host, port, *args, **kwargs)

        monkeypatch.setattr(socket, "getaddrinfo", resolve)
        with override_settings(WEBHOOK_ALLOW_PRIVATE_ADDRESSES=True):
            endpoint = webhook_endpoint_create(
                tenant=tenant_a.tenant, url=f"http://rebinding.test:{receiver.port}/hooks", events=["memory.created"]
            )
            answer["now"] = "169.254.169.254"
            row = WebhookDelivery.objects.for_tenant(tenant_a.tenant).create(
                tenant=tenant_a.tenant, endpoint=endpoint, event="memory.created", payload={"note": 1}
            )
            webhook_delivery_attempt(delivery_id=row.pk)
            row.refresh_from_db()
            assert "link-local" in row.last_error or "metadata" in row.last_error
            # A row stored before this rule (a literal metadata URL) is refused at delivery too.
            legacy = WebhookEndpoint.objects.for_tenant(tenant_a.tenant).create(
                tenant=tenant_a.tenant, url="http://169.254.169.254/latest", events=["memory.created"], secret="s"
            )
            old = WebhookDelivery.objects.for_tenant(tenant_a.tenant).create(
                tenant=tenant_a.tenant, endpoint=legacy, event="memory.created", payload={"note": 2}
            )
            webhook_delivery_attempt(delivery_id=old.pk)
            old.refresh_from_db()
            assert "metadata" in old.last_error
        assert receiver.received == [] and no_other_host == []
    finally:
        receiver.stop()
