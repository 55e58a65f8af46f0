"""A tenant's staff see and change only their tenant's data in the admin; superusers see all."""

import pytest
from django.contrib import admin
from django.urls import reverse

from memory.models import MemoryNote
from tenancy.models import ChatSession, EndUser, Tenant

pytestmark = pytest.mark.django_db


def url(model, view, *args):
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def tenant_of(obj):
    return obj.pk if isinstance(obj, Tenant) else getattr(obj, "tenant_id", None)


def scoped_models():
    return [
        (m, a)
        for m, a in admin.site._registry.items()
        if m is Tenant or any(f.name == "tenant" for f in m._meta.concrete_fields)
    ]


def test_staff_changelists_show_only_their_tenant(staff_client_a, world):
    a, b = world["acme"]["tenant"], world["globex"]["tenant"]
    seen_models = 0
    for model, _ in scoped_models():
        response = staff_client_a.get(url(model, "changelist"))
        if response.status_code == 403:  # no permission for this model at all (e.g. staff links)
            continue
        assert response.status_code == 200, model.__name__
        rows = list(response.context["cl"].result_list)
        assert all(tenant_of(r) == a.pk for r in rows), model.__name__
        assert not any(tenant_of(r) == b.pk for r in rows), model.__name__
        seen_models += 1
    assert seen_models >= 14


def test_staff_cannot_open_another_tenants_objects_by_url(staff_client_a, world):
    b = world["globex"]
    targets = [
        b["tenant"],
        b["person"]["user"],
        b["assistant"],
        b["key"],
        b["person"]["session"],
        b["person"]["messages"][0],
        b["person"]["notes"][1],
        b["person"]["task"],
        b["person"]["experience"],
        b["person"]["jobs"][0],
        b["receipt"],
        b["person"]["task_type"],
        b["person"]["pii"],
    ]
    for obj in targets:
        response = staff_client_a.get(url(type(obj), "change", obj.pk))
        assert response.status_code in (302, 404), type(obj).__name__
        if response.status_code == 302:
            assert response["Location"] == reverse("admin:index")
    own = world["acme"]["person"]["notes"][1]
    assert staff_client_a.get(url(MemoryNote, "change", own.pk)).status_code == 200
    health_b = reverse("admin:tenancy_tenant_health", args=[b["tenant"].pk])
    assert staff_client_a.get(health_b).status_code == 404
    # The review inbox of B's pending note, and B's pending note through the inbox URL.
    pending_b = b["person"]["notes"][2]
    assert staff_client_a.get(reverse("admin:memory_reviewinboxnote_change", args=[pending_b.pk])).status_code == 302


def test_staff_actions_on_forged_ids_touch_nothing(staff_client_a, world):
    pending_b = world["globex"]["person"]["notes"][2]
    user_b = world["globex"]["person"]["user"]
    staff_client_a.post(url(MemoryNote, "changelist"), {"action": "approve", "_selected_action": [pending_b.pk]})
    pending_b.refresh_from_db()
    assert pending_b.status == MemoryNote.Status.PENDING_REVIEW
    staff_client_a.post(
        url(EndUser, "changelist"), {"action": "erase_users", "_selected_action": [user_b.pk], "confirm": "yes"}
    )
    user_b.refresh_from_db()
    assert user_b.erasure_requested_at is None


def test_staff_form_choices_are_limited_to_their_tenant(staff_client_a, world):
    a, b = world["acme"], world["globex"]
    form = staff_client_a.get(url(ChatSession, "add")).context["adminform"].form
    assert set(form.fields["tenant"].queryset) == {a["tenant"]}
    assert set(form.fields["end_user"].queryset.values_list("tenant_id", flat=True)) == {a["tenant"].pk}
    assert set(form.fields["assistant"].queryset) == {a["assistant"]}
    # Posting B's end user by id is refused.
    response = staff_client_a.post(
        url(ChatSession, "add"),
        {
            "tenant": a["tenant"].pk,
            "end_user": b["person"]["user"].pk,
            "assistant": a["assistant"].pk,
            "title": "x",
            "summary_version": 0,
            "messages-TOTAL_FORMS": 0,
            "messages-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 200 and "end_user" in response.context["adminform"].form.errors
    assert not ChatSession.objects.for_tenant(a["tenant"]).filter(title="x").exists()
    # The autocomplete endpoint does not offer B's users either.
    found = staff_client_a.get(
        reverse("admin:autocomplete"),
        {"app_label": "tenancy", "model_name": "chatsession", "field_name": "end_user", "term": "u-"},
    ).json()
    ids = {int(r["id"]) for r in found["results"]}
    assert ids and ids <= set(EndUser.objects.for_tenant(a["tenant"]).values_list("pk", flat=True))


def test_superuser_form_refuses_mixing_tenants(admin_client_root, world):
    a, b = world["acme"], world["globex"]
    response = admin_client_root.post(
        url(ChatSession, "add"),
        {
            "tenant": a["tenant"].pk,
            "end_user": b["person"]["user"].pk,
            "assistant": a["assistant"].pk,
            "title": "mixed",
            "summary_version": 0,
            "messages-TOTAL_FORMS": 0,
            "messages-INITIAL_FORMS": 0,
        },
    )
    assert "another tenant" in str(response.context["adminform"].form.errors)


def test_superuser_sees_every_tenant(admin_client_root, world):
    rows = admin_client_root.get(url(MemoryNote, "changelist")).context["cl"].result_list
    assert {n.tenant_id for n in rows} == {world["acme"]["tenant"].pk, world["globex"]["tenant"].pk}


def test_staff_without_tenant_link_sees_nothing(client, world):
    from tenancy.models import TenantStaff

    staff = world["acme"]["staff"]
    TenantStaff.objects.filter(user=staff).delete()
    client.force_login(staff)
    response = client.get(url(MemoryNote, "changelist"))
    assert response.status_code == 403 or not list(response.context["cl"].result_list)


def test_staff_cannot_moderate_another_tenants_note_by_url(staff_client_a, world):
    note_b = world["globex"]["person"]["notes"][1]
    response = staff_client_a.post(reverse("admin:memory_memorynote_moderate", args=[note_b.pk, "expire"]))
    assert response.status_code == 404
    note_b.refresh_from_db()
    assert note_b.status == MemoryNote.Status.ACTIVE
    note_a = world["acme"]["person"]["notes"][1]
    assert (
        staff_client_a.post(reverse("admin:memory_memorynote_moderate", args=[note_a.pk, "expire"])).status_code == 302
    )
    note_a.refresh_from_db()
    assert note_a.status == MemoryNote.Status.EXPIRED


def test_add_tenant_staff_command_gives_a_working_scoped_login(client, world, capsys):
    from django.core.management import call_command

    call_command("add_tenant_staff", "globex", "support-globex", "--password", "pw-654321")
    assert "now staff of tenant 'globex'" in capsys.readouterr().out
    assert client.login(username="support-globex", password="pw-654321")
    index = client.get(reverse("admin:index")).content.decode()
    assert "Memory notes" in index and "Review inbox" in index and "Periodic tasks" not in index
    rows = client.get(url(EndUser, "changelist")).context["cl"].result_list
    assert {u.tenant_id for u in rows} == {world["globex"]["tenant"].pk}
