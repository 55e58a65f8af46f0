"""The offline model's tool calls, so that tools work, and integrators can test their endpoint, before
a model is connected:

- asked what it remembers about a topic ("What do you remember about my coffee?", "你还记得我的预算吗"), it
  calls search_memory with that topic;
- with `tool_choice` naming a tool, it calls that tool once, its arguments filled from the message by the tool's
  schema (an enum value the message names, numbers in order, the topic for text);
- once the results are in, its reply says what each tool returned.
"""

from __future__ import annotations

import json
import re

from django.utils.translation import gettext, pgettext

from core.i18n import user_language
from core.text import mostly_chinese

_ASKS_MEMORY = re.compile(
    r"what do you (?:remember|know|recall)|do you (?:remember|recall)|what have i told you|"
    r"你(?:还)?记得|还记得|你知道我|记不记得|我跟你说过",
    re.I,
)
_ABOUT = re.compile(r"\babout\s+(.+)|关于(.+)|记得(.+)", re.I)


def _topic(text: str) -> str:
    match = _ABOUT.search(text)
    topic = next((g for g in (match.groups() if match else ()) if g), text)
    topic = re.sub(r"^(?:me\s+|my\s+)?", "", topic.strip(), flags=re.I)
    return topic.strip(" ?？。.!！吗呢") or text.strip()


def _fill(schema: dict, text: str) -> dict:
    """Arguments for a tool from the user's message, by the tool's JSON Schema."""
    numbers = re.findall(r"-?\d+(?:\.\d+)?", text)
    required = set(schema.get("required") or [])
    arguments: dict = {}
    for name, prop in (schema.get("properties") or {}).items():
        kind = prop.get("type")
        if prop.get("enum"):
            said = [v for v in prop["enum"] if str(v).casefold() in text.casefold()]
            arguments[name] = said[0] if said else prop["enum"][0]
        elif kind in ("integer", "number") and numbers:
            value = float(numbers.pop(0))
            arguments[name] = int(value) if kind == "integer" else value
        elif kind == "string":
            arguments[name] = _topic(text)[: prop.get("maxLength", 500)]
        elif kind == "boolean" and name in required:
            arguments[name] = False
    return arguments


def _since_user(messages: list[dict]) -> list[dict]:
    last = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    return messages[last + 1 :]


def offline_tool_calls(messages: list[dict], tools: list[dict], tool_choice) -> list[dict]:
    """The calls the offline model makes in this round: none once this turn's results are in."""
    if not tools or tool_choice == "none" or any(m.get("role") == "tool" for m in _since_user(messages)):
        return []
    functions = {t["function"]["name"]: t["function"] for t in tools}
    users = [m for m in messages if m.get("role") == "user"]
    text = str(users[-1].get("content") or "") if users else ""
    if isinstance(tool_choice, dict):
        name = tool_choice.get("function", {}).get("name", "")
        if name in functions:
            arguments = _fill(functions[name].get("parameters") or {}, text)
            return [{"id": "offline_0", "name": name, "arguments": json.dumps(arguments, ensure_ascii=False)}]
        return []
    if "search_memory" in functions and _ASKS_MEMORY.search(text):
        arguments = {"query": _topic(text)[:500]}
        return [{"id": "offline_0", "name": "search_memory", "arguments": json.dumps(arguments, ensure_ascii=False)}]
    return []


def offline_tool_lines(messages: list[dict]) -> list[str]:
    """A line per tool result of this turn, for the offline reply, in the language of the user's message (the
    sentences are in the catalogue, locale/zh_Hans)."""
    names = {}
    for message in _since_user(messages):
        for call in message.get("tool_calls") or []:
            names[call["id"]] = call["function"]["name"]
    users = [m for m in messages if m.get("role") == "user"]
    chinese = mostly_chinese(str(users[-1].get("content") or "")) if users else False
    lines = []
    with user_language(chinese):
        for message in _since_user(messages):
            if message.get("role") != "tool":
                continue
            name = names.get(message.get("tool_call_id"), "tool")
            try:
                answer = json.loads(message.get("content") or "{}")
            except ValueError:
                answer = {"status": "ok", "result": message.get("content")}
            lines.append(_line(name, answer if isinstance(answer, dict) else {}))
    return lines


def _line(name: str, answer: dict) -> str:
    status, result = answer.get("status", "ok"), str(answer.get("result") or "")
    if status != "ok":
        return gettext("%(tool)s did not work: %(result)s") % {"tool": name, "result": result[:300]}
    if name == "search_memory":
        try:
            found = [r["content"] for r in json.loads(result).get("results", [])]
        except (ValueError, AttributeError, KeyError, TypeError):
            found = []
        if not found:
            return gettext("I found nothing about that in your notes.")
        joined = pgettext("between the notes of a list", "; ").join(found[:5])
        return gettext("In your notes I found: %(notes)s") % {"notes": joined}
    return gettext("%(tool)s returned: %(result)s") % {"tool": name, "result": result[:300]}
