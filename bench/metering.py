"""Workload 12: what metering adds to a chat turn; target ≤ 1 ms p95.

Real turns (`chat_turn_stream`, offline model, a connection pool as the web server has) with every metering
call of the turn timed where the turn makes it: the quota check before the reply (`turn_quota_check`), the
meter around the reply's model call (`TurnMeter`: start, count, record), and each model call the gateway records
(`core.llm.model_call_record`: the query embedding of recall). Their sum per turn is "in the turn". The flush that
writes the buffered events (`usage_flush`, one upsert) runs after the response has gone out (usage.signals), so
it is timed apart, once after each turn as the web process does it. Two tenants: one with no limits (the check
returns without a statement) and one with a limit at every scope (the check reads the usage in one statement).
"""

from __future__ import annotations

import random
import time
from contextlib import contextmanager
from typing import Any

from bench.common import BenchContext, bench_tenant, percentiles
from bench.corpus import chat_line

QUOTAS = {  # far above what the workload uses: the check runs its statement, no turn is refused
    "tenant": {"tokens_per_month": 10**12, "turns_per_day": 10**9},
    "assistant": {"turns_per_day": 10**9},
    "user": {"tokens_per_day": 10**12},
}


class _Clock:
    """Milliseconds spent in the wrapped calls since the last `take`."""

    def __init__(self):
        self.spent = 0.0

    def wrap(self, fn):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.spent += (time.perf_counter() - start) * 1000

        return timed

    def take(self) -> float:
        spent, self.spent = self.spent, 0.0
        return spent


@contextmanager
def _metering_timed(clock: _Clock):
    """Time the turn's metering calls at the names the turn calls them by; put them back after."""
    import assistants.services.agent as agent
    import assistants.services.chat as chat
    import core.llm as gateway

    meter_class = agent.TurnMeter

    class TimedMeter(meter_class):  # type: ignore[misc,valid-type]  # a subclass of the class read at run time
        __init__ = clock.wrap(meter_class.__init__)
        record = clock.wrap(meter_class.record)

    saved = (chat.turn_quota_check, agent.TurnMeter, gateway.model_call_record)
    chat.turn_quota_check = clock.wrap(chat.turn_quota_check)
    agent.TurnMeter = TimedMeter  # type: ignore[misc]  # the module's name rebound for the run, put back after
    gateway.model_call_record = clock.wrap(gateway.model_call_record)
    try:
        yield
    finally:
        chat.turn_quota_check, agent.TurnMeter, gateway.model_call_record = saved  # type: ignore[misc]  # as above


def run_metering_overhead(ctx: BenchContext, *, turns: int = 60, seed: int = 17) -> dict:
    from core.db import connection_pooled

    with connection_pooled():
        return _metering_overhead(ctx, turns=turns, seed=seed)


def _metering_overhead(ctx: BenchContext, *, turns: int, seed: int) -> dict:
    from assistants.services.chat import chat_session_start, chat_turn_stream
    from assistants.services.tenants import end_user_get_or_create
    from usage.services import usage_flush, usage_quotas_set

    rng = random.Random(seed)
    clock = _Clock()
    out: dict[str, Any] = {"turns": turns}
    for label, quotas in (("no limits set", None), ("limits at every scope", QUOTAS)):
        tenant, _key = bench_tenant("bench-metering")
        if quotas:
            tenant = usage_quotas_set(tenant=tenant, quotas=quotas)
        session = chat_session_start(tenant=tenant, end_user=end_user_get_or_create(tenant=tenant, external_id="m"))
        in_turn, flush, whole = [], [], []
        with _metering_timed(clock):
            for i in range(turns):
                clock.take()
                start = time.perf_counter()
                for _event in chat_turn_stream(
                    tenant=tenant, session=session, text=chat_line(rng, "zh" if i % 2 else "en")
                ):
                    pass
                turn_ms = (time.perf_counter() - start) * 1000
                metering_ms = clock.take()
                start = time.perf_counter()
                usage_flush()  # what the web process does once the response has gone out
                if i >= 3:  # warm-up turns
                    flush.append((time.perf_counter() - start) * 1000)
                    in_turn.append(metering_ms)
                    whole.append(turn_ms)
                if i % 10 == 9:
                    ctx.wait_idle()  # the turn's jobs, out of the next measurement
        out[label] = {
            "in_turn_ms": percentiles(in_turn),
            "flush_after_response_ms": percentiles(flush),
            "turn_ms": percentiles(whole),
        }
    ctx.wait_idle()
    worst = max(v["in_turn_ms"]["p95"] or 0 for v in out.values() if isinstance(v, dict))
    out["targets"] = {"metering adds <= 1 ms p95 to a turn": {"p95": worst, "met": worst <= 1.0}}
    return out
