"""The HTTP edge as a hostile client meets it, over real sockets against uvicorn (`make run`'s server): bodies are
judged before they are read (declared or chunked), chunked bodies within the limit work, and every user id the
API accepts, "/" included, is addressable by every per-user endpoint."""

from __future__ import annotations

import http.client
import json
import select
import socket
import time
import urllib.parse

import pytest

from assistants.services.tenants import tenant_create
from tenancy.models import ChatSession, EndUser, Message
from tests.conftest import ROOT, worker_env
from tests.reliability.conftest import WebProcess, free_port

pytestmark = pytest.mark.django_db(transaction=True)

API_LIMIT = 200_000  # API_MAX_REQUEST_BYTES of the web process below
WEB_LIMIT = 100_000  # MAX_REQUEST_BYTES (everything outside /api/)


@pytest.fixture(scope="module")
def web(django_db_setup, openai_server):
    env = worker_env(openai_server)
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.local",
            "DJANGO_DEBUG": "false",
            "API_MAX_REQUEST_BYTES": str(API_LIMIT),
            "MAX_REQUEST_BYTES": str(WEB_LIMIT),
        }
    )
    process = WebProcess(free_port(), env, ROOT / "test-artifacts" / "web-http-edge.log").start()
    yield process
    process.stop()


@pytest.fixture
def key(web):
    _, raw = tenant_create(slug="edge")
    return raw


def read_response(sock: socket.socket, timeout: float) -> tuple[int, dict, bytes]:
    sock.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), headers, body


def raw_request(web, head: str, body_parts=(), timeout: float = 10) -> tuple[int, dict, bytes, float]:
    """Send the head (and any body parts) on a socket and read the answer without sending anything more."""
    with socket.create_connection(("127.0.0.1", web.port), timeout=timeout) as sock:
        started = time.monotonic()
        sock.sendall(head.encode())
        for part in body_parts:
            # as an HTTP client does: stop sending once the server has answered (a 413 mid-body), else the
            # next send may meet the closed connection, depending on timing alone
            if select.select([sock], [], [], 0)[0]:
                break
            try:
                sock.sendall(part)
            except (BrokenPipeError, ConnectionResetError):
                break
        status, headers, body = read_response(sock, timeout)
        return status, headers, body, time.monotonic() - started


@pytest.mark.parametrize("path", ["/api/v1/chat/", "/healthz", "/login/", "/admin/login/"])
def test_a_declared_huge_body_is_refused_before_any_of_it_is_sent(web, key, path):
    # 10 GB declared, not one byte sent: the answer can only come from the headers.
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {key}\r\nContent-Length: {10 * 1024**3}\r\n\r\n"
    )
    status, headers, body, seconds = raw_request(web, head)
    assert status == 413 and seconds < 5
    assert headers["connection"] == "close"
    if path.startswith(("/api/", "/healthz")):
        error = json.loads(body)["error"]
        assert (
            error["code"] == "request_too_large"
            and str(API_LIMIT if path.startswith("/api/") else WEB_LIMIT) in error["message"]
        )
    else:
        assert b"limit" in body and headers["content-type"].startswith("text/html")


def test_a_content_length_that_is_not_a_number_is_a_400(web, key):
    head = (
        "POST /api/v1/chat/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {key}\r\nContent-Length: -5\r\n\r\n"
    )
    status, _, _, seconds = raw_request(web, head)
    assert status == 400 and seconds < 5  # uvicorn refuses it itself; BodySizeLimit would too (400)


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"


