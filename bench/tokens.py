"""Workload 3: tokens sent to the model per turn against sending the whole history.

One long conversation per language goes through `chat_turn` with the offline model and the real worker (jobs
drained every 5 turns and before each checkpoint, as a person types slower than compaction runs). Turn 1 states facts; no later turn
repeats them. At every turn the tokens of the messages actually sent (TurnContext.messages) are counted, and so
are the tokens the full history would cost (system prompt + every earlier message + the new one), with the
same counter. After the last turn: are the turn-1 facts still recallable (memory_recall) and in the context of a
turn that asks for them?
"""

from __future__ import annotations

import random

from bench.common import BenchContext, bench_tenant
from bench.corpus import chat_line
from core.policy import memory_policy_for

FIRST_TURN = {
    "en": (
        "My total budget is 400,000 yuan, and I want to open a noodle shop in Nanshan, Shenzhen.",
        "What was my total budget again? Please use the budget I gave at the very start.",
        ["400,000", "400000", "400k", "400 000"],
    ),
    "zh": (
        "我预算总共 40 万，想在深圳南山开一家面馆。",
        "还是按我最开始说的那个预算帮我算算。",
        ["40 万", "40万", "400000", "四十万"],
    ),
}


def token_counter():
    """The platform's own counter when the chat layer exposes one, else a documented over-estimate."""
    import importlib

    for module, name in (("assistants.services.tokens", "token_count"), ("assistants.services.tokens", "count_tokens")):
        try:
            fn = getattr(importlib.import_module(module), name)
        except (ImportError, AttributeError):
            continue
        return f"{module}.{name}", fn
    return "bench fallback (1 per CJK char, 1 per 3 other chars)", fallback_count


def fallback_count(text: str) -> int:
    cjk = sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")
    return cjk + -(-(len(text) - cjk) // 3)


def messages_tokens(count, messages: list[dict]) -> int:
    return sum(count(m.get("content") or "") + 4 for m in messages)  # +4: role and framing per message


def run_token_cost(
    ctx: BenchContext, *, turns: int = 300, checkpoints=(20, 100, 300), languages=("en", "zh"), seed: int = 3
) -> dict:
    from assistants.services.chat import chat_session_start, chat_turn
    from assistants.services.tenants import end_user_get_or_create
    from memory.services.recall.recall import memory_recall

    counter_name, count = token_counter()
    tenant, _ = bench_tenant("bench-tokens")
    out = {"counter": counter_name, "languages": {}}
    for lang in languages:
        rng = random.Random(seed)
        fact, question, needles = FIRST_TURN[lang]
        end_user = end_user_get_or_create(tenant=tenant, external_id=f"tokens-{lang}")
        session = chat_session_start(tenant=tenant, end_user=end_user)
        history = [{"role": "system", "content": session.assistant.system_prompt}]
        series, points = [], {}
        for turn in range(1, turns + 1):
            text = fact if turn == 1 else chat_line(rng, lang)
            result = chat_turn(tenant=tenant, session=session, text=text)
            sent = messages_tokens(count, result.context.messages)
            full = messages_tokens(count, history + [{"role": "user", "content": text}])
            history += [{"role": "user", "content": text}, {"role": "assistant", "content": result.reply}]
            series.append({"turn": turn, "sent": sent, "full": full, "reported": result.context.token_count})
            if turn in checkpoints:
                points[str(turn)] = {
                    "sent": sent,
                    "full_history": full,
                    "ratio_pct": round(100 * sent / full, 1),
                    "context_token_count": result.context.token_count,
                }
                ctx.log(f"tokens {lang}: turn {turn}: {sent} sent vs {full} full history")
            if turn % 5 == 0 or turn in checkpoints:
                ctx.wait_idle()  # compaction keeps up as it would between a person's messages
        items = memory_recall(
            tenant=tenant, end_user=end_user, query=question, k=10, touch=False, policy=memory_policy_for(tenant=tenant)
        )
        recalled = any(any(n in item.content for n in needles) for item in items)
        probe = chat_turn(tenant=tenant, session=session, text=question)
        in_context = any(
            any(n in (m.get("content") or "") for n in needles)
            for m in probe.context.messages
            if m.get("role") != "user" or m.get("content") != question
        )
        out["languages"][lang] = {
            "checkpoints": points,
            "series": series[::5] + [series[-1]],
            "turn1_fact_recalled": recalled,
            "turn1_fact_in_context": in_context,
        }
        ctx.wait_idle()
    last = str(max(checkpoints))
    worst = max((v["checkpoints"].get(last, {}).get("ratio_pct") or 0) for v in out["languages"].values())
    out["targets"] = {
        "<= 10% of full history at the last turn": {"turn": int(last), "ratio_pct": worst, "met": worst <= 10},
        "turn-1 facts still recallable": all(
            v["turn1_fact_recalled"] or v["turn1_fact_in_context"] for v in out["languages"].values()
        ),
    }
    return out
