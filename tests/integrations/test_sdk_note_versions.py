"""The SDK's optimistic concurrency on notes (issue 39): `if_version` on update_memory and forget_memory, against
the live web process; a stale version raises VersionMismatch and changes nothing."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_update_and_forget_with_if_version(live_web, tenant_a, tenant_b):
    import memory_platform as m

    with m.Client(live_web.base, tenant_a.key) as a, m.Client(live_web.base, tenant_b.key) as b:
        note = a.add_memory("zoë", kind="plan", content="The user's budget is about 100k.")
        read = a.get_memory(note["id"])
        first = read["version"]
        changed = a.update_memory(note["id"], content="The user's budget is about 150k.", if_version=first)
        assert changed["version"] != first and "150k" in changed["content"]

        with pytest.raises(m.errors.VersionMismatch) as stale:
            a.update_memory(note["id"], content="The user's budget is about 90k.", if_version=first)
        assert stale.value.status == 412 and "changed since you read it" in stale.value.message
        assert stale.value.details["version"] == changed["version"]
        with pytest.raises(m.errors.VersionMismatch):
            a.forget_memory(note["id"], if_version=first)
        assert a.get_memory(note["id"])["content"] == "The user's budget is about 150k."

        with pytest.raises(m.errors.NotFound):  # the other tenant, even with the right version
            b.update_memory(note["id"], content="Hijacked.", if_version=changed["version"])
        a.forget_memory(note["id"], if_version=f'"{changed["version"]}"')  # the ETag as sent works too
        assert a.get_memory(note["id"])["status"] == "forgotten"
