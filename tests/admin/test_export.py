"""Data access request: everything about one end user as one JSON document (command and admin action)."""

import json

import pytest
from django.core.management import call_command
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_export_command_prints_everything_about_the_user_and_nothing_else(world, capsys):
    call_command("export_user", "acme", "u-1")
    doc = json.loads(capsys.readouterr().out)
    person = world["acme"]["person"]
    assert doc["tenant"] == "acme" and doc["profile"]["external_id"] == "u-1"
    assert doc["profile"]["web_login"]["username"] == "acme-u-1"
    (session,) = doc["sessions"]
    assert session["summary"].startswith("用户想开一家面馆") and session["pinned_facts"]["budget"]["value"] == "40万"
    assert [m["content"] for m in session["messages"]] == [m.content for m in person["messages"]]
    assert session["scratch"][0]["value"] == {"rent": "每月 2 万"}
    notes = {n["id"]: n for n in doc["memory_notes"]}
    old, new, pending, forgotten = person["notes"]
    assert set(notes) == {old.pk, new.pk, pending.pk, forgotten.pk}  # history included: superseded, forgotten
    assert notes[new.pk]["supersedes_id"] == old.pk and notes[old.pk]["status"] == "superseded"
    assert notes[new.pk]["source_message_ids"] == [person["messages"][0].pk]
    assert doc["task_states"][0]["collected"]["预算"]["value"] == "40万"
    assert doc["feedback"][0]["comment"] == "面馆的建议很好"
    assert doc["experiences_contributed"][0]["solution"].startswith("Plan for a 面馆")
    assert doc["pii_rejections"][0] == {**doc["pii_rejections"][0], "pii_kind": "phone", "count": 2}
    text = json.dumps(doc, ensure_ascii=False)
    assert "coffee shop" not in text  # tenant B's data
    bystander_session = world["acme"]["bystander"]["session"].pk
    assert all(s["id"] != bystander_session for s in doc["sessions"])
    assert '"embedding":' not in text  # vectors are not personal data a person can read


def test_export_admin_action_downloads_json_for_one_user(admin_client_root, world, tmp_path):
    user = world["acme"]["person"]["user"]
    response = admin_client_root.post(
        reverse("admin:tenancy_enduser_changelist"), {"action": "export_user", "_selected_action": [user.pk]}
    )
    assert response["Content-Type"] == "application/json"
    assert "attachment" in response["Content-Disposition"]
    assert json.loads(response.content)["profile"]["external_id"] == "u-1"
    two = [user.pk, world["acme"]["bystander"]["user"].pk]
    response = admin_client_root.post(
        reverse("admin:tenancy_enduser_changelist"), {"action": "export_user", "_selected_action": two}, follow=True
    )
    assert any("exactly one" in str(m) for m in response.context["messages"])
    out = tmp_path / "u1.json"
    call_command("export_user", "acme", "u-1", "--output", str(out))
    assert json.loads(out.read_text(encoding="utf-8"))["profile"]["external_id"] == "u-1"
