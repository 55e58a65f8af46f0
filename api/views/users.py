"""Per-user endpoints: recall, working memory (task states), export and erasure; jobs; feedback; assistants and
their experiences."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema_field
from rest_framework import serializers
from rest_framework.response import Response

from api.fields import Bool, StrictSerializer, Text
from api.schema import api_doc
from api.views.base import TenantAPIView
from api.views.chat_schema import RecalledItemSerializer
from api.views.sessions import PAGE_PARAMS, USER_PARAM
from assistants.services.feedback import feedback_record
from assistants.services.privacy import user_erase_request, user_export_file
from assistants.services.tenants import end_user_memory_set
from core.downloads import file_download
from core.exceptions import ApplicationError
from core.models import JobRecord
from core.policy import memory_policy_for
from memory.models import Experience
from memory.services.recall.recall import memory_recall
from memory.services.recall.recall_types import nothing_relevant
from tasks.models import TaskState
from tenancy.models import Assistant, ErasureReceipt, Feedback, Message


class NotImplementedYet(ApplicationError):
    code = "not_implemented"
    status = 501


class RecallQuery(serializers.Serializer):
    q = Text(max_length=2000, help_text="The text to recall for, as if the user had said it.")
    k = serializers.IntegerField(required=False, min_value=1, max_value=100, default=10)


class RecallResponse(serializers.Serializer):
    query = serializers.CharField()
    results = RecalledItemSerializer(many=True, help_text="Best first: notes and past messages with provenance.")
    nothing_relevant = serializers.BooleanField(
        help_text="True when no result is `relevant`: the user's memory holds nothing that bears on the query."
    )


class TaskStateSerializer(serializers.ModelSerializer):
    required_fields = serializers.JSONField()
    collected = serializers.JSONField(help_text="field -> {value, message_id}.")
    pending_fields = serializers.JSONField()
    step_history = serializers.JSONField()

    class Meta:
        model = TaskState
        fields = [
            "id",
            "session",
            "task_name",
            "state",
            "required_fields",
            "collected",
            "pending_fields",
            "step_history",
            "result",
            "version",
            "expires_at",
            "created_at",
            "updated_at",
        ]


class TaskQuery(serializers.Serializer):
    state = serializers.ChoiceField(choices=TaskState.State.choices, required=False)


class ExperienceSerializer(serializers.ModelSerializer):
    confirmed_by_users = serializers.SerializerMethodField(
        help_text="Distinct users who liked this procedure; others are offered it from the tenant's "
        "experience_min_users on, or once staff approved it."
    )
    approved = serializers.SerializerMethodField(help_text="Approved by staff for all users of the assistant.")

    class Meta:
        model = Experience
        fields = [
            "id",
            "assistant",
            "task_summary",
            "solution",
            "use_count",
            "confirmed_by_users",
            "approved",
            "created_at",
            "updated_at",
        ]

    def get_confirmed_by_users(self, obj) -> int:
        return obj.n_users if hasattr(obj, "n_users") else obj.contributions.count()

    def get_approved(self, obj) -> bool:
        return obj.approved_at is not None


class AssistantSerializer(serializers.ModelSerializer):
    class Meta:
        model = Assistant
        fields = ["id", "name", "chat_model", "created_at"]


class FeedbackRequest(StrictSerializer):
    rating = serializers.ChoiceField(choices=["up", "down"])
    comment = Text(required=False, allow_blank=True, max_length=2000, default="")


class FeedbackSerializer(serializers.ModelSerializer):
    class Meta:
        model = Feedback
        fields = ["id", "message", "rating", "comment", "created_at", "updated_at"]


class ReceiptSerializer(serializers.ModelSerializer):
    class Meta:
        model = ErasureReceipt
        fields = ["id", "user_id_hash", "requested_by", "counts", "completed_at", "created_at"]


class JobSerializer(serializers.ModelSerializer):
    progress = serializers.JSONField(help_text="e.g. {'stage': 'extraction', 'done': 120, 'total': 800}.")
    result = serializers.JSONField(help_text="What the job did (counts), once succeeded.")
    receipt = serializers.SerializerMethodField(help_text="For an erasure job that finished: its receipt.")

    class Meta:
        model = JobRecord
        fields = [
            "id",
            "kind",
            "status",
            "progress",
            "result",
            "error",
            "attempts",
            "created_at",
            "started_at",
            "finished_at",
            "receipt",
        ]

    @extend_schema_field(ReceiptSerializer(allow_null=True))
    def get_receipt(self, job) -> dict | None:
        receipt = ErasureReceipt.objects.for_tenant(job.tenant_id).filter(job=job).first() if job.tenant_id else None
        return ReceiptSerializer(receipt).data if receipt else None


class JobAccepted(serializers.Serializer):
    job = serializers.IntegerField(help_text="Follow it at GET /api/v1/jobs/<job>/.")


class RecallView(TenantAPIView):
    model = Message

    @api_doc(
        summary="Recall for a text, without a turn",
        description="What the chat turn would recall for `q`: notes and past messages, each with its type, "
        "score and provenance (session and message ids). Adds no turn and does not count as a "
        "recall of the notes.",
        parameters=[RecallQuery],
        errors=(400,),
        responses={
            200: OpenApiResponse(
                RecallResponse,
                examples=[
                    OpenApiExample(
                        "recall",
                        {
                            "query": "budget",
                            "results": [
                                {
                                    "type": "note",
                                    "id": 7,
                                    "kind": "plan",
                                    "content": "预算大概 40 万",
                                    "score": 0.71,
                                    "relevance": 0.42,
                                    "relevant": True,
                                    "session": 3,
                                    "message_ids": [40],
                                    "created_at": "2026-01-01T09:00:00Z",
                                }
                            ],
                            "nothing_relevant": False,
                        },
                    )
                ],
            )
        },
    )
    def get(self, request, external_id):
        params = self.query(RecallQuery)
        end_user = self.end_user(external_id)
        policy = memory_policy_for(tenant=self.tenant)
        items = memory_recall(
            tenant=self.tenant, end_user=end_user, query=params["q"], policy=policy, k=params["k"], touch=False
        )
        items = items[: params["k"]]
        return Response(
            {
                "query": params["q"],
                "results": [item.as_dict() for item in items],
                "nothing_relevant": nothing_relevant(items),
            }
        )


class UserTasksView(TenantAPIView):
    model = TaskState

    @api_doc(
        summary="A user's task states (working memory)",
        description="Most recently updated first.",
        parameters=[TaskQuery, *PAGE_PARAMS],
        errors=(400,),
        responses={200: TaskStateSerializer(many=True)},
    )
    def get(self, request, external_id):
        params = self.query(TaskQuery)
        end_user = self.end_user(external_id)
        tasks = self.get_queryset().filter(end_user=end_user)
        if params.get("state"):
            tasks = tasks.filter(state=params["state"])
        return self.paginated(tasks.order_by("-updated_at", "-id"), TaskStateSerializer)


class AssistantsView(TenantAPIView):
    model = Assistant

    @api_doc(
        summary="List the tenant's assistants", parameters=PAGE_PARAMS, responses={200: AssistantSerializer(many=True)}
    )
    def get(self, request):
        return self.paginated(self.get_queryset().order_by("id"), AssistantSerializer)


class AssistantExperiencesView(TenantAPIView):
    model = Experience

    @api_doc(
        summary="An assistant's experiences",
        description="Generalised, scrubbed solutions users liked, shared by the assistant's users. Newest first.",
        parameters=PAGE_PARAMS,
        responses={200: ExperienceSerializer(many=True)},
    )
    def get(self, request, pk):
        assistant = self.get_object(
            pk, Assistant.objects.for_tenant(self.tenant), message="That assistant does not exist."
        )
        return self.paginated(
            self.get_queryset()
            .filter(assistant=assistant)
            .annotate(n_users=Count("contributions__end_user", distinct=True))
            .order_by("-created_at", "-id"),
            ExperienceSerializer,
        )


class FeedbackView(TenantAPIView):
    model = Message
    not_found_message = "That reply does not exist."

    @api_doc(
        summary="Rate a reply",
        description="Thumbs up or down on an assistant message; sending again "
        "replaces the rating. Positive feedback can become experience.",
        body=True,
        request=FeedbackRequest,
        parameters=[USER_PARAM],
        responses={201: FeedbackSerializer},
        examples=[OpenApiExample("up", {"rating": "up", "comment": "Exactly what I needed"}, request_only=True)],
    )
    def post(self, request, pk):
        data = self.validated(FeedbackRequest)
        messages = self.get_queryset().filter(role=Message.Role.ASSISTANT).select_related("end_user")
        message = self.get_object(pk, self.of_optional_user(messages))
        feedback = feedback_record(
            tenant=self.tenant,
            end_user=message.end_user,
            message_id=message.pk,
            rating=data["rating"],
            comment=data["comment"],
        )
        return Response(FeedbackSerializer(feedback).data, status=201)


class UserSettingsRequest(StrictSerializer):
    memory_enabled = Bool(
        help_text="false: no long-term notes are written or recalled for this user (pinned facts "
        "of the current conversation still work); true: memory on again."
    )


class UserSettingsSerializer(serializers.Serializer):
    user = serializers.CharField(source="external_id")
    memory_enabled = serializers.BooleanField()


class UserView(TenantAPIView):
    model = JobRecord

    @api_doc(
        summary="A user's settings",
        description="Whether long-term memory is on for the user.",
        responses={200: UserSettingsSerializer},
    )
    def get(self, request, external_id):
        return Response(UserSettingsSerializer(self.end_user(external_id)).data)

    @api_doc(
        summary="Change a user's settings",
        description="`memory_enabled: false` is the user's memory switch: from the next turn on no notes are "
        "written or recalled for them and no experience is learnt from their replies; notes "
        "already kept stay (list or forget them with the memories endpoints).",
        body=True,
        request=UserSettingsRequest,
        responses={200: UserSettingsSerializer},
        examples=[OpenApiExample("memory off", {"memory_enabled": False}, request_only=True)],
    )
    def patch(self, request, external_id):
        data = self.validated(UserSettingsRequest)
        end_user = self.end_user(external_id)
        end_user = end_user_memory_set(
            tenant=self.tenant, end_user=end_user, enabled=data["memory_enabled"], actor=self.actor
        )
        return Response(UserSettingsSerializer(end_user).data)

    @api_doc(
        summary="Erase a user",
        description="Starts the erasure of everything held about the user (sessions, messages, notes, task "
        "states, feedback, jobs); from now on nothing new is accepted for them. Follow the job at "
        "GET /api/v1/jobs/<job>/; when it succeeds it carries the erasure receipt.",
        errors=(501,),
        responses={202: OpenApiResponse(JobAccepted, examples=[OpenApiExample("accepted", {"job": 91})])},
    )
    def delete(self, request, external_id):
        end_user = self.end_user(external_id)
        try:
            job = user_erase_request(tenant=self.tenant, end_user=end_user, requested_by=self.actor)
        except NotImplementedError:
            raise NotImplementedYet("Erasure is not available in this version yet.") from None
        return Response({"job": job.pk}, status=202)


class UserExportView(TenantAPIView):
    model = JobRecord

    @api_doc(
        summary="Export a user's data",
        description="Everything held about the user, as one JSON document.",
        errors=(501,),
        responses={200: OpenApiResponse(OpenApiTypes.OBJECT)},
    )
    def get(self, request, external_id):
        end_user = self.end_user(external_id)
        try:
            document = user_export_file(tenant=self.tenant, end_user=end_user)
        except NotImplementedError:
            raise NotImplementedYet("Export is not available in this version yet.") from None
        # Written to a temporary file in batches and streamed: a user with 100,000 notes is not held in memory.
        return file_download(
            request, document, content_type="application/json", whole_below=settings.EXPORT_MEMORY_BYTES
        )


class JobView(TenantAPIView):
    model = JobRecord
    not_found_message = "That job does not exist."

    @api_doc(
        summary="A background job: status, progress, result",
        description="Import, erasure and other jobs started through the API. An erasure job that finished "
        "carries its receipt (counts per table, a hash of the user id; no personal data).",
        responses={200: JobSerializer},
    )
    def get(self, request, pk):
        return Response(JobSerializer(self.get_object(pk)).data)
