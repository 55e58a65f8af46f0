"""GET /api/v1/messages/<id>/memory-events/ and POST …/memory-events/<note_id>/undo/: what a chat turn wrote,
updated, superseded or forgot in the user's memory, and undoing one change."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers
from rest_framework.response import Response

from api.schema import api_doc
from api.views.base import TenantAPIView
from api.views.sessions import USER_PARAM
from assistants.services.pinned_sync import session_pinned_after_undo
from core.exceptions import NotFound
from memory.services.notes.event_undo import memory_event_undo
from memory.services.notes.events import memory_events_for_message
from tenancy.models import Message


class MemoryEventBefore(serializers.Serializer):
    note_id = serializers.IntegerField()
    # a field named like a Field attribute (api.views.memories.NoteQuery says why it is fine)
    label = serializers.CharField()  # type: ignore[assignment]
    content = serializers.CharField(allow_blank=True)


class MemoryEventSerializer(serializers.Serializer):
    action = serializers.ChoiceField(
        ["written", "updated", "superseded", "forgotten"],
        help_text="written: a new note; updated: a note's value was confirmed (an "
        "approximate amount said exactly); superseded: a new version "
        "replaced `before`; forgotten: a forget request removed notes "
        "(never their text).",
    )
    note_id = serializers.IntegerField(required=False, help_text="The note written (written, superseded).")
    kind = serializers.CharField(required=False)
    key = serializers.CharField(required=False, allow_blank=True)
    label = serializers.CharField(required=False, help_text="Short form, e.g. 'budget 30,000 euros'.")  # type: ignore[assignment]  # drf-stubs: a field named like a Field attribute
    value = serializers.CharField(required=False, help_text="The label without the slot, e.g. '30,000 euros'.")
    content = serializers.CharField(required=False, allow_blank=True)
    before = MemoryEventBefore(required=False, help_text="The version it replaced (superseded).")
    notes = serializers.IntegerField(required=False, help_text="How many notes were forgotten (forgotten).")
    keys = serializers.ListField(child=serializers.CharField(allow_blank=True), required=False)
    places = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Where it was removed: notes, pinned, summary, task, scratch.",
    )
    undoable = serializers.BooleanField()
    undone = serializers.BooleanField()


class MemoryEventsResponse(serializers.Serializer):
    message_id = serializers.IntegerField(help_text="The user message of the turn.")
    status = serializers.ChoiceField(
        ["done", "pending"], help_text="pending: the turn's extraction job has not finished yet; ask again in a moment."
    )
    events = MemoryEventSerializer(many=True)


EXAMPLE = {
    "message_id": 344,
    "status": "done",
    "events": [
        {
            "action": "superseded",
            "note_id": 52,
            "kind": "constraint",
            "key": "budget",
            "label": "budget 30,000 euros",
            "value": "30,000 euros",
            "content": "The user's budget is 30,000 euros.",
            "undoable": True,
            "undone": False,
            "before": {"note_id": 41, "label": "budget 20,000 euros", "content": "The user's budget is 20,000 euros."},
        }
    ],
}


class _TurnMessageView(TenantAPIView):
    """The message a turn's memory events hang on, within the tenant (and the ?user= safeguard)."""

    model = Message
    not_found_message = "That message does not exist."

    def _message(self, pk):
        return self.get_object(pk, self.of_optional_user(self.get_queryset()).select_related("end_user"))


class MemoryEventsView(_TurnMessageView):
    @api_doc(
        summary="Memory changes of a chat turn",
        description="What the turn of this message (the user message or its reply) wrote, updated, "
        "superseded or forgot in the user's long-term memory. `status` is `pending` until the "
        "turn's extraction job has finished. The streaming chat sends the same object as its "
        "`memory` event.",
        parameters=[USER_PARAM],
        responses={200: OpenApiResponse(MemoryEventsResponse, examples=[OpenApiExample("changed", EXAMPLE)])},
    )
    def get(self, request, pk):
        message = self._message(pk)
        return Response(memory_events_for_message(tenant=self.tenant, message_id=message.pk, end_user=message.end_user))


class MemoryEventUndoView(_TurnMessageView):
    @api_doc(
        summary="Undo one memory change of a chat turn",
        description="A written note is forgotten; a new version is rejected and the version it replaced is "
        "active again (and kept as corrected). A forget cannot be undone: the text is gone.",
        parameters=[USER_PARAM],
        responses={200: MemoryEventSerializer},
    )
    def post(self, request, pk, note_id):
        message = self._message(pk)
        if not isinstance(note_id, int) or note_id < 1:
            raise NotFound("That memory change does not exist in this turn.")
        with transaction.atomic():
            event = memory_event_undo(
                tenant=self.tenant, end_user=message.end_user, message_id=message.pk, note_id=note_id, actor=self.actor
            )
            session_pinned_after_undo(tenant=self.tenant, end_user=message.end_user, event=event)
        return Response(event)
