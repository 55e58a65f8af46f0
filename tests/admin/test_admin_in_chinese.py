"""The admin in the reader's language (issue 42, item 6): with the browser asking for Chinese, the platform's own
admin words (site title, index, list filters, the memory policy form) are Chinese too, not English left between
Django's own translated words."""

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db

CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


def test_the_index_is_titled_in_chinese(admin_client_root, world):
    page = admin_client_root.get(reverse("admin:index"), **CHINESE).content.decode()
    assert "记忆平台：客服与隐私" in page and "租户、终端用户、他们的记忆以及维护记忆的后台任务" in page
    for english in ("Memory platform", "Tenants, end users, their memory", "Django administration"):
        assert english not in page, english


def test_a_list_s_filters_speak_chinese(admin_client_root, world):
    page = admin_client_root.get(reverse("admin:memory_memorynote_changelist"), **CHINESE).content.decode()
    for chinese in (
        "按租户",
        "输入以查找租户",
        "任意租户",
        "按置信度",
        "0.8 及以上",
        "7 天内过期",
        "从未被召回",
        "外部 ID",
    ):
        assert chinese in page, chinese
    for english in (
        "By tenant",
        "Type to find a tenant",
        "Any tenant",
        "By confidence",
        "and above",
        "Expires within 7 days",
        "Never recalled",
        "External id",
        "exactly as the integrator sends it",
    ):
        assert english not in page, english


def test_the_memory_policy_form_speaks_chinese(admin_client_root, world):
    tenant = world["acme"]["tenant"]
    page = admin_client_root.get(reverse("admin:tenancy_tenant_change", args=[tenant.pk]), **CHINESE).content.decode()
    for chinese in ("逐字保留的最近轮数", "每次回复召回的记录数", "天；留空：一直保留，直到被修改或遗忘", "计划"):
        assert chinese in page, chinese
    for english in ("Recent turns kept word for word", "Notes recalled per reply", "blank: kept until changed"):
        assert english not in page, english


def test_english_readers_keep_the_english_words(admin_client_root, world):
    page = admin_client_root.get(reverse("admin:memory_memorynote_changelist")).content.decode()
    assert "Memory platform" in page and "Type to find a tenant" in page and "By confidence" in page
