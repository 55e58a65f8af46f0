"""A scripted OpenAI-compatible HTTP server, started by tests, so that the real `openai` client is exercised
over real HTTP without the network. The only simulated part of the test suite is the language model.

Script it with `server.push(...)`: each queued response is used once, in order, for the matching endpoint;
with nothing queued the server answers with `default_chat` / a deterministic embedding.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Scripted:
    """One scripted answer. `content` is the assistant text (or a dict/list, sent as JSON text);
    `status` other than 200 sends `error_body`; `delay` sleeps first (for timeouts); `raw` sends bytes as is;
    `chunk_delay` sleeps between the pieces of a streamed answer (a slow model, for Stop)."""

    content: object = ""
    status: int = 200
    delay: float = 0.0
    chunk_delay: float = 0.0
    headers: dict = field(default_factory=dict)
    raw: bytes | None = None
    usage: dict | None = None  # the `usage` reported (chat, and a stream that asks for it); None: the default one
    # Tool calls the model asks for: [{"name", "arguments": dict or raw str, "id"?}], sent as OpenAI `tool_calls`
    # (a stream sends each call's arguments in two pieces, as real servers split them).
    tool_calls: list | None = None


class ScriptedOpenAI:
    def __init__(self, default_chat: str = "OK.", dimensions: int = 384):
        self.default_chat = default_chat
        self.dimensions = dimensions
        self.queues: dict[str, deque] = defaultdict(deque)
        self.requests: list[dict] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"  # type: ignore[str-bytes-safe]  # an AF_INET server: host is a str

    def start(self) -> ScriptedOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def push(self, endpoint: str = "chat", *answers: Scripted | str) -> None:
        """Queue answers for 'chat' or 'embeddings'."""
        for answer in answers:
            self.queues[endpoint].append(answer if isinstance(answer, Scripted) else Scripted(content=answer))

    def reset(self) -> None:
        self.queues.clear()
        self.requests.clear()

    def chat_requests(self) -> list[dict]:
        return [r["body"] for r in self.requests if r["path"].endswith("/chat/completions")]

    @staticmethod
    def fake_embedding(text: str, dimensions: int) -> list[float]:
        digest = hashlib.sha256(text.encode()).digest()
        vec = [((digest[i % len(digest)] / 255.0) - 0.5) for i in range(dimensions)]
        norm = sum(v * v for v in vec) ** 0.5 or 1.0
        return [v / norm for v in vec]

    def _handler(self):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output quiet
                pass

            def _send(self, status: int, payload: bytes, content_type="application/json", headers=None):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                outer.requests.append(
                    {"path": self.path, "body": body, "headers": dict(self.headers), "at": time.time()}
                )
                endpoint = "embeddings" if self.path.endswith("/embeddings") else "chat"
                answer = outer.queues[endpoint].popleft() if outer.queues[endpoint] else None
                if answer is not None and answer.delay:
                    time.sleep(answer.delay)
                if answer is not None and answer.raw is not None:
                    return self._send(answer.status, answer.raw, headers=answer.headers)
                if answer is not None and answer.status != 200:
                    err = {"error": {"message": f"scripted {answer.status}", "type": "server_error"}}
                    return self._send(answer.status, json.dumps(err).encode(), headers=answer.headers)
                if endpoint == "embeddings":
                    return self._embeddings(body, answer)
                return self._chat(body, answer)

            def _embeddings(self, body, answer):
                inputs = body.get("input")
                inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
                dims = int(body.get("dimensions") or outer.dimensions)
                data = [
                    {"object": "embedding", "index": i, "embedding": outer.fake_embedding(str(t), dims)}
                    for i, t in enumerate(inputs)
                ]
                payload = {
                    "object": "list",
                    "data": data,
                    "model": body.get("model", "fake"),
                    "usage": {"prompt_tokens": 1, "total_tokens": 1},
                }
                self._send(200, json.dumps(payload).encode())

            def _chat(self, body, answer):
                content = outer.default_chat if answer is None else answer.content
                if not isinstance(content, str):
                    content = json.dumps(content, ensure_ascii=False)
                model = body.get("model", "fake")
                usage = (answer.usage if answer is not None else None) or {
                    "prompt_tokens": 1,
                    "completion_tokens": 1,
                    "total_tokens": 2,
                }
                if body.get("stream"):
                    wants_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                    return self._stream(
                        content,
                        model,
                        chunk_delay=answer.chunk_delay if answer else 0.0,
                        usage=usage if wants_usage else None,
                        tool_calls=_tool_calls(answer),
                    )
                message: dict = {"role": "assistant", "content": content}
                if _tool_calls(answer):
                    message["tool_calls"] = _tool_calls(answer)
                payload = {
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": model,
                    "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                    "usage": usage,
                }
                self._send(200, json.dumps(payload, ensure_ascii=False).encode())

            def _stream(
                self, content: str, model: str, chunk_delay: float = 0.0, usage: dict | None = None, tool_calls=None
            ):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                pieces = [content[i : i + 8] for i in range(0, len(content), 8)] or [""]
                deltas: list[dict] = [{"content": piece} for piece in pieces if piece or not tool_calls]
                for index, call in enumerate(tool_calls or []):
                    arguments = call["function"]["arguments"]
                    half = len(arguments) // 2
                    deltas.append(
                        {
                            "tool_calls": [
                                {
                                    **call,
                                    "index": index,
                                    "function": {**call["function"], "arguments": arguments[:half]},
                                }
                            ]
                        }
                    )
                    deltas.append({"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]})
                for delta in deltas:
                    chunk = {
                        "id": "chatcmpl-test",
                        "object": "chat.completion.chunk",
                        "created": 0,
                        "model": model,
                        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
                    }
                    try:
                        self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
                        self.wfile.flush()
                    except OSError:  # the client (the platform, stopped by the person) went away
                        return
                    if chunk_delay:
                        time.sleep(chunk_delay)
                done = {
                    "id": "chatcmpl-test",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": model,
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if tool_calls else "stop"}],
                }
                self.wfile.write(f"data: {json.dumps(done)}\n\n".encode())
                if usage is not None:  # OpenAI's last chunk with stream_options.include_usage: no choices, the usage
                    last = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0, "model": model}
                    self.wfile.write(f"data: {json.dumps({**last, 'choices': [], 'usage': usage})}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        return Handler


_CALL_IDS = itertools.count(1)


def _tool_calls(answer: Scripted | None) -> list[dict] | None:
    """A scripted answer's tool calls in the OpenAI wire shape."""
    if answer is None or not answer.tool_calls:
        return None
    return [
        {
            "id": call.get("id") or f"call_{next(_CALL_IDS)}",  # unique across the conversation, as a real server's
            "type": "function",
            "function": {
                "name": call["name"],
                "arguments": call["arguments"]
                if isinstance(call["arguments"], str)
                else json.dumps(call["arguments"], ensure_ascii=False),
            },
        }
        for index, call in enumerate(answer.tool_calls)
    ]
