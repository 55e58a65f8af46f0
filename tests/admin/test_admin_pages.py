"""Every admin page renders, with data present, for every registered model (a model registered later is
covered automatically, and fails here until the fixture gives it a row)."""

import pytest
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse

from assistants.services.tenants import hash_api_key
from memory.models import MemoryNote
from tenancy.models import ApiKey, Tenant

pytestmark = pytest.mark.django_db


def url(model, view, *args):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def test_every_registered_model_has_changelist_add_and_change_pages(admin_client_root, world):
    request = RequestFactory().get("/")
    request.user = world["superuser"]
    checked = []
    for model, model_admin in admin.site._registry.items():
        response = admin_client_root.get(url(model, "changelist"))
        assert response.status_code == 200, f"{model.__name__} changelist: {response.status_code}"
        obj = model_admin.get_queryset(request).first()
        assert obj is not None, f"give {model.__name__} a row in tests/admin/conftest.py::world"
        response = admin_client_root.get(url(model, "change", obj.pk))
        assert response.status_code == 200, f"{model.__name__} change page: {response.status_code}"
        if model_admin.has_add_permission(request):
            response = admin_client_root.get(url(model, "add"))
            assert response.status_code == 200, f"{model.__name__} add page: {response.status_code}"
        checked.append(model.__name__)
    for name in (
        "Tenant",
        "EndUser",
        "Assistant",
        "ApiKey",
        "TaskType",
        "ChatSession",
        "MemoryNote",
        "ReviewInboxNote",
        "TaskState",
        "Experience",
        "JobRecord",
        "ErasureReceipt",
        "AuditLog",
        "PeriodicTask",
    ):
        assert name in checked


def test_every_note_filter_renders_and_filters(admin_client_root, world):
    changelist = url(MemoryNote, "changelist")
    pending = world["acme"]["person"]["notes"][2]
    for query in (
        "confidence=lt0.3",
        "confidence=0.3-0.5",
        "confidence=gte0.8",
        "expires=7d",
        "expires=never",
        "recalled=never",
        "recalled=yes",
        "status__exact=pending_review",
        "source__exact=agent_inferred",
        "kind__exact=plan",
        f"tenant__id__exact={world['acme']['tenant'].pk}",
        f"end_user__id__exact={pending.end_user_id}",
        "q=面积",
    ):
        assert admin_client_root.get(f"{changelist}?{query}").status_code == 200, query
    shown = admin_client_root.get(f"{changelist}?confidence=0.3-0.5").context["cl"].result_list
    assert {n.pk for n in shown} == {
        n.pk for n in MemoryNote.objects.unscoped().filter(confidence__gte=0.3, confidence__lt=0.5)
    }
    assert pending.pk in {n.pk for n in shown}
    searched = admin_client_root.get(f"{changelist}?q=面馆面积").context["cl"].result_list
    assert {n.pk for n in searched} == {n.pk for n in MemoryNote.objects.unscoped().filter(content="面馆面积 60 平米")}
    assert pending.pk in {n.pk for n in searched} and len(searched) == 2


def test_note_page_shows_provenance_and_supersede_chain(admin_client_root, world):
    old, new, _pending, _forgotten = world["acme"]["person"]["notes"]
    source = world["acme"]["person"]["messages"][0]
    page = admin_client_root.get(url(MemoryNote, "change", new.pk)).content.decode()
    assert reverse("admin:tenancy_message_change", args=[source.pk]) in page
    assert source.content in page
    assert url(MemoryNote, "change", old.pk) in page and "superseded" in page


def test_session_page_shows_messages_read_only(admin_client_root, world):
    session = world["acme"]["person"]["session"]
    page = admin_client_root.get(url(type(session), "change", session.pk)).content.decode()
    for message in world["acme"]["person"]["messages"]:
        assert message.content in page
    assert 'name="messages-0-content"' not in page  # shown, not editable


def test_tenant_policy_is_grouped_and_validated(admin_client_root, world):
    tenant = world["acme"]["tenant"]
    page = admin_client_root.get(url(Tenant, "change", tenant.pk)).content.decode()
    for heading in (
        "window and token budgets",
        "how long each kind of note is kept",
        "Personal identifiers",
        "Decay",
        "Models",
    ):
        assert heading in page
    form = admin_client_root.get(url(Tenant, "change", tenant.pk)).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None}
    data.update(
        {
            "ttl_days_by_kind": '{"plan": 0}',
            "review_confidence_threshold": "0.6",
            "staff-TOTAL_FORMS": "0",
            "staff-INITIAL_FORMS": "0",
        }
    )
    response = admin_client_root.post(url(Tenant, "change", tenant.pk), data)
    assert response.status_code == 200 and "at least 1" in response.content.decode()
    data["ttl_days_by_kind"] = '{"plan": 14, "profile": 365}'
    response = admin_client_root.post(url(Tenant, "change", tenant.pk), data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    tenant.refresh_from_db()
    assert tenant.ttl_days_by_kind == {"plan": 14, "profile": 365} and tenant.review_confidence_threshold == 0.6


def test_api_key_raw_value_is_shown_once_and_revoke_stops_it(admin_client_root, world):
    tenant = world["acme"]["tenant"]
    response = admin_client_root.post(url(ApiKey, "add"), {"tenant": tenant.pk, "name": "crm"}, follow=True)
    shown = [str(m) for m in response.context["messages"] if "shown only this once" in str(m)]
    assert len(shown) == 1
    raw = shown[0].rsplit(" ", 1)[-1]
    key = ApiKey.objects.for_tenant(tenant).get(name="crm")
    assert key.hashed_key == hash_api_key(raw) and raw not in key.hashed_key
    page = admin_client_root.get(url(ApiKey, "change", key.pk)).content.decode()
    assert raw not in page
    admin_client_root.post(url(ApiKey, "changelist"), {"action": "revoke_keys", "_selected_action": [key.pk]})
    key.refresh_from_db()
    assert key.revoked_at is not None


def test_health_dashboard_and_review_inbox_render(admin_client_root, world):
    tenant = world["acme"]["tenant"]
    page = admin_client_root.get(reverse("admin:tenancy_tenant_health", args=[tenant.pk])).content.decode()
    assert "Duplicate rate" in page and "Superseded per week" in page and "PII rejections" in page
    inbox = admin_client_root.get(reverse("admin:memory_reviewinboxnote_changelist"))
    pending = {n.pk for n in inbox.context["cl"].result_list}
    assert pending == set(MemoryNote.objects.unscoped().filter(status="pending_review").values_list("pk", flat=True))
    assert "inferred by the assistant" in inbox.content.decode()


def test_an_address_from_before_the_tenancy_app_leads_to_the_page(admin_client_root, world):
    """Issue 40 moved tenants, end users, sessions... from the assistants app to tenancy: /admin/assistants/...
    addresses (bookmarks, links in tickets) are sent on to the same page."""
    tenant = Tenant.objects.first()
    response = admin_client_root.get(f"/admin/assistants/tenant/{tenant.pk}/change/?_changelist_filters=q%3Dx")
    assert response.status_code == 302
    assert response["Location"] == f"{url(Tenant, 'change', tenant.pk)}?_changelist_filters=q%3Dx"
    assert admin_client_root.get(response["Location"]).status_code == 200
