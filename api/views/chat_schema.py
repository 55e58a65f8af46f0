"""The chat answer's shape, for the OpenAPI schema and its examples (api.views.chat answers with it)."""

from __future__ import annotations

from rest_framework import serializers


class RecalledItemSerializer(serializers.Serializer):
    type = serializers.CharField(help_text="'note' (long-term memory) or 'message' (a past message).")
    id = serializers.IntegerField()
    kind = serializers.CharField(help_text="The note's kind; empty for messages.")
    content = serializers.CharField(allow_blank=True)
    score = serializers.FloatField(help_text="Recall score: relevance x confidence x freshness.")
    relevance = serializers.FloatField(
        allow_null=True,
        help_text="The chance (0..1) that the item bears on the query, calibrated on labelled recall data "
        "(docs/memory.md, 'How sure a recall is').",
    )
    relevant = serializers.BooleanField(help_text="Relevance at least the platform's floor: worth putting in a prompt.")
    session = serializers.IntegerField(allow_null=True, help_text="Provenance: the session it comes from.")
    message_ids = serializers.ListField(child=serializers.IntegerField(), help_text="Provenance: source messages.")
    created_at = serializers.DateTimeField(allow_null=True)


class MemoryUsedSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    type = serializers.CharField()
    kind = serializers.CharField()
    content = serializers.CharField(allow_blank=True)
    score = serializers.FloatField()


class TurnContextSerializer(serializers.Serializer):
    summary = serializers.CharField(allow_blank=True, help_text="Rolling summary of the older messages.")
    pinned_facts = serializers.JSONField(help_text="Core constraints: key -> {value, message_id, updated_at}.")
    memories = RecalledItemSerializer(many=True, help_text="Long-term memories put in context.")
    task = serializers.JSONField(allow_null=True, help_text="The working-memory task state, or null.")
    hints = serializers.ListField(child=serializers.CharField(), required=False)
    token_count = serializers.IntegerField(required=False)


class ToolCallSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField(help_text="The tool called.")
    label = serializers.CharField(allow_blank=True, help_text="What a person sees: 'Looked up your notes'.")  # type: ignore[assignment]  # drf-stubs: a field named like a Field attribute
    arguments = serializers.JSONField(help_text="The arguments the model passed.")
    status = serializers.CharField(
        help_text="ok, error, timeout, too_large, invalid_arguments, unknown_tool or refused."
    )
    duration_ms = serializers.FloatField()
    cached = serializers.BooleanField(help_text="Answered from this conversation's earlier identical call.")
    result = serializers.CharField(
        allow_blank=True, help_text="The result, cut to 1,000 characters, identifiers redacted."
    )
    round = serializers.IntegerField(help_text="The tool round of the turn (1 = first).")


class ChatResponse(serializers.Serializer):
    session = serializers.IntegerField(help_text="Pass it back to continue the conversation.")
    message_id = serializers.IntegerField(
        allow_null=True, help_text="The reply's id (for feedback); null if the model failed."
    )
    user_message_id = serializers.IntegerField(help_text="The stored user message (kept even if the model failed).")
    reply = serializers.CharField(allow_blank=True)
    error = serializers.CharField(allow_null=True, help_text="A sentence when the model failed, else null.")
    memories_used = MemoryUsedSerializer(many=True)
    # a field named like a Field attribute (api.views.memories.NoteQuery says why it is fine)
    context = TurnContextSerializer(help_text="What the reply was built from.")  # type: ignore[assignment]
    tool_calls = ToolCallSerializer(many=True, help_text="The tools the model called in this turn, in order.")
    temporary = serializers.BooleanField(help_text="A temporary chat: nothing is remembered from it.")
    expires_at = serializers.DateTimeField(allow_null=True, help_text="A temporary chat is deleted then.")


CHAT_EXAMPLE = {
    "session": 12,
    "message_id": 345,
    "user_message_id": 344,
    "reply": "Noted: your budget is about 400k.",
    "error": None,
    "memories_used": [
        {"id": 7, "type": "note", "kind": "preference", "content": "The user drinks americano.", "score": 0.82}
    ],
    "context": {
        "summary": "The user plans a coffee shop in Hangzhou.",
        "pinned_facts": {"budget": {"value": "400k", "message_id": 301, "updated_at": "2026-01-02T10:00:00Z"}},
        "memories": [
            {
                "type": "note",
                "id": 7,
                "kind": "preference",
                "content": "The user drinks americano.",
                "score": 0.82,
                "session": 3,
                "message_ids": [40],
                "created_at": "2026-01-01T09:00:00Z",
            }
        ],
        "task": None,
        "hints": [],
        "token_count": 512,
    },
}
SSE_EXAMPLE = (
    'event: context\ndata: {"summary": "", "pinned_facts": {}, "memories": [], "task": null}\n\n'
    'event: delta\ndata: {"text": "Noted: "}\n\n'
    'event: delta\ndata: {"text": "your budget is about 400k."}\n\n'
    'event: done\ndata: {"session": 12, "message_id": 345, "reply": "Noted: your budget is about 400k.", '
    "...}\n\n"
)


class SseEventSerializer(serializers.Serializer):
    """One server-sent event as a client's parser sees it (how schemathesis checks a stream, event by event)."""

    event = serializers.ChoiceField(choices=["context", "delta", "tool_call", "tool_result", "done", "error", "memory"])
    data = serializers.CharField(help_text='JSON: the TurnContext, {"text"}, the chat answer, or the error body.')  # type: ignore[assignment]  # drf-stubs: a field named like a Field attribute