def test_a_chunked_body_past_the_limit_is_stopped_as_it_streams_and_nothing_is_stored(web, key):
    head = (
        "POST /api/v1/chat/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {key}\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    payload = json.dumps({"user": "chunky", "message": "长" * API_LIMIT}).encode()
    parts = [chunk(payload[i : i + 16384]) for i in range(0, API_LIMIT + 32768, 16384)]
    # The body never ends (no terminating chunk): the 413 comes as soon as the count passes the limit.
    status, headers, body, seconds = raw_request(web, head, parts)
    assert status == 413 and seconds < 10
    assert json.loads(body)["error"]["code"] == "request_too_large"
    assert not EndUser.objects.unscoped().filter(external_id="chunky").exists()


def test_a_chunked_body_within_the_limit_is_read_whole(web, key):
    message = "我的预算大概 40 万，店开在杭州。 " * 200  # ~4 KB of Chinese, sent in small chunks
    payload = json.dumps({"user": "分块用户", "message": message}, ensure_ascii=False).encode()
    conn = http.client.HTTPConnection("127.0.0.1", web.port, timeout=60)
    conn.request(
        "POST",
        "/api/v1/chat/",
        body=(payload[i : i + 1000] for i in range(0, len(payload), 1000)),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {key}"},
        encode_chunked=True,
    )
    response = conn.getresponse()
    body = json.loads(response.read())
    conn.close()
    assert response.status == 200, body
    stored = Message.objects.unscoped().get(pk=body["user_message_id"])
    assert stored.content == message.strip() and stored.end_user.external_id == "分块用户"


IDS = ["team/eve", "50%off", "what?", "a#b", "two words", "张三/李四", "ümlaut & co", "a/../b", "%2F", "x/"]


def call(web, key, method, path, body=None):
    data = json.dumps(body, ensure_ascii=False).encode() if body is not None else None
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    status, _, text = web.request(method, path, body=data, headers=headers, timeout=60)
    return status, (json.loads(text) if text else None)


def test_every_accepted_user_id_is_addressable_by_every_endpoint(web, key):
    for external_id in IDS:
        status, turn = call(
            web, key, "POST", "/api/v1/chat/", {"user": external_id, "message": f"hi from {external_id}"}
        )
        assert status == 200, (external_id, turn)
    for external_id in IDS:
        base = f"/api/v1/users/{urllib.parse.quote(external_id, safe='')}"
        status, sessions = call(web, key, "GET", f"{base}/sessions/")
        assert status == 200 and [s["user"] for s in sessions["results"]] == [external_id], (external_id, sessions)
        assert (
            call(
                web,
                key,
                "POST",
                f"{base}/memories/",
                {"kind": "preference", "content": "Likes tea.", "source": "admin", "confidence": 0.9},
            )[0]
            == 201
        )
        status, notes = call(web, key, "GET", f"{base}/memories/")
        assert status == 200 and {n["user"] for n in notes["results"]} == {external_id}
        assert call(web, key, "GET", f"{base}/recall/?q=tea")[0] == 200
        assert call(web, key, "GET", f"{base}/tasks/")[0] == 200
        status, export = call(web, key, "GET", f"{base}/export/")
        assert status == 200 and json.dumps(export, ensure_ascii=False).count("hi from " + external_id) >= 1
        assert call(web, key, "POST", f"{base}/memories/forget/", {"query": "tea"})[0] == 200
    # Links the API builds keep the id encoded: the next page of team/eve's sessions is team/eve's.
    assert call(web, key, "POST", "/api/v1/chat/", {"user": "team/eve", "message": "second"})[0] == 200
    status, first_page = call(web, key, "GET", "/api/v1/users/team%2Feve/sessions/?page_size=1")
    assert status == 200 and first_page["count"] == 2 and "/users/team%2Feve/sessions/" in first_page["next"]
    status, second_page = call(web, key, "GET", first_page["next"].split(str(web.port), 1)[1])
    assert status == 200 and [s["user"] for s in second_page["results"]] == ["team/eve"]
    assert "/users/team%2Feve/sessions/" in second_page["previous"]
    # Without the final slash: redirected to the same (encoded) address, not to user "team"'s.
    status, redirected = call(web, key, "GET", "/api/v1/users/team%2Feve/sessions?page_size=1")
    assert status == 200 and redirected["count"] == 2
    # "team/eve" is not "team": the unencoded form is another address, and a user with a prefix id sees nothing.
    assert call(web, key, "GET", "/api/v1/users/team/sessions/")[0] == 404
    status, erase = call(web, key, "DELETE", f"/api/v1/users/{urllib.parse.quote('team/eve', safe='')}/")
    assert status == 202 and erase["job"]
    erased = EndUser.objects.unscoped().get(external_id="team/eve")
    assert erased.erasure_requested_at is not None
    assert EndUser.objects.unscoped().get(external_id="张三/李四").erasure_requested_at is None


def test_ids_no_client_can_address_are_refused_at_creation_with_the_rule(web, key):
    for external_id in (".", ".."):
        status, body = call(web, key, "POST", "/api/v1/chat/", {"user": external_id, "message": "hi"})
        assert status == 400 and "%2F" in body["error"]["message"], body
    assert not ChatSession.objects.unscoped().exists()
