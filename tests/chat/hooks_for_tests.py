"""Pre-turn hooks registered by tests, standing in for layers that are built in other issues. They are real
hooks going through the real mechanism (assistants.services.hooks)."""


def task_hook(*, tenant, session, message):
    if "plan" in message.content.lower() or "计划" in message.content:
        return {
            "section": "task",
            "data": {"type": "shop_plan", "status": "collecting", "missing": ["budget"]},
            "reply_hint": "还差预算，请告诉我预算。",
        }
    return None


def broken_hook(*, tenant, session, message):
    raise RuntimeError("this layer is broken")


def sql_failing_hook(*, tenant, session, message):
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM no_such_table_for_this_test")


def title_marking_hook(*, tenant, session, message):
    """Writes: appends one "+" to the session's title per call that is kept."""
    from django.db.models import F, Value
    from django.db.models.functions import Concat

    from tenancy.models import ChatSession

    ChatSession.objects.for_tenant(tenant).filter(pk=session.pk).update(title=Concat(F("title"), Value("+")))
