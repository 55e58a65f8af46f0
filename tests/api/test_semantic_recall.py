"""Recall by meaning, through the REST API as an integrator uses it: the default multilingual encoder, exactly k
results, cross-language recall, past messages embedded (after a turn and during import), imported history that
stays alive, and message vectors that never cross users or tenants."""

from datetime import UTC, datetime, timedelta

import pytest
from django.conf import settings

from core.policy import memory_policy_for
from memory.models import MemoryNote, MessageVector
from memory.services.recall.recall import memory_recall
from memory.services.recall.recall_types import RELEVANT_AT
from memory.services.vectors.embeddings import SENTENCE_MODEL, embed_texts
from tests.conftest import wait_for

pytestmark = pytest.mark.django_db

NOTES = [
    ("profile", "用户养了一只叫豆豆的柯基犬。"),
    ("preference", "用户不吃香菜。"),
    ("profile", "The user works night shifts as a nurse at a children's hospital."),
    ("plan", "The user is saving up to buy a used sailboat next summer."),
    ("profile", "用户的女儿今年上小学三年级。"),
    ("preference", "The user prefers aisle seats on long flights."),
    ("profile", "用户在一家做新能源电池的公司当工程师。"),
    ("preference", "The user dislikes horror movies and prefers documentaries."),
    ("plan", "用户打算明年春天去云南自驾游。"),
    ("profile", "The user is allergic to shellfish."),
    ("preference", "用户每天早上喝一杯手冲咖啡。"),
    ("profile", "The user plays the cello in a community orchestra."),
]


def add_notes(kit, user, notes=NOTES):
    ids = []
    for kind, content in notes:
        response = kit.api.post(f"/api/v1/users/{user}/memories/", {"kind": kind, "content": content})
        assert response.status_code == 201, response.content
        ids.append(response.json()["id"])
    return ids


def recall(kit, user, q, k=5):
    response = kit.api.get(f"/api/v1/users/{user}/recall/", {"q": q, "k": k})
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_the_default_embedder_is_the_multilingual_encoder():
    assert settings.LLM_EMBEDDING_MODEL == SENTENCE_MODEL
    model, vectors = embed_texts(texts=["我的狗叫豆豆", "My dog is called Doudou", "今天股市大跌"])
    assert model == SENTENCE_MODEL and all(len(v) == settings.EMBEDDING_DIMENSIONS for v in vectors)
    same = sum(a * b for a, b in zip(vectors[0], vectors[1], strict=True))
    other = sum(a * b for a, b in zip(vectors[0], vectors[2], strict=True))
    assert same > other + 0.2  # the same meaning across languages is closer than another topic in one


@pytest.mark.parametrize(
    "question, expected",
    [
        # other words than the note's, same language
        ("我家宠物是什么品种", "柯基"),
        ("What instrument do I play?", "cello"),
        ("有什么调料是我忌口的", "香菜"),
        ("What's my job?", "nurse"),
        # cross-language: English question, Chinese note; Chinese question, English note
        ("What kind of dog do I have?", "柯基"),
        ("Where am I planning a road trip?", "云南"),
        ("我对什么海鲜过敏", "shellfish"),
        ("我喜欢看什么类型的电影", "documentaries"),
    ],
)
def test_recall_finds_the_meaning_in_either_language(acme, question, expected):
    add_notes(acme, "mei")
    top = recall(acme, "mei", question, k=3)
    assert expected in top[0]["content"], [r["content"] for r in top]


def test_explicit_recall_returns_exactly_k_ranked_and_the_floor_applies_only_to_the_chat(acme):
    add_notes(acme, "mei")
    for k in (1, 5, 12):
        results = recall(acme, "mei", "what do I do on weekends?", k=k)
        assert len(results) == k
        scores = [r["score"] for r in results]
        assert scores == sorted(scores, reverse=True)
    assert len(recall(acme, "mei", "what do I do on weekends?", k=50)) == len(NOTES)  # all there is
    listed = acme.api.get("/api/v1/users/mei/memories/", {"q": "天气怎么样", "k": 7}).json()
    assert listed["count"] == 7 and len(listed["results"]) == 7
    # the chat turn injects only what clears the policy's floor: an unrelated question gets little or nothing
    from tenancy.models import EndUser

    mei = EndUser.objects.for_tenant(acme.tenant).get(external_id="mei")
    acme.tenant.recall_all_below = 0
    acme.tenant.save()
    in_context = memory_recall(
        tenant=acme.tenant,
        end_user=mei,
        query="What is the capital of Peru?",
        for_context=True,
        touch=False,
        policy=memory_policy_for(tenant=acme.tenant),
    )
    assert len(in_context) < 3, [i.content for i in in_context]
    relevant = memory_recall(
        tenant=acme.tenant,
        end_user=mei,
        query="我的狗叫什么名字",
        for_context=True,
        touch=False,
        policy=memory_policy_for(tenant=acme.tenant),
    )
    assert any("豆豆" in i.content for i in relevant)


