"""Tenant and end user are filters one types into (issue 42): the lists of notes, conversations, messages,
ratings and task states offer Django's autocomplete box instead of a list of every tenant or every user; the
suggestions and the filtered list stay inside the tenants the staff member may see."""

import json
import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def _filter_box(page: str, field: str) -> str:
    found = re.search(rf'<select[^>]*data-field-name="{field}"[^>]*>.*?</select>', page, re.S)
    assert found, f"no autocomplete box for {field}"
    return found.group()


def test_the_tenant_filter_is_a_box_and_narrows_the_list(admin_client_root, world):
    acme, globex = world["acme"]["tenant"], world["globex"]["tenant"]
    url = reverse("admin:memory_memorynote_changelist")
    page = admin_client_root.get(url).content.decode()
    box = _filter_box(page, "tenant")
    assert "admin-autocomplete" in box and reverse("admin:autocomplete") in box
    assert f"tenant__id__exact={globex.pk}" not in page  # no list of tenants to click through

    filtered = admin_client_root.get(url, {"tenant__id__exact": acme.pk})
    assert {n.tenant_id for n in filtered.context["cl"].result_list} == {acme.pk}
    chosen = _filter_box(filtered.content.decode(), "tenant")
    assert f'<option value="{acme.pk}" selected>' in chosen  # the choice is shown in the box

    suggestions = admin_client_root.get(
        reverse("admin:autocomplete"),
        {"app_label": "memory", "model_name": "memorynote", "field_name": "tenant", "term": "glob"},
    ).json()["results"]
    assert [s["id"] for s in suggestions] == [str(globex.pk)]


def test_the_end_user_filter_suggests_and_shows_only_the_staff_members_own_tenants_users(client, world):
    acme, globex = world["acme"], world["globex"]
    person = acme["person"]["user"]
    client.force_login(acme["staff"])
    url = reverse("admin:tenancy_chatsession_changelist")
    page = client.get(url).content.decode()
    _filter_box(page, "end_user")
    for listing in ("tenancy_message", "tenancy_feedback", "tasks_taskstate"):
        _filter_box(client.get(reverse(f"admin:{listing}_changelist")).content.decode(), "end_user")

    sessions = client.get(url, {"end_user__id__exact": person.pk}).context["cl"].result_list
    assert sessions and {s.end_user_id for s in sessions} == {person.pk}

    ask = {"app_label": "tenancy", "model_name": "chatsession", "field_name": "end_user", "term": "u-"}
    found = json.loads(client.get(reverse("admin:autocomplete"), ask).content)["results"]
    assert sorted(r["id"] for r in found) == sorted(str(u.pk) for u in (person, acme["bystander"]["user"]))

    # another tenant's staff: no suggestion of acme's users, and acme's user id filters to nothing, unnamed
    client.force_login(globex["staff"])
    found = json.loads(client.get(reverse("admin:autocomplete"), ask).content)["results"]
    assert str(person.pk) not in {r["id"] for r in found}
    other = client.get(url, {"end_user__id__exact": person.pk})
    assert list(other.context["cl"].result_list) == []
    assert f'<option value="{person.pk}" selected>' not in other.content.decode()
    assert person.external_id not in _filter_box(other.content.decode(), "end_user")
