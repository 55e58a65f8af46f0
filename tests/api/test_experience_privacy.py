"""Held-out check through the REST API (issue 15): three users of one tenant each ask for the same kind of work
with their own identifiers and names, like the reply (POST /messages/<id>/feedback/), and the learning job runs;
a fourth user, and a user of another tenant, then chat, read their sessions and export themselves: none of the
first users' words reach them, while the fourth user is offered the generic procedure (by experience id)."""

import json

import pytest

from tasks.services.experience import experience_learn

CHAT = "/api/v1/chat/"
GIVERS = [  # (user, request with what is theirs, their private words)
    (
        "mei",
        "我叫林美玲，帮我把 800 条客服对话分类，结果发到 mei.lin@example.cn，手机一三九一二三四五六七八",
        ["林美玲", "mei.lin@example.cn", "一三九一二三四五六七八", "美玲"],
    ),
    (
        "tom",
        "I'm Tom Okafor, please classify 1,200 support tickets; plate LK65 XYZ, text 07911 123456",
        ["Okafor", "LK65 XYZ", "07911 123456", "Tom"],
    ),
    (
        "ana",
        "帮我把 5000 条用户评论分类，vx ana_2025_cn，住在杭州市西湖区文三路 478 号",
        ["ana_2025_cn", "文三路", "杭州", "西湖"],
    ),
    (
        "wei",
        "帮我给 300 条工单分类，车牌京A12345的那位客户优先，身份证 110105 19491231 002X",
        ["京A12345", "那位客户", "110105 19491231 002X", "19491231"],
    ),
]


@pytest.mark.django_db
def test_no_words_of_one_user_reach_another_through_the_api(acme, globex):
    acme.tenant.experience_min_users = 3
    acme.tenant.save()
    for user, text, _private in GIVERS:
        body = acme.api.post(CHAT, {"user": user, "message": text}).json()
        response = acme.api.post(f"/api/v1/messages/{body['message_id']}/feedback/", {"rating": "up"})
        assert response.status_code in (200, 201), response.content
        experience_learn(tenant_id=acme.tenant.pk, message_id=body["message_id"])  # what the job runs

    experiences = acme.api.get(f"/api/v1/assistants/{acme.assistant.pk}/experiences/").json()["results"]
    assert experiences, "the liked replies left a generic procedure"
    receiver = acme.api.post(CHAT, {"user": "zoe", "message": "我有 3000 条工单想分类"}).json()
    stranger = globex.api.post(CHAT, {"user": "zoe", "message": "我有 3000 条工单想分类"}).json()
    seen = json.dumps([receiver, stranger], ensure_ascii=False)
    for path, kit in (
        ("/api/v1/users/zoe/export/", acme),
        ("/api/v1/users/zoe/export/", globex),
        (f"/api/v1/sessions/{receiver['session']}/", acme),
    ):
        response = kit.api.get(path)
        assert response.status_code == 200, (path, response.content[:200])
        seen += b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()
    seen += json.dumps(experiences, ensure_ascii=False)
    for _user, _text, private in GIVERS:
        for word in private:
            assert word not in seen, word
    # three of them asked in Chinese and liked the same (offline) reply: its generic steps are shared
    shared = [e for e in experiences if e["confirmed_by_users"] >= 3]
    assert len(shared) == 1 and receiver["context"]["experiences"] == [shared[0]["id"]]
    assert not stranger["context"]["experiences"]
