"""The PII guard on every field derived from a user's words, through the API (issue 15): a correction with an
identifier in its content, key or value is refused with a clear error and changes nothing (even under the
redact policy); session titles made from a first message carry no identifier; the audit log keeps none."""

import pytest

from core.policy import memory_policy_for
from memory.models import AuditLog, MemoryNote
from tenancy.models import ChatSession
from tests.api.conftest import error_of
from tests.factories import MemoryNoteFactory

CHAT = "/api/v1/chat/"


@pytest.mark.parametrize("policy", ["drop", "redact"])
@pytest.mark.parametrize(
    "body",
    [
        {"key": "13800138000"},
        {"key": "京A12345"},
        {"content": "The user's plate is AB12 CDE."},
        {"content": "用户的微信是 vx lina2024wx"},
        {"content": "用户住在北京市朝阳区建国路88号3单元502室"},
        {"content": "The user lives at 221B Baker Street."},
        {"key": "ip 203.0.113.45"},
    ],
)
def test_a_correction_with_an_identifier_is_refused_and_changes_nothing(acme, policy, body):
    acme.tenant.pii_policy = policy
    acme.tenant.save()
    note = MemoryNoteFactory(
        end_user=acme.user("alice"),
        kind="profile",
        key="city",
        content="The user lives in Hangzhou.",
        value={"place": "Hangzhou"},
    )
    audits = AuditLog.objects.for_tenant(acme.tenant).count()
    response = acme.api.patch(f"/api/v1/memories/{note.pk}/", body)
    assert response.status_code == 400
    error = error_of(response)
    assert error["code"] == "personal_identifier" and "identifier" in error["message"]
    note.refresh_from_db()
    assert (note.key, note.content, note.value) == ("city", "The user lives in Hangzhou.", {"place": "Hangzhou"})
    assert AuditLog.objects.for_tenant(acme.tenant).count() == audits


def test_a_correction_without_an_identifier_still_works(acme):
    note = MemoryNoteFactory(end_user=acme.user("alice"), kind="constraint", key="budget", content="Budget 10万")
    response = acme.api.patch(f"/api/v1/memories/{note.pk}/", {"key": "budget_2025", "content": "预算 15 万，80平米"})
    assert response.status_code == 200, response.content
    assert response.json()["content"] == "预算 15 万，80平米"


@pytest.mark.parametrize(
    "message, identifier",
    [
        ("帮我把这周的客户回访排一下，结果发到我的手机 138 0013 8000，谢谢", "8000"),
        ("Please plan my week, and text the results to 07700 900123 when done", "900123"),
        ("我住在北京市朝阳区建国路88号3单元502室，帮我找附近的健身房", "502"),
        ("my wechat is lina2024wx, find me a dentist nearby please", "lina2024wx"),
    ],
)
def test_a_new_sessions_title_has_no_identifier(acme, message, identifier):
    body = acme.api.post(CHAT, {"user": "alice", "message": message}).json()
    title = ChatSession.objects.for_tenant(acme.tenant).get(pk=body["session"]).title
    assert title and identifier not in title
    assert acme.api.get(f"/api/v1/sessions/{body['session']}/").json()["title"] == title


def test_the_audit_log_keeps_no_identifier(acme):
    from memory.services.notes.moderation import audit_log_write

    entry = audit_log_write(
        tenant=acme.tenant,
        actor="admin:staff",
        action="note",
        object_type="x",
        object_id=1,
        before={"content": "call 07700 900123"},
        after={"content": "车牌京A12345", "n": 3},
    )
    assert "900123" not in str(entry.before) and "京A12345" not in str(entry.after) and entry.after["n"] == 3


@pytest.mark.django_db
def test_a_structured_value_with_an_identifier_is_refused_by_the_service(acme):
    from core.exceptions import InvalidInput
    from memory.services.notes.notes import memory_note_create, memory_note_update

    note = MemoryNoteFactory(end_user=acme.user("alice"), kind="profile", key="city", content="Lives in Leeds")
    with pytest.raises(InvalidInput):
        memory_note_update(tenant=acme.tenant, note=note, value={"contact": {"phone": "07700 900123"}})
    with pytest.raises(InvalidInput):
        memory_note_create(
            tenant=acme.tenant,
            end_user=acme.user("alice"),
            kind="profile",
            key="plate",
            content="The user drives a blue car.",
            value={"plate": "京A12345"},
            policy=memory_policy_for(tenant=acme.tenant),
        )
    note.refresh_from_db()
    assert note.value != {"contact": {"phone": "07700 900123"}}
    assert not MemoryNote.objects.for_tenant(acme.tenant).filter(key="plate").exists()
