"""Benchmark (not a test): tokens sent to the model per turn with the short-term memory, versus sending the full
history, at turns 20, 100 and 300; and the time to assemble the context (p50/p95), excluding the model call.

    .venv/bin/python bench/context_tokens.py [--turns 300] [--settings config.settings.local]

It talks to the database the platform uses (the embedded PostgreSQL by default) through the real chat turn with
the offline model, runs compaction inline whenever the chat turn would enqueue it (as the worker would), and
deletes its throwaway tenant at the end. Figures go in docs/chat.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TURNS_ZH = [
    "预算总共 40 万，想在深圳开面馆",
    "看中南山区一个 100 平米的铺子",
    "把面积砍到 60 平米",
    "装修不超两成",
    "外卖平台的抽成一般怎么算？",
    "员工排班有什么讲究吗？",
    "菜单要不要加凉菜？",
    "怎么跟房东谈租金？",
    "开业活动怎么做比较好？",
    "食材从哪里进货比较靠谱？",
    "收银系统用哪个好？",
    "今天跑了一天市场，有点累",
]
TURNS_EN = [
    "Which point-of-sale system is good?",
    "How should we price the lunch set?",
    "I hear business is slow everywhere lately",
    "Should we open on weekends only at first?",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--settings", default="config.settings.local")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", args.settings)
    import django

    django.setup()
    from django.db import transaction

    from assistants.services import chat as chat_service
    from assistants.services.chat import chat_session_start, chat_turn
    from assistants.services.compaction import session_compact
    from assistants.services.context import context_build
    from assistants.services.tokens import token_count_messages
    from core.policy import memory_policy_for
    from tenancy.models import Assistant, EndUser, Message, Tenant

    slug = f"bench-{int(time.time())}"
    tenant = Tenant.objects.create(slug=slug, name="Benchmark")
    try:
        assistant = Assistant.objects.for_tenant(tenant).create(
            tenant=tenant, name="Consultant", system_prompt="你是一名直率的开店顾问，回答要具体、给出数字。"
        )
        end_user = EndUser.objects.for_tenant(tenant).create(tenant=tenant, external_id="bench-user")
        session = chat_session_start(tenant=tenant, end_user=end_user, assistant=assistant)
        policy = memory_policy_for(tenant=tenant, assistant=assistant)
        checkpoints = {20, 100, 300, args.turns}
        timings, rows = [], []
        # The chat turn enqueues jobs after commit; here they run inline, as a worker would, right after the turn.
        chat_service._enqueue = lambda job, *a: None
        for turn in range(1, args.turns + 1):
            text = (TURNS_ZH + TURNS_EN)[turn % (len(TURNS_ZH) + len(TURNS_EN))] + f"（第 {turn} 轮）"
            result = chat_turn(tenant=tenant, session=session, text=text)
            session.refresh_from_db()
            # Time the context assembly alone, for the message just stored (no model call).
            start = time.perf_counter()
            with transaction.atomic():
                context_build(tenant=tenant, session=session, user_message=result.user_message, policy=policy)
            timings.append((time.perf_counter() - start) * 1000)
            if turn in checkpoints:
                history = list(
                    Message.objects.for_tenant(tenant)
                    .filter(session=session, id__lte=result.user_message.id)
                    .order_by("id")
                    .values("role", "content")
                )
                full = token_count_messages([{"role": "system", "content": assistant.system_prompt}] + history)
                rows.append((turn, result.context.token_count, full))
            if chat_service._compaction_due(tenant=tenant, session=session, policy=policy, context=result.context):
                session_compact(tenant_id=tenant.pk, session_id=session.pk)
                session.refresh_from_db()
        print(
            f"policy: window {policy.window_turns} turns, limit {policy.context_limit_tokens} - reserve "
            f"{policy.reply_reserve_tokens}, summary budget {policy.budget_summary_tokens}, "
            f"compaction every {policy.summary_trigger_messages} overflowing messages; offline model"
        )
        print("| turn | tokens sent (memory) | tokens of the full history | ratio |")
        print("| ---: | ---: | ---: | ---: |")
        for turn, sent, full in rows:
            print(f"| {turn} | {sent:,} | {full:,} | {sent / full:.0%} |")
        q = statistics.quantiles(timings, n=100)
        print(
            f"context assembly over {len(timings)} turns: p50 {q[49]:.1f} ms, p95 {q[94]:.1f} ms, "
            f"max {max(timings):.1f} ms; compactions: {session.summary_version}"
        )
    finally:
        Tenant.objects.filter(pk=tenant.pk).delete()


if __name__ == "__main__":
    main()
