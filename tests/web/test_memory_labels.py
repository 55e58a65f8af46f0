"""Memory notices speak the reader's language (issue 42): the line under a reply, the pinned facts a reply was
built from and a forget notice name slots and options in words ("预算 约 40 万", "饮食 素食"), never the stored
codes ("budget", "diet vegetarian", "pinned"), and keep the numbers and units as the user wrote them."""

import re

from django.urls import reverse

from tests.web.test_chat_pages import start_session
from tests.web.test_memory_line import send


def _memory_lines(page: str) -> list[str]:
    lines = re.findall(r'<div class="memory-event[^"]*">(.*?)(?:<form|</div>)', page, re.S)
    return [re.sub(r"\s+", " ", line).strip() for line in lines]


def _pinned_lines(page: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", line) for line in re.findall(r"<li><strong>.*?</li>", page)]


def test_a_chinese_readers_memory_line_and_pinned_facts_have_chinese_labels(make_person):
    end_user, client = make_person(username="mei", language="zh-hans")
    tenant = end_user.tenant
    session = start_session(client)
    send(client, tenant, session, "我的预算大概 40 万，店开在杭州，我吃素")
    send(client, tenant, session, "预算改成 30 万了")
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    lines = _memory_lines(page)
    assert "已记住：预算 约 40 万" in lines
    assert "已记住：饮食 素食" in lines
    assert "记忆已更新：预算 约 40 万 → 30 万" in lines
    assert "预算: 30 万" in _pinned_lines(page) and "城市: 杭州" in _pinned_lines(page)
    for code in ("budget", "diet", "vegetarian", "city"):
        assert code not in " ".join(lines + _pinned_lines(page)), code

    # another user of the tenant sees none of it, in either language
    _lei, lei_client = make_person(tenant=tenant, username="lei", language="zh-hans")
    other = lei_client.get(reverse("web:chat", args=[session.pk]))
    assert other.status_code == 404 and "预算" not in other.content.decode()


def test_an_english_reader_gets_words_and_the_forget_notice_names_places_in_chinese(make_person):
    end_user, client = make_person(username="sam", language="en")
    tenant = end_user.tenant
    session = start_session(client)
    send(client, tenant, session, "I'm vegetarian and I run a bakery with a team of 4 people.")
    page = client.get(reverse("web:chat", args=[session.pk])).content.decode()
    lines = _memory_lines(page)
    assert "Memory saved: diet vegetarian" in lines
    assert not any("shop_size" in line or "_" in line for line in lines)

    zh_user, zh_client = make_person(tenant=tenant, username="yu", language="zh-hans")
    zh_session = start_session(zh_client)
    send(zh_client, tenant, zh_session, "我对花生过敏")
    send(zh_client, tenant, zh_session, "忘掉我对花生过敏这件事")
    zh_page = zh_client.get(reverse("web:chat", args=[zh_session.pk])).content.decode()
    forgotten = [line for line in _memory_lines(zh_page) if line.startswith("已在所有保存之处忘记")]
    assert forgotten and "notes" not in forgotten[0] and "pinned" not in forgotten[0], _memory_lines(zh_page)
    assert "花生" not in client.get(reverse("web:chat", args=[session.pk])).content.decode()
