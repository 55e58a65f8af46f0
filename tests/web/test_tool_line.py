"""The web chat shows each tool the model called as a small collapsible line under the reply (issue 41): the
offline model looks up the user's notes when asked what it remembers."""

from django.urls import reverse

from memory.services.writing.remember import memory_fact_remember
from tests.web.test_chat_pages import start_session


def test_a_tool_call_is_a_line_under_the_reply(alice):
    end_user, client = alice
    memory_fact_remember(tenant=end_user.tenant, end_user=end_user, text="I drink americano every morning")
    session = start_session(client)
    client.post(reverse("web:chat_send", args=[session.pk]), {"text": "What do you remember about my coffee?"})
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert 'class="tool-call"' in page and "Looked up your notes · " in page and " ms" in page
    assert "americano" in page  # the reply says it
    line = page[page.index('class="tool-call"') :]
    line = line[: line.index("</details>")]
    assert "1 found: note " in line and "americano" not in line  # ids only: forgetting the note leaves no copy


def test_the_tool_line_is_in_the_pages_language(make_person):
    end_user, client = make_person(username="wang", language="zh-hans")
    memory_fact_remember(tenant=end_user.tenant, end_user=end_user, text="我每天早上喝美式咖啡")
    session = start_session(client)
    client.post(reverse("web:chat_send", args=[session.pk]), {"text": "你还记得我喝什么咖啡吗？"})
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    assert "查看了你的笔记 · " in page and "Looked up your notes" not in page
    assert "我在你的记录里找到" in page  # the offline model's sentence, from the catalogue
