"""Workload 13: the platform's own cost of one tool round in a chat turn, model and tool excluded.

One round is what the turn does between the model asking for tool calls and the next model call: read and check
the arguments against the tool's schema, look the call up in the conversation's scratch, send the HTTP tools
side by side (signed, to a checked address), bound and redact the results, cache them, and add the call and its
result to the messages (with the check that another round fits the token budget).

The tool is a real HTTP endpoint on 127.0.0.1 that answers at once. Its own time is measured as the bare signed
POST (`http_tool_call`) made right before each round with the same arguments; the overhead of a round is the
round's time less that bare call's, pair by pair. Each round asks with new arguments (a cache miss: the dearer
path); a second series repeats a call (answered from scratch, no HTTP at all)."""

from __future__ import annotations

import http.server
import json
import threading
import time
from typing import Any

from bench.common import BenchContext, bench_tenant, percentiles


def _tool_endpoint() -> http.server.ThreadingHTTPServer:
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def do_POST(self):  # http.server's name
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = b'{"status": "in stock", "items": [1, 2, 3]}'
            # one write: headers and body in two would meet the client's delayed ACK (40 ms on Linux), the
            # endpoint's time, not the platform's
            head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
            self.wfile.write(head.encode() + body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def run_tool_rounds(ctx: BenchContext, *, rounds: int = 200) -> dict:
    """The tool endpoint is the bench's own, on loopback: allowed for this workload as the local settings allow it
    (production refuses loopback tool URLs, as it refuses them for webhooks)."""
    from django.test import override_settings

    with override_settings(WEBHOOK_ALLOW_PRIVATE_ADDRESSES=True):
        return _tool_rounds(ctx, rounds=rounds)


def _tool_rounds(ctx: BenchContext, *, rounds: int) -> dict:
    from assistants.services.agent import room_for_a_tool_round
    from assistants.services.chat import chat_session_start, chat_turn
    from assistants.services.tenants import end_user_get_or_create
    from core.policy import memory_policy_for
    from tenancy.models import Assistant
    from tools.services.http_call import http_tool_call
    from tools.services.registry import tool_create
    from tools.services.toolbox import Toolbox

    server = _tool_endpoint()
    try:
        tenant, _ = bench_tenant("bench-tools")
        assistant = Assistant.objects.for_tenant(tenant).get()
        url = f"http://127.0.0.1:{server.server_address[1]}/stock"
        tool = tool_create(
            tenant=tenant,
            name="stock",
            description="Stock of a product.",
            url=url,
            parameters={"type": "object", "properties": {"product": {"type": "string"}}, "required": ["product"]},
            assistants=[assistant.pk],
        )
        user = end_user_get_or_create(tenant=tenant, external_id="tool-user")
        session = chat_session_start(tenant=tenant, end_user=user, assistant=assistant)
        # a realistic context to append to: a turn's own (the offline model, a few turns in)
        for text in ("I run a noodle shop in Chengdu", "我的预算大概 40 万", "Which suppliers are near me?"):
            result = chat_turn(tenant=tenant, session=session, text=text)
        policy = memory_policy_for(tenant=tenant, assistant=assistant)
        toolbox = Toolbox(tenant=tenant, session=session, policy=policy, long_term=True)
        toolbox.ctx.user_message = result.user_message
        bare, whole, overhead, cached = [], [], [], []
        for i in range(rounds + 5):
            arguments = {"product": f"noodles-{i}"}
            t0 = time.perf_counter()
            http_tool_call(url=url, secret=tool.secret, timeout=5, name="stock", call_id="x", arguments=arguments)
            t1 = time.perf_counter()
            messages = list(result.context.messages)
            call = {"id": f"call_{i}", "name": "stock", "arguments": json.dumps(arguments)}
            t2 = time.perf_counter()
            outcomes = toolbox.run([call])
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            messages += [{"role": "tool", "tool_call_id": o.id, "content": o.for_model()} for o in outcomes]
            room_for_a_tool_round(messages=messages, policy=policy)
            t3 = time.perf_counter()
            toolbox.run([call])  # the same call again: from the conversation's scratch
            t4 = time.perf_counter()
            if outcomes[0].status != "ok":
                raise RuntimeError(f"the tool round failed: {outcomes[0].status} {outcomes[0].result[:200]}")
            if i >= 5:  # warm-up
                bare.append((t1 - t0) * 1000)
                whole.append((t3 - t2) * 1000)
                overhead.append(((t3 - t2) - (t1 - t0)) * 1000)
                cached.append((t4 - t3) * 1000)
        out: dict[str, Any] = {
            "rounds": rounds,
            "bare_tool_call_ms": percentiles(bare),
            "round_ms": percentiles(whole),
            "overhead_ms": percentiles(overhead),
            "cached_round_ms": percentiles(cached),
            "context_tokens": result.context.token_count,
        }
        p95 = out["overhead_ms"]["p95"]
        out["targets"] = {"tool round overhead p95 <= 10 ms": {"p95": p95, "met": p95 is not None and p95 <= 10}}
        ctx.wait_idle()
        return out
    finally:
        server.shutdown()
        server.server_close()
