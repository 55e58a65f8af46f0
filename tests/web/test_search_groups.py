"""Search groups its hits by conversation (issue 42): one entry per conversation, what the person said before
the assistant's replies that repeat it, the matching words marked, each hit opening the conversation at that
message; never another user's conversations."""

import re

import pytest
from django.urls import reverse

from assistants.services.chat import chat_session_start
from tenancy.models import Message

pytestmark = pytest.mark.django_db


def conversation(end_user, title, turns):
    session = chat_session_start(tenant=end_user.tenant, end_user=end_user, title=title)
    made = []
    for role, text in turns:
        made.append(
            Message.objects.for_tenant(end_user.tenant).create(
                tenant=end_user.tenant, session=session, end_user=end_user, role=role, content=text
            )
        )
    return session, made


def test_hits_come_one_card_per_conversation_the_persons_words_first(make_person):
    alice, client = make_person(username="alice_groups")
    bob, _ = make_person(tenant=alice.tenant, username="bob_groups")
    replies = [("assistant", f"Since you are vegetarian, idea {n}: a lentil dish.") for n in range(9)]
    dinner, made = conversation(alice, "Dinner plans", [("user", "I'm vegetarian, plan my week."), *replies])
    other, _ = conversation(alice, "Lunch", [("user", "Something quick?"), ("assistant", "A vegetarian wrap.")])
    conversation(bob, "Bob's food", [("user", "I am vegetarian too, says Bob.")])

    page = client.get(reverse("web:chat_search"), {"q": "Vegetarian"}).content.decode()
    groups = page.split('<li class="card search-group">')[1:]
    assert len(groups) == 2 and "2 conversations match" in page
    first = next(g for g in groups if "Dinner plans" in g)
    hits = re.findall(r'<li class="search-hit search-hit-(\w+)"><a href="([^"]+)"', first)
    assert hits[0] == ("user", f"/chat/{dinner.pk}/#m{made[0].pk}")  # the person's words first, opened there
    assert len(hits) == 3 and "and 7 more matches in this conversation" in first
    assert f'class="search-hit-title" href="/chat/{dinner.pk}/#m{made[0].pk}"' in first
    assert "<mark>vegetarian</mark>" in first
    assert "Bob" not in page and "says Bob" not in page
