"""A real HTTP receiver for webhook tests: records every POST (time, headers, body), can go down and come back on
the same port, and can answer with a chosen status."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time


class Receiver:
    def __init__(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.received: list[dict] = []
        self.status = 200
        self._server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hooks"

    def start(self) -> Receiver:
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.received.append(
                    {
                        "at": time.time(),
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": body,
                        "json": json.loads(body or b"null"),
                    }
                )
                self.send_response(receiver.status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        http.server.ThreadingHTTPServer.allow_reuse_address = True
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def events(self, type_: str | None = None) -> list[dict]:
        return [r for r in self.received if type_ is None or r["json"]["type"] == type_]

    def wait_for(self, count: int, type_: str | None = None, timeout: float = 20.0) -> list[dict]:
        deadline = time.time() + timeout
        while time.time() < deadline:
            found = self.events(type_)
            if len(found) >= count:
                return found
            time.sleep(0.05)
        raise AssertionError(
            f"expected {count} {type_ or ''} deliveries, got {len(self.events(type_))}: "
            f"{[r['json']['type'] for r in self.received]}"
        )
