"""The tenant's HTTP tools: register, list, read, change, delete; and the content-free log of tool
calls."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers
from rest_framework.response import Response

from api.fields import Bool, ChangeRequest, SecretShownOnce, StrictSerializer, Text
from api.schema import api_doc
from api.views.base import TenantAPIView
from api.views.sessions import PAGE_PARAMS
from tools.models import Tool, ToolCallLog
from tools.services.registry import tool_create, tool_delete, tool_update


class ToolSerializer(serializers.ModelSerializer):
    assistants = serializers.SerializerMethodField(help_text="Ids of the assistants that may call it.")

    class Meta:
        model = Tool
        fields = [
            "id",
            "name",
            "description",
            "parameters",
            "url",
            "timeout_seconds",
            "assistants",
            "is_active",
            "created_at",
            "updated_at",
        ]

    def get_assistants(self, tool) -> list[int]:
        return sorted(a.pk for a in tool.assistants.all())


class ToolCreatedSerializer(SecretShownOnce, ToolSerializer):
    class Meta(ToolSerializer.Meta):
        fields = [*ToolSerializer.Meta.fields, "secret"]


class ToolCreateRequest(StrictSerializer):
    name = Text(max_length=64, help_text="What the model calls it: 1-64 letters, digits, '_' or '-'.")
    description = Text(max_length=1000, help_text="What it does, for the model to decide when to call it.")
    parameters = serializers.JSONField(required=False, default=dict, help_text="JSON Schema of the arguments.")
    url = Text(max_length=500, help_text="http(s) URL receiving the calls as signed JSON POSTs.")
    timeout_seconds = serializers.FloatField(required=False, default=5.0, min_value=0.1, max_value=60)
    assistants = serializers.ListField(
        child=serializers.IntegerField(min_value=1), required=False, default=list, help_text="Assistant ids."
    )


class ToolUpdateRequest(ChangeRequest):
    description = Text(required=False, max_length=1000, help_text="What it does, for the model.")
    parameters = serializers.JSONField(required=False, help_text="JSON Schema of the arguments.")
    url = Text(required=False, max_length=500, help_text="http(s) URL receiving the calls.")
    timeout_seconds = serializers.FloatField(required=False, min_value=0.1, max_value=60)
    assistants = serializers.ListField(
        child=serializers.IntegerField(min_value=1), required=False, help_text="Assistant ids: replaces the list."
    )
    is_active = Bool(required=False, help_text="false: no assistant offers it.")


class ToolCallSerializer(serializers.ModelSerializer):
    user = serializers.SerializerMethodField(help_text="The end user's external_id.")

    class Meta:
        model = ToolCallLog
        fields = ["id", "tool", "kind", "status", "duration_ms", "user", "assistant", "created_at"]

    def get_user(self, row) -> str:
        return row.end_user.external_id


TOOL_EXAMPLE = {
    "name": "order_status",
    "description": "The status of one of the user's orders.",
    "parameters": {"type": "object", "properties": {"order": {"type": "string"}}, "required": ["order"]},
    "url": "https://example.com/tools/order-status",
    "timeout_seconds": 5,
    "assistants": [1],
}


class ToolsView(TenantAPIView):
    model = Tool

    @api_doc(summary="List the tenant's HTTP tools", parameters=PAGE_PARAMS, responses={200: ToolSerializer(many=True)})
    def get(self, request):
        return self.paginated(self.get_queryset().prefetch_related("assistants").order_by("id"), ToolSerializer)

    @api_doc(
        summary="Register an HTTP tool",
        description="The model of the listed assistants may call it. Each call is a JSON POST "
        '`{"tool", "arguments", "call_id"}` with `X-Timestamp` and `X-Signature: sha256=<hex>`, the HMAC-SHA256 '
        "of `<X-Timestamp>.<body>` under the tool's `secret` (returned only here), sent only to addresses "
        "webhooks may use, with the arguments checked against `parameters` first.",
        body=True,
        request=ToolCreateRequest,
        responses={201: OpenApiResponse(ToolCreatedSerializer)},
        examples=[OpenApiExample("register", TOOL_EXAMPLE, request_only=True)],
    )
    def post(self, request):
        data = self.validated(ToolCreateRequest)
        tool = tool_create(tenant=self.tenant, **data)
        return Response(ToolCreatedSerializer(tool).data, status=201)


class ToolDetailView(TenantAPIView):
    model = Tool
    not_found_message = "That tool does not exist."

    @api_doc(summary="Get an HTTP tool", responses={200: ToolSerializer})
    def get(self, request, pk):
        return Response(ToolSerializer(self.get_object(pk)).data)

    @api_doc(
        summary="Change an HTTP tool",
        description="Any of description, parameters, url, timeout_seconds, assistants (the new list replaces the "
        "old one) and is_active, each checked as at registration; a request with one bad field changes nothing. "
        "The name and the secret stay.",
        body=True,
        request=ToolUpdateRequest,
        responses={200: ToolSerializer},
        examples=[OpenApiExample("longer timeout", {"timeout_seconds": 10, "assistants": [1, 2]}, request_only=True)],
    )
    def patch(self, request, pk):
        data = self.validated(ToolUpdateRequest)
        tool = tool_update(tenant=self.tenant, tool=self.get_object(pk), **data)
        return Response(ToolSerializer(tool).data)

    @api_doc(summary="Delete an HTTP tool", responses={204: OpenApiResponse(description="Deleted.")})
    def delete(self, request, pk):
        tool_delete(tenant=self.tenant, tool=self.get_object(pk))
        return Response(status=204)


class ToolCallsView(TenantAPIView):
    model = ToolCallLog

    @api_doc(
        summary="The log of tool calls",
        description="Newest first: tool, status, duration, whose turn. Never arguments or results.",
        parameters=PAGE_PARAMS,
        responses={200: ToolCallSerializer(many=True)},
    )
    def get(self, request):
        return self.paginated(self.get_queryset().select_related("end_user").order_by("-id"), ToolCallSerializer)
