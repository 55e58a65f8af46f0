"""Usage totals under concurrency (issue 43), over a real web process (uvicorn, its pool of connections): turns
sent at once by several clients, JSON and streamed, are all counted, once each, for the right user."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

USERS, TURNS_EACH = 6, 4


def test_concurrent_turns_add_up_exactly(live_web, tenant_a, tenant_b):
    headers = {"Authorization": f"Bearer {tenant_a.key}"}

    def converse(index: int) -> int:
        done = 0
        with httpx.Client(base_url=live_web.base, headers=headers, timeout=60) as client:
            for turn in range(TURNS_EACH):
                body = {"user": f"u{index}", "message": f"turn {turn} of user {index}", "stream": turn % 2 == 1}
                response = client.post("/api/v1/chat/", json=body)
                assert response.status_code == 200, response.text
                done += 1
        return done

    with ThreadPoolExecutor(USERS) as pool:
        sent = sum(pool.map(converse, range(USERS)))
    assert sent == USERS * TURNS_EACH

    def rows(key, group_by):
        response = httpx.get(
            f"{live_web.base}/api/v1/usage/",
            params={"group_by": group_by},
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        )
        return response.json()["results"]

    day = wait_for(
        lambda: (lambda r: r if r and r[0]["turns"] == sent else None)(rows(tenant_a.key, "day")),
        timeout=20,
        message="every turn in usage",
        details=lambda: rows(tenant_a.key, "day"),
    )
    assert day[0]["turns"] == sent  # never more: no event written twice
    assert {r["group"]: r["turns"] for r in rows(tenant_a.key, "user")} == {f"u{i}": TURNS_EACH for i in range(USERS)}
    assert rows(tenant_b.key, "day") == []