def _said(kit, user, q, k=5):
    response = kit.api.get(f"/api/v1/users/{user}/recall/", {"q": q, "k": k})
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.parametrize(
    "question, expected",
    [
        ("What kind of dog do I have?", "柯基"),
        ("我对什么海鲜过敏", "shellfish"),
        ("Which instrument do I play?", "cello"),
        ("我打算去哪儿自驾", "云南"),
    ],
)
def test_a_recall_says_how_sure_it_is(acme, question, expected):
    """Every item carries a relevance (0..1) and whether it is relevant; the fact a question is about is relevant
    and ranks first, and the response says something relevant was found. Items below it are less relevant."""
    add_notes(acme, "mei")
    body = _said(acme, "mei", question)
    top = body["results"][0]
    assert expected in top["content"] and top["relevant"] and 0.0 < top["relevance"] <= 1.0
    assert body["nothing_relevant"] is False
    relevances = [r["relevance"] for r in body["results"]]
    assert max(relevances) == top["relevance"]
    for r in body["results"]:  # relevant means at least the floor (the figure is rounded to 3 places)
        assert r["relevance"] >= RELEVANT_AT - 5e-4 if r["relevant"] else r["relevance"] < RELEVANT_AT + 5e-4


def test_a_recall_says_when_nothing_relevant_was_found(acme, globex):
    """A question about something the user never mentioned gets the k best items anyway (explicit recall is
    exactly k), none of them called relevant, and `nothing_relevant`; so does a user with no memory at all, and a
    user of another tenant whose question the first user's notes would answer."""
    add_notes(acme, "mei")
    for question in ("What is the capital of Peru?", "今天上证指数收盘多少点"):
        body = _said(acme, "mei", question)
        assert len(body["results"]) == 5
        assert body["nothing_relevant"] is True, [(r["content"], r["relevance"]) for r in body["results"]]
        assert not any(r["relevant"] for r in body["results"])
    add_notes(globex, "mei", [("profile", "The user collects vintage fountain pens.")])
    theirs = _said(globex, "mei", "What kind of dog do I have?")
    assert [r["content"] for r in theirs["results"]] == ["The user collects vintage fountain pens."]
    assert theirs["nothing_relevant"] is True
    acme.user("bob")  # known, with no memory yet
    empty = _said(acme, "bob", "What kind of dog do I have?")
    assert empty["results"] == [] and empty["nothing_relevant"] is True


def test_recall_never_crosses_users_or_tenants(acme, globex):
    add_notes(acme, "mei")
    add_notes(acme, "tom", [("profile", "The user collects vintage fountain pens.")])
    add_notes(globex, "mei", [("profile", "用户收藏老式钢笔。")])
    assert all(
        "钢笔" not in r["content"] and "pens" not in r["content"]
        for r in recall(acme, "mei", "do I collect pens?", k=50)
    )
    tom = recall(acme, "tom", "What kind of dog do I have?", k=50)
    assert [r["content"] for r in tom] == ["The user collects vintage fountain pens."]
    theirs = recall(globex, "mei", "What kind of dog do I have?", k=50)
    assert [r["content"] for r in theirs] == ["用户收藏老式钢笔。"]


def _import(kit, user, texts, start):
    messages = [
        {
            "role": "user" if n % 2 == 0 else "assistant",
            "content": text,
            "created_at": (start + timedelta(minutes=n)).isoformat(),
        }
        for n, text in enumerate(texts)
    ]
    response = kit.api.post(f"/api/v1/users/{user}/sessions/", {"messages": messages, "title": "Old chat"})
    assert response.status_code == 201, response.content
    body = response.json()

    def finished():
        job = kit.api.get(f"/api/v1/jobs/{body['job']}/").json()
        return job if job["status"] in ("succeeded", "failed") else None

    job = wait_for(finished, timeout=120, message="the import job")
    assert job["status"] == "succeeded", job
    return body


