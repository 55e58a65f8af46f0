"""The memory regression suite (seed 001 §7.6), in Chinese and English: write -> recall in a new session with
other words -> a change supersedes -> forgetting removes; plus PII, whims and isolation between users/tenants."""

import pytest

from core.policy import memory_policy_for
from memory.models import MemoryNote, PiiRejection
from memory.services.recall.recall import memory_recall


def recall(person, query, **kw):
    return memory_recall(
        tenant=person.tenant,
        end_user=person.end_user,
        query=query,
        policy=memory_policy_for(tenant=person.tenant),
        exclude_session_id=person.session.pk if person.session else None,
        **kw,
    )


@pytest.mark.parametrize(
    "statement, question, changed, forget, expect_old, expect_new",
    [
        ("我平时上下班都是坐地铁", "介绍一下我的通勤习惯", "我现在改成开车上班了", "忘掉我的通勤习惯", "subway", "car"),
        (
            "I usually take the metro to work",
            "what do you know about my commute?",
            "I don't take the metro anymore, I switched to cycling to work",
            "forget how I commute",
            "subway",
            "bike",
        ),
    ],
)
def test_write_recall_change_forget(make_person, statement, question, changed, forget, expect_old, expect_new):
    person = make_person(recall_all_below=0)  # force the search path: no "all notes" shortcut
    other = person.say("我的预算是 40 万" if "地铁" in statement else "My budget is 400k")
    assert other.extraction["written"] == 1

    person.say(statement)
    [note] = [n for n in person.notes() if n.key == "commute"]
    assert (note.kind, note.source, note.value["option"]) == ("preference", "user_stated", expect_old)
    assert note.confidence >= 0.7 and note.expires_at is not None

    person.new_session()  # 2. other words, new session
    items = recall(person, question)
    assert [i.id for i in items if i.type == "note"][:1] == [note.pk]
    in_context = recall(person, question, for_context=True)  # what the chat turn would put in context
    assert note.pk in [i.id for i in in_context]
    assert all("40" not in i.content and "400" not in i.content for i in in_context)  # the budget is not dragged in

    person.say(changed)  # 3. a change supersedes
    note.refresh_from_db()
    assert note.status == MemoryNote.Status.SUPERSEDED
    [new] = [n for n in person.notes() if n.key == "commute"]
    assert new.value["option"] == expect_new and new.supersedes_id == note.pk
    person.new_session()
    ids = [i.id for i in recall(person, question)]
    assert new.pk in ids and note.pk not in ids

    reply = person.say(forget)  # 4. forgetting removes
    assert reply.context.hints and new.content.rstrip("。.") in reply.context.hints[0]
    new.refresh_from_db()
    assert new.status == MemoryNote.Status.FORGOTTEN and new.content == "" and new.embedding is None
    person.new_session()
    items = recall(person, question)
    assert not any(expect_new in (i.content.lower()) or "开车" in i.content or "cycling" in i.content for i in items)


def test_pii_never_stored(make_person):
    person = make_person()
    result = person.say(
        "我的手机号是 138 0013 8000，身份证 11010519491231002X，邮箱 li@example.com，预算 30 万"
    ).extraction
    assert result["pii"] and set(result["pii"]) >= {"cn_mobile", "cn_id_number", "email"}
    assert result["dropped"].get("pii", 0) >= 1
    stored = " ".join(n.content + n.quote + n.search_text + str(n.value) for n in person.notes(status=None))
    for fragment in ("13800138000", "0013", "11010519491231002X", "li@example.com", "example"):
        assert fragment not in stored.replace(" ", "")
    assert any(n.key == "budget" for n in person.notes())  # the rest of the message still counts
    kinds = set(PiiRejection.objects.for_tenant(person.tenant).values_list("pii_kind", flat=True))
    assert {"cn_mobile", "cn_id_number", "email"} <= kinds


def test_pii_redact_policy_keeps_the_fact_without_the_number(make_person):
    person = make_person(pii_policy="redact")
    person.say("My phone is +1 415 555 2671 and I live in Portland")
    stored = " ".join(n.content + n.quote + n.search_text for n in person.notes(status=None))
    assert "2671" not in stored and "Portland" in stored


@pytest.mark.parametrize(
    "whim", ["最近在研究奶茶加盟，感觉挺火的", "I've been thinking about maybe trying pottery lately"]
)
def test_whim_is_not_durable(make_person, whim):
    person = make_person()
    result = person.say(whim).extraction
    assert result["dropped"].get("whim") == 1
    assert person.notes() == []


def test_users_never_see_each_others_notes(make_person):
    alice = make_person(recall_all_below=0)
    bob = make_person(tenant=alice.tenant, recall_all_below=0)
    eve = make_person(recall_all_below=0)  # another tenant
    alice.say("我平时上下班都是坐地铁，预算 40 万")
    alice_ids = {n.pk for n in alice.notes()}
    assert alice_ids
    for other in (bob, eve):
        other.say("我平时上下班都是坐地铁")  # identical wording
        other.new_session()
        for recall_all in (0, 50):
            other.tenant.recall_all_below = recall_all
            other.tenant.save()
            items = recall(other, "我平时上下班都是坐地铁，预算多少")
            assert items and not ({i.id for i in items if i.type == "note"} & alice_ids)
            assert not ({i.id for i in items if i.type == "message"} & {alice.last.user_message.pk})
    assert (
        memory_recall(
            tenant=eve.tenant, end_user=alice.end_user, query="地铁", policy=memory_policy_for(tenant=eve.tenant)
        )
        == []
    )
