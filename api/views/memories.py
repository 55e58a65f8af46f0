"""Long-term memory of a user: list and search notes, add, correct, forget, history, forget by query."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import serializers
from rest_framework.response import Response

from api.fields import Bool, ChangeRequest, Number, StrictSerializer, Text
from api.preconditions import etag, if_match
from api.schema import api_doc
from api.views.base import TenantAPIView
from api.views.sessions import PAGE_PARAMS, USER_PARAM
from assistants.services.forgetting import forget_everywhere
from assistants.services.pinned_sync import session_pinned_follow_notes
from core.exceptions import Conflict
from core.policy import memory_policy_for
from memory.models import MemoryNote
from memory.services.notes.note_versions import (
    memory_note_forget_if_version,
    memory_note_update_if_version,
    note_version,
)
from memory.services.notes.notes import memory_note_create, memory_note_history
from memory.services.recall.recall import memory_recall
from tenancy.models import Message

NOTE_EXAMPLE = {
    "id": 7,
    "user": "alice",
    "kind": "preference",
    "key": "coffee",
    "content": "The user drinks americano.",
    "value": None,
    "quote": "I always drink americano",
    "source": "user_stated",
    "confidence": 0.9,
    "importance": 0.5,
    "pinned": False,
    "status": "active",
    "expires_at": "2026-07-01T09:00:00Z",
    "supersedes": None,
    "superseded_by": [],
    "session": 3,
    "source_messages": [40],
    "observed_at": "2026-01-01T09:00:00Z",
    "created_at": "2026-01-01T09:00:05Z",
    "updated_at": "2026-01-01T09:00:05Z",
    "last_recalled_at": None,
    "recall_count": 0,
    "score": None,
    "version": "5d41402abc4b2a76b972",
}

IF_MATCH = OpenApiParameter(
    "If-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    required=False,
    description='Optional: the ETag a GET sent (e.g. "5d41402abc4b2a76b972"). The change is made only if the note '
    "still has that version; else 412 and nothing changes.",
)


class NoteSerializer(serializers.ModelSerializer):
    user = serializers.CharField(source="end_user.external_id")
    value = serializers.JSONField(allow_null=True, help_text="Structured value, e.g. {'amount': 400000}.")
    superseded_by: serializers.PrimaryKeyRelatedField[MemoryNote] = serializers.PrimaryKeyRelatedField(
        many=True, read_only=True, help_text="Notes that replaced this one."
    )
    source_messages: serializers.PrimaryKeyRelatedField[Message] = serializers.PrimaryKeyRelatedField(
        many=True, read_only=True, help_text="Provenance: the messages it was learnt from."
    )
    score = serializers.SerializerMethodField(help_text="Recall score when listed with ?q=, else null.")
    version = serializers.SerializerMethodField(
        help_text="The note's version: its ETag without the quotes; send it back in If-Match to change it safely."
    )

    class Meta:
        model = MemoryNote
        fields = [
            "id",
            "user",
            "kind",
            "key",
            "content",
            "value",
            "quote",
            "source",
            "confidence",
            "importance",
            "pinned",
            "status",
            "expires_at",
            "supersedes",
            "superseded_by",
            "session",
            "source_messages",
            "observed_at",
            "created_at",
            "updated_at",
            "last_recalled_at",
            "recall_count",
            "score",
            "version",
        ]

    def get_score(self, note) -> float | None:
        score = (self.context.get("scores") or {}).get(note.pk)
        return round(score, 4) if score is not None else None

    def get_version(self, note) -> str:
        return note_version(note)


class NoteQuery(serializers.Serializer):
    kind = serializers.ChoiceField(choices=MemoryNote.Kind.choices, required=False)
    status = serializers.ChoiceField(choices=[*MemoryNote.Status.values, "all"], required=False)
    # `source`, `label`, `context`, `data`: the metaclass takes declared fields out of the class, so a field may
    # share a Field/Serializer attribute's name; drf-stubs type them as that attribute (stubs limitation).
    source = serializers.ChoiceField(choices=MemoryNote.Source.choices, required=False)  # type: ignore[assignment]
    q = Text(required=False, max_length=2000)
    k = serializers.IntegerField(required=False, min_value=1, max_value=100, default=10)


class NoteCreateRequest(StrictSerializer):
    kind = serializers.ChoiceField(choices=MemoryNote.Kind.choices)
    content = Text(max_length=2000, help_text="The fact as one sentence, in the user's language.")
    key = Text(required=False, allow_blank=True, max_length=100, help_text="Slot within the kind, e.g. 'budget'.")
    source = serializers.ChoiceField(choices=["admin", "tool_result"], default="admin")  # type: ignore[assignment]  # drf-stubs: a field named like a Field attribute
    confidence = Number(required=False, min_value=0.0, max_value=1.0, default=0.9)


class NoteUpdateRequest(ChangeRequest):
    content = Text(required=False, max_length=2000)
    kind = serializers.ChoiceField(choices=MemoryNote.Kind.choices, required=False)
    key = Text(required=False, allow_blank=True, max_length=100)
    confidence = Number(required=False, min_value=0.0, max_value=1.0)
    expires_at = serializers.DateTimeField(required=False, allow_null=True)
    pinned = Bool(required=False, help_text="Pinned notes never decay.")


class ForgetRequest(StrictSerializer):
    query = Text(max_length=2000, help_text="What to forget, e.g. 'my budget' or '预算'.")


class ForgottenSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    content = serializers.CharField(help_text="As it was; it is no longer stored.")


class ForgetResponse(serializers.Serializer):
    forgotten = ForgottenSerializer(many=True)
    places = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Where it was removed: notes, pinned, summary, task, scratch.",
    )


class HistoryResponse(serializers.Serializer):
    results = NoteSerializer(many=True, help_text="The supersede chain through this note, oldest first.")


class UserMemoriesView(TenantAPIView):
    model = MemoryNote

    @api_doc(
        summary="List or search a user's notes",
        description=(
            "Without `q`: the notes, newest first, filtered by kind, status (default `active`; `all` for "
            "every status) and source. With `q`: runs recall (as the chat turn would, without adding a "
            "turn) and returns the matching notes best first, each with its `score`; `k` caps the count."
        ),
        parameters=[NoteQuery, *PAGE_PARAMS],
        responses={
            200: OpenApiResponse(
                NoteSerializer(many=True),
                examples=[
                    OpenApiExample(
                        "notes",
                        {"count": 1, "next": None, "previous": None, "results": [NOTE_EXAMPLE]},
                        response_only=True,
                    )
                ],
            )
        },
        errors=(400,),
    )
    def get(self, request, external_id):
        params = self.query(NoteQuery)
        end_user = self.end_user(external_id)
        notes = (
            self.get_queryset()
            .filter(end_user=end_user)
            .select_related("end_user")
            .prefetch_related("superseded_by", "source_messages")
        )
        for name in ("kind", "source"):
            if params.get(name):
                notes = notes.filter(**{name: params[name]})
        status = params.get("status") or ("all" if params.get("q") else MemoryNote.Status.ACTIVE)
        if status != "all":
            notes = notes.filter(status=status)
        if not params.get("q"):
            return self.paginated(notes.order_by("-created_at", "-id"), NoteSerializer)
        items = [
            item
            for item in memory_recall(
                tenant=self.tenant,
                end_user=end_user,
                query=params["q"],
                policy=memory_policy_for(tenant=self.tenant),
                k=params["k"],
                include_messages=False,
                touch=False,
            )
            if item.type == "note"
        ]
        scores = {item.id: item.score for item in items}
        found = {note.pk: note for note in notes.filter(pk__in=list(scores))}
        ordered = [found[item.id] for item in items if item.id in found]
        data = NoteSerializer(ordered, many=True, context={"scores": scores}).data
        return Response({"count": len(data), "next": None, "previous": None, "results": data})

    @api_doc(
        summary="Add a note",
        description="A fact from your system (source `admin` or `tool_result`).",
        body=True,
        errors=(409,),
        request=NoteCreateRequest,
        responses={201: OpenApiResponse(NoteSerializer, examples=[OpenApiExample("created", NOTE_EXAMPLE)])},
        examples=[
            OpenApiExample(
                "note",
                {
                    "kind": "profile",
                    "key": "diet",
                    "content": "The user is vegetarian.",
                    "source": "tool_result",
                    "confidence": 0.95,
                },
                request_only=True,
            )
        ],
    )
    def post(self, request, external_id):
        data = self.validated(NoteCreateRequest)
        with transaction.atomic():  # a note the service refuses leaves no new user behind
            end_user = self.end_user(external_id, create=True)
            note = memory_note_create(
                tenant=self.tenant,
                end_user=end_user,
                kind=data["kind"],
                content=data["content"],
                policy=memory_policy_for(tenant=self.tenant),
                key=data.get("key", ""),
                source=data["source"],
                confidence=data["confidence"],
                actor=self.actor,
            )
        return Response(NoteSerializer(note).data, status=201)


class MemoryDetailView(TenantAPIView):
    model = MemoryNote
    not_found_message = "That note does not exist."

    def _note(self, pk):
        return self.get_object(pk, self.of_optional_user(self.get_queryset().select_related("end_user")))

    def _answer(self, note, status=200) -> Response:
        return Response(NoteSerializer(note).data, status=status, headers={"ETag": etag(note_version(note))})

    @api_doc(
        summary="Get a note",
        description="The `ETag` header holds the note's version (also its `version` field).",
        parameters=[USER_PARAM],
        responses={200: OpenApiResponse(NoteSerializer, examples=[OpenApiExample("note", NOTE_EXAMPLE)])},
    )
    def get(self, request, pk):
        return self._answer(self._note(pk))

    @api_doc(
        summary="Correct a note",
        description="Only the fields sent change; the content is re-embedded. With `If-Match`, only if the note "
        "still has that version (412 if it changed since).",
        body=True,
        errors=(409, 412),
        request=NoteUpdateRequest,
        parameters=[USER_PARAM, IF_MATCH],
        responses={200: NoteSerializer},
        examples=[OpenApiExample("correct", {"content": "The user's budget is about 150k."}, request_only=True)],
    )
    def patch(self, request, pk):
        data = self.validated(NoteUpdateRequest)
        expected = if_match(request)
        note = self._note(pk)
        if note.status == MemoryNote.Status.FORGOTTEN:
            raise Conflict("That note was forgotten; add a new note instead.", code="note_forgotten")
        with transaction.atomic():  # the note and the conversations' pinned facts change together, or neither
            note = memory_note_update_if_version(
                tenant=self.tenant, note=note, expected=expected, actor=self.actor, **data
            )
            # the chat's pinned facts (its "What we have settled" line) follow, as after the web's correction
            session_pinned_follow_notes(tenant=self.tenant, end_user=note.end_user, current=note)
        return self._answer(self._note(note.pk))

    @api_doc(
        summary="Forget a note",
        description="Status `forgotten`; its content and embedding are removed. With `If-Match`, only if the note "
        "still has that version (412 if it changed since).",
        errors=(400, 412),
        parameters=[USER_PARAM, IF_MATCH],
        responses={204: OpenApiResponse(description="Forgotten.")},
    )
    def delete(self, request, pk):
        expected = if_match(request)
        note = self._note(pk)
        memory_note_forget_if_version(tenant=self.tenant, note=note, expected=expected, actor=self.actor)
        return Response(status=204)


class MemoryHistoryView(TenantAPIView):
    model = MemoryNote
    not_found_message = "That note does not exist."

    @api_doc(
        summary="A note's history",
        description="The supersede chain through the note, oldest first.",
        parameters=[USER_PARAM],
        responses={200: HistoryResponse},
    )
    def get(self, request, pk):
        note = self.get_object(pk, self.of_optional_user(self.get_queryset()))
        chain = memory_note_history(tenant=self.tenant, note=note)
        chain = [n for n in chain if n.end_user_id == note.end_user_id]
        return Response({"results": NoteSerializer(chain, many=True).data})


class MemoryForgetView(TenantAPIView):
    model = MemoryNote

    @api_doc(
        summary="Forget what matches a query",
        description="Forgets what `query` names everywhere it lives (notes, pinned facts and summary lines "
        "of the user's sessions, task-state values, session scratch) and returns the notes "
        "forgotten and the places it was removed from.",
        body=True,
        request=ForgetRequest,
        responses={
            200: OpenApiResponse(
                ForgetResponse,
                examples=[
                    OpenApiExample("forgotten", {"forgotten": [{"id": 7, "kind": "plan", "content": "预算大概 40 万"}]})
                ],
            )
        },
        examples=[OpenApiExample("forget", {"query": "my budget"}, request_only=True)],
    )
    def post(self, request, external_id):
        data = self.validated(ForgetRequest)
        end_user = self.end_user(external_id)
        outcome = forget_everywhere(tenant=self.tenant, end_user=end_user, query=data["query"], actor=self.actor)
        return Response(
            {
                "forgotten": [
                    {"id": f["id"], "kind": f.get("kind", ""), "content": f.get("content", "")}
                    for f in outcome["forgotten"]
                ],
                "places": outcome["places"],
            }
        )