OLD_CHAT = [
    "我是一名小学美术老师，在杭州工作。",
    "好的，记住了。",
    "我们全家都是素食者。",
    "明白。",
    "上周末我带学生去西湖边写生，有个孩子画得特别好。",
    "听起来很棒！",
    "I have been learning to make sourdough bread at home.",
    "Nice.",
]


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_imported_history_stays_alive_and_its_messages_are_recalled_by_meaning(acme, globex, celery_worker):
    said = datetime.now(UTC) - timedelta(days=730)  # two years ago
    body = _import(acme, "lin", OLD_CHAT, said)
    user_ids = body["message_ids"][::2]

    vectors = MessageVector.objects.for_tenant(acme.tenant).filter(message_id__in=user_ids)
    assert set(vectors.values_list("message_id", flat=True)) == set(user_ids)
    assert set(vectors.values_list("embedding_model", flat=True)) == {SENTENCE_MODEL}

    notes = list(MemoryNote.objects.for_tenant(acme.tenant).filter(end_user__external_id="lin", status="active"))
    assert notes, "durable facts said two years ago and never contradicted are active after the import"
    for note in notes:
        assert note.observed_at < said + timedelta(hours=1)  # when the user said it
        assert note.expires_at is None or note.expires_at > datetime.now(UTC)  # alive: lifetime from now

    # an episode (not a durable fact) found by meaning, with no word in common; and cross-language
    found = recall(acme, "lin", "我之前带孩子们去户外画画是什么时候", k=5)
    assert any("写生" in r["content"] for r in found), found
    found = recall(acme, "lin", "烤面包", k=5)
    assert any("sourdough" in r["content"] for r in found), found
    # nobody else's recall holds any of it
    chat = acme.api.post("/api/v1/chat/", {"user": "ana", "message": "hello"})
    assert chat.status_code in (200, 201)
    for kit, user in ((acme, "ana"), (globex, "lin")):
        response = kit.api.get(f"/api/v1/users/{user}/recall/", {"q": "写生 sourdough 素食 美术老师", "k": 50})
        assert response.status_code in (200, 404)
        if response.status_code == 200:
            contents = " ".join(r["content"] for r in response.json()["results"])
            assert "写生" not in contents and "sourdough" not in contents and "素食" not in contents


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_chat_turn_embeds_the_message_and_forgetting_removes_it(acme, celery_worker):
    first = acme.api.post(
        "/api/v1/chat/",
        {"user": "ravi", "message": "Yesterday I finally fixed the leaking kitchen tap myself with a new washer."},
    ).json()
    wait_for(
        lambda: MessageVector.objects.for_tenant(acme.tenant).filter(message_id=first["user_message_id"]).exists(),
        timeout=60,
        message="the message vector",
    )
    found = recall(acme, "ravi", "plumbing repair", k=3)
    assert any("tap" in r["content"] for r in found), found
    # the current session's messages are in the window already: a turn's recall leaves them out
    from tenancy.models import EndUser

    ravi = EndUser.objects.for_tenant(acme.tenant).get(external_id="ravi")
    in_session = memory_recall(
        tenant=acme.tenant,
        end_user=ravi,
        query="plumbing repair",
        exclude_session_id=first["session"],
        touch=False,
        policy=memory_policy_for(tenant=acme.tenant),
    )
    assert not any(i.type == "message" and "tap" in i.content for i in in_session)

    # forgetting a fact takes the message it came from out of episodic recall too
    said = acme.api.post("/api/v1/chat/", {"user": "ravi", "message": "I am allergic to peanuts."}).json()
    note = wait_for(
        lambda: (
            MemoryNote.objects.for_tenant(acme.tenant)
            .filter(end_user=ravi, source_messages=said["user_message_id"], status="active")
            .first()
        ),
        timeout=60,
        message="the allergy note",
    )
    assert MessageVector.objects.for_tenant(acme.tenant).filter(message_id=said["user_message_id"]).exists()
    assert acme.api.delete(f"/api/v1/memories/{note.pk}/").status_code in (200, 204)
    assert not MessageVector.objects.for_tenant(acme.tenant).filter(message_id=said["user_message_id"]).exists()
    assert not any("peanut" in r["content"] for r in recall(acme, "ravi", "food allergy nuts", k=10))
