"""Sessions of a user: list, import a conversation, get one (summary, pinned facts), its messages, delete."""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models import Count
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import serializers
from rest_framework.response import Response

from api.fields import Id, StrictSerializer, Text
from api.schema import api_doc
from api.views.base import TenantAPIView
from assistants.services.importing import session_import
from assistants.services.sessions import session_delete
from tenancy.models import Assistant, ChatSession, Message

USER_PARAM = OpenApiParameter(
    "user",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    required=False,
    description="Optional safeguard: the object must also belong to this user (404 if not).",
)
PAGE_PARAMS = [
    OpenApiParameter("page", OpenApiTypes.INT, OpenApiParameter.QUERY, required=False),
    OpenApiParameter("page_size", OpenApiTypes.INT, OpenApiParameter.QUERY, required=False, description="At most 200."),
]


class SessionSerializer(serializers.ModelSerializer):
    user = serializers.CharField(source="end_user.external_id")
    message_count = serializers.IntegerField(help_text="Messages in the session.")

    class Meta:
        model = ChatSession
        fields = [
            "id",
            "user",
            "assistant",
            "title",
            "created_at",
            "last_activity_at",
            "message_count",
            "temporary",
            "expires_at",
        ]


class SessionDetailSerializer(SessionSerializer):
    pinned_facts = serializers.JSONField(help_text="Core constraints: key -> {value, message_id, updated_at}.")

    class Meta(SessionSerializer.Meta):
        fields = SessionSerializer.Meta.fields + ["summary", "summary_through", "summary_version", "pinned_facts"]


class MessageSerializer(serializers.ModelSerializer):
    error = serializers.SerializerMethodField(help_text="Why the model failed on this turn, if it did.")

    class Meta:
        model = Message
        fields = ["id", "session", "role", "content", "created_at", "token_count", "error"]

    def get_error(self, message) -> str | None:
        return (message.metadata or {}).get("error") or None


class ImportMessageSerializer(StrictSerializer):
    role = serializers.ChoiceField(choices=["user", "assistant"])
    content = Text(max_length=settings.MAX_MESSAGE_CHARS)
    created_at = serializers.DateTimeField(help_text="The original time (ISO 8601); oldest first.")


class ImportRequest(StrictSerializer):
    # many=True makes a ListSerializer, which takes max_length; drf-stubs type the call as the child's __init__
    messages = ImportMessageSerializer(many=True, allow_empty=False, max_length=settings.API_IMPORT_MAX_MESSAGES)  # type: ignore[call-arg]
    title = Text(required=False, allow_blank=True, max_length=200)
    assistant = Id(required=False, allow_null=True)


class ImportResponse(serializers.Serializer):
    session = SessionDetailSerializer()
    message_ids = serializers.ListField(child=serializers.IntegerField(), help_text="In the order given.")
    job = serializers.IntegerField(help_text="Extraction and compaction run in this job: GET /api/v1/jobs/<id>/.")


def _sessions(view):
    return view.get_queryset().select_related("end_user").annotate(message_count=Count("messages"))


class UserSessionsView(TenantAPIView):
    model = ChatSession

    @api_doc(
        summary="List a user's sessions",
        parameters=PAGE_PARAMS,
        description="Most recent activity first.",
        responses={200: SessionSerializer(many=True)},
    )
    def get(self, request, external_id):
        end_user = self.end_user(external_id)
        return self.paginated(
            _sessions(self).filter(end_user=end_user).order_by("-last_activity_at", "-id"), SessionSerializer
        )

    @api_doc(
        summary="Import a conversation",
        description=(
            "Creates a session from an existing conversation with its original timestamps (oldest "
            "first) and returns the message ids in order. A job then runs extraction and compaction on "
            "it as if it had been chatted; its progress is at GET /api/v1/jobs/<job>/. Notes learnt from "
            "an imported message take that message's time. At most API_IMPORT_MAX_MESSAGES messages."
        ),
        body=True,
        errors=(409,),
        request=ImportRequest,
        responses={
            201: OpenApiResponse(
                ImportResponse,
                examples=[
                    OpenApiExample(
                        "imported",
                        {
                            "session": {
                                "id": 21,
                                "user": "alice",
                                "assistant": 1,
                                "title": "Support chat",
                                "created_at": "2025-03-01T09:00:00Z",
                                "last_activity_at": "2025-03-01T09:01:00Z",
                                "message_count": 2,
                                "summary": "",
                                "summary_through": None,
                                "summary_version": 0,
                                "pinned_facts": {},
                            },
                            "message_ids": [501, 502],
                            "job": 77,
                        },
                    )
                ],
            )
        },
        examples=[
            OpenApiExample(
                "two messages",
                {
                    "title": "Support chat",
                    "messages": [
                        {"role": "user", "content": "I'm vegetarian.", "created_at": "2025-03-01T09:00:00Z"},
                        {"role": "assistant", "content": "Noted!", "created_at": "2025-03-01T09:01:00Z"},
                    ],
                },
                request_only=True,
            )
        ],
    )
    def post(self, request, external_id):
        data = self.validated(ImportRequest)
        assistant = None
        if data.get("assistant") is not None:
            assistant = self.get_object(
                data["assistant"],
                Assistant.objects.for_tenant(self.tenant),
                message=f"Assistant {data['assistant']} does not exist.",
            )
        with transaction.atomic():  # an import the service refuses leaves no new user behind
            end_user = self.end_user(external_id, create=True)
            session, message_ids, job = session_import(
                tenant=self.tenant,
                end_user=end_user,
                messages=data["messages"],
                title=data.get("title", ""),
                assistant=assistant,
                requested_by=self.actor,
            )
        session = _sessions(self).get(pk=session.pk)
        return Response(
            {"session": SessionDetailSerializer(session).data, "message_ids": message_ids, "job": job.pk}, status=201
        )


class SessionDetailView(TenantAPIView):
    model = ChatSession
    not_found_message = "That session does not exist."

    def _session(self, pk):
        return self.get_object(pk, self.of_optional_user(_sessions(self)))

    @api_doc(
        summary="Get a session with its summary and pinned facts",
        parameters=[USER_PARAM],
        responses={200: SessionDetailSerializer},
    )
    def get(self, request, pk):
        return Response(SessionDetailSerializer(self._session(pk)).data)

    @api_doc(
        summary="Delete a session",
        description="Deletes the session, its messages and their feedback. Long-term notes learnt from it "
        "stay (they are about the user); use the memories endpoints to forget them.",
        parameters=[USER_PARAM],
        responses={204: OpenApiResponse(description="Deleted.")},
    )
    def delete(self, request, pk):
        session_delete(tenant=self.tenant, session=self._session(pk))
        return Response(status=204)


class SessionMessagesView(TenantAPIView):
    model = Message

    @api_doc(
        summary="List a session's messages",
        description="Oldest first.",
        parameters=[USER_PARAM, *PAGE_PARAMS],
        responses={200: MessageSerializer(many=True)},
    )
    def get(self, request, pk):
        sessions = self.of_optional_user(ChatSession.objects.for_tenant(self.tenant))
        session = self.get_object(pk, sessions, message="That session does not exist.")
        return self.paginated(
            self.get_queryset().filter(session=session).order_by("created_at", "id"), MessageSerializer
        )
