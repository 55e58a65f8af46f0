"""Login throttling (django-axes) on the web chat's and the admin's login: after LOGIN_FAILURE_LIMIT failures a
username+address pair is locked out with a clear 429 page, even for the right password; an unknown username and
a wrong password are indistinguishable; a locked-out attempt hashes no password; other users and addresses are
unaffected; staff can unlock."""

from __future__ import annotations

import json

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db
PASSWORD = "right-pass-8812"


class CountingHasher(MD5PasswordHasher):
    """The test hasher, counting the passwords it hashes (a locked-out attempt must not cost one)."""

    algorithm = "counting_md5"
    calls = 0

    def encode(self, password, salt):
        CountingHasher.calls += 1
        return super().encode(password, salt)


@pytest.fixture(autouse=True)
def counting_hasher(settings):
    settings.PASSWORD_HASHERS = ["tests.reliability.test_login_throttle.CountingHasher"]
    settings.LOGIN_FAILURE_LIMIT = settings.AXES_FAILURE_LIMIT = 5
    CountingHasher.calls = 0


@pytest.fixture
def users(django_user_model):
    return {
        "alice": django_user_model.objects.create_user("alice", password=PASSWORD),
        "bob": django_user_model.objects.create_user("bob", password=PASSWORD),
        "root": django_user_model.objects.create_superuser("root", "root@example.com", PASSWORD),
    }


def attempt(client, path, username, password):
    return client.post(path, {"username": username, "password": password, "next": "/"})


def logged_in(client) -> bool:
    return SESSION_KEY in client.session


@pytest.mark.parametrize("path", ["/login/", "/admin/login/"])
def test_the_right_password_is_refused_once_locked_out_and_costs_no_hash(users, path):
    client = Client()
    username = "root" if path.startswith("/admin/") else "alice"
    statuses = [attempt(client, path, username, f"wrong-guess-{i}").status_code for i in range(5)]
    assert statuses == [200, 200, 200, 200, 429]
    hashed = CountingHasher.calls
    assert hashed >= 5  # every failure so far did cost a hash
    locked = attempt(client, path, username, PASSWORD)
    assert locked.status_code == 429 and not logged_in(client)
    assert CountingHasher.calls == hashed  # refused before any password was hashed
    page = locked.content.decode()
    assert "Too many failed logins" in page and "Try again in 15 minutes" in page
    assert int(locked["Retry-After"]) == 15 * 60
    assert "root" not in page and "alice" not in page  # the page does not echo the username


def test_an_unknown_username_and_a_wrong_password_look_the_same(users):
    known, unknown = Client(), Client()
    known_answers = [attempt(known, "/login/", "alice", f"nope-{i}") for i in range(6)]
    unknown_answers = [attempt(unknown, "/login/", "nobody-here", f"nope-{i}") for i in range(6)]
    assert [r.status_code for r in known_answers] == [r.status_code for r in unknown_answers]
    for a, b in zip(known_answers, unknown_answers, strict=True):
        normalise = lambda r: r.content.decode().replace("nobody-here", "X").replace("alice", "X")  # noqa: E731 - local one-liner
        strip_csrf = lambda text: "\n".join(line for line in text.splitlines() if "csrf" not in line)  # noqa: E731 - local one-liner
        assert strip_csrf(normalise(a)) == strip_csrf(normalise(b))


def test_other_users_and_other_addresses_are_not_locked_out(users):
    attacker = Client(REMOTE_ADDR="203.0.113.7")
    for i in range(5):
        attempt(attacker, "/login/", "alice", f"guess-{i}")
    assert attempt(attacker, "/login/", "alice", PASSWORD).status_code == 429
    # The same address, another user: unaffected (the pair is what is locked).
    bob = Client(REMOTE_ADDR="203.0.113.7")
    assert attempt(bob, "/login/", "bob", PASSWORD).status_code == 302 and logged_in(bob)
    # Alice herself, from her own address: unaffected, and an X-Forwarded-For cannot choose an address.
    alice = Client(REMOTE_ADDR="198.51.100.20")
    assert attempt(alice, "/login/", "alice", PASSWORD).status_code == 302 and logged_in(alice)
    spoofing = Client(REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="198.51.100.99")
    assert attempt(spoofing, "/login/", "alice", PASSWORD).status_code == 429


def test_the_thresholds_are_settings(users, settings):
    settings.AXES_FAILURE_LIMIT = 2
    client = Client()
    assert [attempt(client, "/login/", "alice", f"x{i}").status_code for i in range(2)] == [200, 429]


def test_staff_unlock_in_the_admin_and_with_a_command(users):
    client = Client()
    for i in range(5):
        attempt(client, "/login/", "alice", f"guess-{i}")
    assert attempt(client, "/login/", "alice", PASSWORD).status_code == 429
    staff = Client()
    staff.force_login(users["root"])
    listing = staff.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200 and "alice" in listing.content.decode()
    row = AccessAttempt.objects.get(username="alice")
    assert staff.post(f"/admin/axes/accessattempt/{row.pk}/delete/", {"post": "yes"}).status_code == 302
    assert attempt(client, "/login/", "alice", PASSWORD).status_code == 302 and logged_in(client)

    other = Client(REMOTE_ADDR="192.0.2.5")
    for i in range(5):
        attempt(other, "/login/", "bob", f"guess-{i}")
    assert attempt(other, "/login/", "bob", PASSWORD).status_code == 429
    call_command("axes_reset_username", "bob")
    assert attempt(other, "/login/", "bob", PASSWORD).status_code == 302


def test_a_successful_login_resets_the_count(users):
    client = Client()
    for i in range(4):
        attempt(client, "/login/", "alice", f"guess-{i}")
    assert attempt(client, "/login/", "alice", PASSWORD).status_code == 302
    client.logout()
    assert [attempt(client, "/login/", "alice", f"again-{i}").status_code for i in range(4)] == [200] * 4


def test_erasing_a_user_erases_their_failed_logins_too(users):
    from assistants.services.privacy import user_erase, user_erase_request
    from assistants.services.tenants import end_user_create_with_login, tenant_create

    tenant, _ = tenant_create(slug="lockout-erasure")
    leaving = end_user_create_with_login(
        tenant=tenant, external_id="ext-leaving", username="leaving-user", password=PASSWORD
    )
    for client, username in ((Client(REMOTE_ADDR="192.0.2.10"), "leaving-user"), (Client(), "bob")):
        for i in range(3):
            attempt(client, "/login/", username, f"typo-{i}")
    assert set(AccessAttempt.objects.values_list("username", flat=True)) == {"leaving-user", "bob"}
    job = user_erase_request(tenant=tenant, end_user=leaving, requested_by="dpo", enqueue=False)
    counts = user_erase(tenant_id=tenant.pk, end_user_id=leaving.pk, requested_by="dpo", job_id=job.pk)
    assert set(AccessAttempt.objects.values_list("username", flat=True)) == {"bob"}  # bob's stay
    assert "leaving-user" not in json.dumps(counts, ensure_ascii=False)


def test_the_lockout_page_speaks_the_users_language(users):
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    for i in range(5):
        locked = attempt(client, "/login/", "用户不存在", f"错误密码-{i}")
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "登录失败次数过多" in page and "15 分钟后再试" in page and "Too many" not in page
