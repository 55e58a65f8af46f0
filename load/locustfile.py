"""50 end users chatting through the REST API, each with its own memory (docs/reliability.md, "Load").

Every simulated person is a distinct end user of one tenant. Their first turns state facts that carry a marker
only they know (e.g. "我的店叫 zq1a2b3c4d"); later turns ask about them. Every response (reply, memories used and
the context the reply was built from) is searched for markers: a marker of anyone else is a cross-user leak and
fails the request. Run by load/run_load.py (make load); LOAD_API_KEY and the host come from it.
"""

from __future__ import annotations

import json
import os
import random
import re
import uuid

from locust import HttpUser, between, events, task

API_KEY = os.environ.get("LOAD_API_KEY", "")
MARKER = re.compile(r"zq[0-9a-f]{8}")
CITIES = ["成都", "杭州", "西安", "Shenzhen", "Wuhan", "Xiamen", "Chongqing", "Nanjing"]
SHOPS = ["火锅店", "咖啡馆", "面馆", "bakery", "tea shop", "bookstore"]
STATEMENTS_ZH = [
    "我的店叫{m}，在{city}开一家{shop}。",
    "我的预算大概{budget}万。",
    "我喜欢安静的街区，店名{m}别忘了。",
    "我不喜欢太吵的商场。",
]
STATEMENTS_EN = [
    "My shop is called {m}, a {shop} in {city}.",
    "My budget is about {budget}0,000 yuan.",
    "I prefer quiet streets; remember the name {m}.",
    "I don't like noisy malls.",
]
QUESTIONS_ZH = [
    "我的店叫什么名字？",
    "你还记得我的预算吗？",
    "根据我的情况，选址有什么建议？",
    "帮我总结一下我们聊过什么。",
]
QUESTIONS_EN = [
    "What is my shop called?",
    "Do you remember my budget?",
    "Where should I open, given what I told you?",
    "Summarise what we discussed.",
]

LEAKS = {"count": 0, "examples": []}


@events.test_stop.add_listener
def _report_leaks(environment, **kwargs):
    print(json.dumps({"cross_user_leaks": LEAKS["count"], "leak_examples": LEAKS["examples"][:5]}))


class ChattingUser(HttpUser):
    wait_time = between(0.5, 2.0)

    def on_start(self):
        self.marker = f"zq{uuid.uuid4().hex[:8]}"
        self.external_id = f"load-{uuid.uuid4().hex[:12]}"
        self.chinese = random.random() < 0.5
        self.session = None
        self.said = 0
        self.facts = {
            "m": self.marker,
            "city": random.choice(CITIES),
            "shop": random.choice(SHOPS),
            "budget": random.randint(10, 90),
        }

    def _message(self) -> str:
        statements = STATEMENTS_ZH if self.chinese else STATEMENTS_EN
        if self.said < len(statements):
            text = statements[self.said].format(**self.facts)
            self.said += 1
            return text
        return random.choice(QUESTIONS_ZH if self.chinese else QUESTIONS_EN)

    @task
    def chat(self):
        body = {"user": self.external_id, "message": self._message()}
        if self.session:
            body["session"] = self.session
        with self.client.post(
            "/api/v1/chat/",
            json=body,
            name="chat turn",
            catch_response=True,
            headers={"Authorization": f"Bearer {API_KEY}"},
        ) as resp:
            if resp.status_code != 200:
                resp.failure(f"HTTP {resp.status_code}: {resp.text[:200]}")
                return
            try:
                data = resp.json()
            except ValueError:
                resp.failure("the answer is not JSON")
                return
            if not data.get("reply"):
                resp.failure("empty reply")
                return
            self.session = data.get("session", self.session)
            if isinstance(self.session, dict):
                self.session = self.session.get("id")
            # Everything the answer was built from must be this user's own.
            seen = set(MARKER.findall(json.dumps(data, ensure_ascii=False))) - {self.marker}
            if seen:
                LEAKS["count"] += 1
                LEAKS["examples"].append({"user": self.external_id, "foreign_markers": sorted(seen)})
                resp.failure(f"cross-user leak: {sorted(seen)}")
                return
            resp.success()
