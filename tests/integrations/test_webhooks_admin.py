"""Webhooks in the admin: staff see their tenant's endpoints and deliveries only; a superuser re-enables a disabled
endpoint (its held events are queued), adds one with a checked URL, and reads a delivery's attempt log."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from assistants.services.staff import tenant_staff_add
from core.policy import memory_policy_for
from webhooks.models import WebhookDelivery, WebhookEndpoint
from webhooks.services import webhook_endpoint_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def hooks(tenant_a, tenant_b):
    made = {}
    for kit in (tenant_a, tenant_b):
        # port 9 refuses at once: a delivery a running worker may attempt costs nothing
        endpoint = webhook_endpoint_create(
            tenant=kit.tenant, url=f"http://127.0.0.1:9/{kit.tenant.slug}", events=["memory.created"]
        )
        delivery = WebhookDelivery.objects.for_tenant(kit.tenant).create(
            tenant=kit.tenant,
            endpoint=endpoint,
            event="memory.created",
            payload={"note": 5},
            status="held",
            log=[{"at": "2026-01-01T09:00:00Z", "attempt": 1, "status": 503, "error": "HTTP 503", "ms": 7}],
        )
        made[kit.tenant.slug] = (endpoint, delivery)
    return made


def test_staff_see_only_their_tenants_webhooks(client, tenant_a, hooks):
    client.force_login(tenant_staff_add(tenant=tenant_a.tenant, username="staff-hooks", password="pw-123456"))
    listed = client.get(reverse("admin:webhooks_webhookendpoint_changelist"))
    assert listed.status_code == 200
    assert {e.pk for e in listed.context["cl"].result_list} == {hooks["acme-int"][0].pk}
    other_endpoint, other_delivery = hooks["globex-int"]
    for name, obj in (("webhookendpoint", other_endpoint), ("webhookdelivery", other_delivery)):
        response = client.get(reverse(f"admin:webhooks_{name}_change", args=[obj.pk]))
        assert response.status_code in (302, 404)
    deliveries = client.get(reverse("admin:webhooks_webhookdelivery_changelist"))
    assert {d.pk for d in deliveries.context["cl"].result_list} == {hooks["acme-int"][1].pk}


def test_superuser_re_enables_and_reads_the_log(client, tenant_a, hooks):
    client.force_login(get_user_model().objects.create_superuser("root21", "r@example.com", "pw-123456"))
    endpoint, delivery = hooks["acme-int"]
    WebhookEndpoint.objects.for_tenant(tenant_a.tenant).filter(pk=endpoint.pk).update(
        disabled_at=timezone.now(), consecutive_failures=5
    )
    page = client.get(reverse("admin:webhooks_webhookdelivery_change", args=[delivery.pk])).content.decode()
    assert "HTTP 503" in page and "whsec_" not in page
    response = client.post(
        reverse("admin:webhooks_webhookendpoint_changelist"),
        {"action": "re_enable", "_selected_action": [endpoint.pk]},
        follow=True,
    )
    assert response.status_code == 200 and "1 held event queued" in response.content.decode()
    endpoint.refresh_from_db()
    delivery.refresh_from_db()
    assert endpoint.disabled_at is None and endpoint.consecutive_failures == 0 and delivery.status == "pending"
    hooks["globex-int"][1].refresh_from_db()
    assert hooks["globex-int"][1].status == "held"  # another tenant's delivery was not touched


def test_admin_add_checks_the_url(client, tenant_a, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    client.force_login(get_user_model().objects.create_superuser("root22", "r2@example.com", "pw-123456"))
    response = client.post(
        reverse("admin:webhooks_webhookendpoint_add"),
        {
            "tenant": tenant_a.tenant.pk,
            "url": "http://127.0.0.1:8000/x",
            "events": ["memory.created"],
            "is_active": "on",
            "description": "",
        },
    )
    assert response.status_code == 200 and "private, loopback or link-local" in response.content.decode()
    response = client.post(
        reverse("admin:webhooks_webhookendpoint_add"),
        {
            "tenant": tenant_a.tenant.pk,
            "url": "https://93.184.216.34/x",
            "events": ["memory.created", "user.erased"],
            "is_active": "on",
            "description": "crm",
        },
    )
    assert response.status_code == 302
    made = WebhookEndpoint.objects.for_tenant(tenant_a.tenant).get(description="crm")
    assert made.secret.startswith("whsec_") and made.events == ["memory.created", "user.erased"]


def test_send_again_requeues_a_failed_delivery_with_fresh_retries(client, tenant_a, hooks):
    client.force_login(get_user_model().objects.create_superuser("root23", "r3@example.com", "pw-123456"))
    _, delivery = hooks["acme-int"]
    WebhookDelivery.objects.for_tenant(tenant_a.tenant).filter(pk=delivery.pk).update(status="failed", attempts=12)
    response = client.post(
        reverse("admin:webhooks_webhookdelivery_changelist"),
        {"action": "resend", "_selected_action": [delivery.pk]},
        follow=True,
    )
    assert "1 delivery queued again" in response.content.decode()
    delivery.refresh_from_db()
    # Retries start again from none (a worker of the test session may already have made one new attempt).
    assert delivery.status == "pending" and delivery.attempts < 12


def test_a_rolled_back_write_records_no_event(tenant_a, hooks):
    from django.db import transaction

    from assistants.services.tenants import end_user_get_or_create
    from memory.services.notes.notes import memory_note_create

    user = end_user_get_or_create(tenant=tenant_a.tenant, external_id="undo")
    before = WebhookDelivery.objects.for_tenant(tenant_a.tenant).count()
    with pytest.raises(RuntimeError), transaction.atomic():
        memory_note_create(
            tenant=tenant_a.tenant,
            end_user=user,
            kind="profile",
            content="The user is a chef.",
            policy=memory_policy_for(tenant=tenant_a.tenant),
        )
        assert WebhookDelivery.objects.for_tenant(tenant_a.tenant).count() == before + 1  # written in the write's
        raise RuntimeError("the write fails after the note")  # transaction ...
    assert WebhookDelivery.objects.for_tenant(tenant_a.tenant).count() == before  # ... and gone with it
    memory_note_create(
        tenant=tenant_a.tenant,
        end_user=user,
        kind="profile",
        content="The user is a chef.",
        policy=memory_policy_for(tenant=tenant_a.tenant),
    )
    assert WebhookDelivery.objects.for_tenant(tenant_a.tenant).count() == before + 1
