"""Input hygiene (issue 39, item 8): a new user id with a character a person cannot see (bidi override,
zero-width, soft hyphen, line separator, Hangul filler) is refused with a clear 400 and creates nothing; a user
stored with such an id before the rule keeps working and is shown escaped in the admin; an imported message dated
before 1990 or in the future is refused with a sentence and stores nothing."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from django.test import Client

from tenancy.models import ChatSession, EndUser
from tests.api.conftest import error_of

pytestmark = pytest.mark.django_db

INVISIBLE = {
    "right-to-left override": "adm\u202enimda",
    "zero-width space": "ali\u200bce",
    "zero-width joiner": "bo\u200db",
    "byte order mark": "\ufeffcarol",
    "soft hyphen": "da\u00adve",
    "line separator": "eve\u2028x",
    "hangul filler": "\u3164",
    "left-to-right isolate": "\u2066frank\u2069",
}


def _path(external_id: str, rest: str = "memories/") -> str:
    return f"/api/v1/users/{quote(external_id, safe='')}/{rest}"


@pytest.mark.parametrize("name", sorted(INVISIBLE))
def test_a_new_user_id_with_an_invisible_character_is_refused_and_creates_nothing(acme, name):
    external_id = INVISIBLE[name]
    response = acme.api.post(_path(external_id), {"kind": "preference", "content": "I like tea."})
    assert response.status_code == 400, response.content
    message = error_of(response)["message"]
    assert "invisible character" in message and "U+" in message
    response = acme.api.post("/api/v1/chat/", {"user": external_id, "message": "hello"})
    assert response.status_code == 400, response.content
    assert "invisible character" in error_of(response)["message"]
    assert not EndUser.objects.for_tenant(acme.tenant).exists()


def test_ids_of_any_script_with_visible_characters_are_still_accepted(acme):
    for external_id in ("张三", "two words", "שלום", "مرحبا", "é-combining-e\u0301"):
        response = acme.api.post(_path(external_id), {"kind": "preference", "content": "I like tea."})
        assert response.status_code == 201, (external_id, response.content)


def test_a_user_stored_before_the_rule_keeps_working_and_is_shown_escaped_in_the_admin(acme, django_user_model):
    disguised = "admin\u202etxt.exe"
    acme.user("bob")  # a second user, whose data must stay apart
    EndUser.objects.for_tenant(acme.tenant).create(tenant=acme.tenant, external_id=disguised)  # as stored before
    assert acme.api.post(_path(disguised), {"kind": "preference", "content": "I like green tea."}).status_code == 201
    listed = acme.api.get(_path(disguised))
    assert listed.status_code == 200 and [n["content"] for n in listed.json()["results"]] == ["I like green tea."]
    assert acme.api.get(_path("bob")).json()["results"] == []
    assert acme.api.get(_path(disguised, "sessions/")).status_code == 200

    staff = Client()
    staff.force_login(django_user_model.objects.create_superuser("root", "root@example.com", "pw-123456"))
    page = staff.get("/admin/tenancy/enduser/").content.decode()
    assert "admin\\u202etxt.exe" in page and "\u202e" not in page
    user = EndUser.objects.for_tenant(acme.tenant).get(external_id=disguised)
    change = staff.get(f"/admin/tenancy/enduser/{user.pk}/change/").content.decode()
    assert "admin\\u202etxt.exe" in change and "\u202e" not in change


@pytest.mark.parametrize(
    "created_at, words",
    [
        ("0001-01-01T00:00:00Z", "before 1990"),
        ("1989-12-31T23:59:59Z", "before 1990"),
        ("2999-01-01T00:00:00Z", "in the future"),
    ],
)
def test_an_import_dated_outside_a_sane_range_is_refused_with_a_sentence(acme, created_at, words):
    messages = [
        {"role": "user", "content": "I opened the shop.", "created_at": "2020-01-01T00:00:00Z"},
        {"role": "user", "content": "It went well.", "created_at": created_at},
    ]
    if words == "before 1990":
        messages.reverse()  # oldest first, so that only the date itself is wrong
    response = acme.api.post(_path("carol", "sessions/"), {"messages": messages})
    assert response.status_code == 400, response.content
    message = error_of(response)["message"]
    assert words in message and "send the time the message was written" in message
    assert not ChatSession.objects.for_tenant(acme.tenant).exists()
    assert not EndUser.objects.for_tenant(acme.tenant).filter(external_id="carol").exists()
    ok = [{"role": "user", "content": "I opened the shop.", "created_at": "1990-01-02T00:00:00Z"}]
    assert acme.api.post(_path("carol", "sessions/"), {"messages": ok}).status_code == 201
