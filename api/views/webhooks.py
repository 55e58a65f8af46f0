"""Webhook endpoints of the tenant: register, list, read, change, delete; and each endpoint's delivery log."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers
from rest_framework.response import Response

from api.fields import Bool, ChangeRequest, SecretShownOnce, StrictSerializer, Text
from api.schema import api_doc
from api.views.base import TenantAPIView
from api.views.sessions import PAGE_PARAMS
from webhooks.models import EVENTS, WebhookDelivery, WebhookEndpoint
from webhooks.services import webhook_endpoint_create, webhook_endpoint_update


class WebhookSerializer(serializers.ModelSerializer):
    disabled = serializers.SerializerMethodField(help_text="True after repeated failures, until staff re-enable.")

    class Meta:
        model = WebhookEndpoint
        fields = [
            "id",
            "url",
            "events",
            "include_content",
            "description",
            "is_active",
            "disabled",
            "disabled_at",
            "consecutive_failures",
            "created_at",
            "updated_at",
        ]

    def get_disabled(self, endpoint) -> bool:
        return endpoint.disabled_at is not None


class WebhookCreatedSerializer(SecretShownOnce, WebhookSerializer):
    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]


class WebhookCreateRequest(StrictSerializer):
    url = Text(max_length=500, help_text="http(s) URL receiving the events as JSON POSTs.")
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=EVENTS), allow_empty=False, help_text=f"Any of: {', '.join(EVENTS)}."
    )
    include_content = Bool(
        required=False,
        default=False,
        help_text="Also send note content and the user's external_id. Off: ids and kinds only.",
    )
    description = Text(required=False, allow_blank=True, max_length=200, default="")


class WebhookUpdateRequest(ChangeRequest):
    url = Text(required=False, max_length=500)
    events = serializers.ListField(child=serializers.ChoiceField(choices=EVENTS), allow_empty=False, required=False)
    include_content = Bool(required=False)
    description = Text(required=False, allow_blank=True, max_length=200)
    is_active = Bool(required=False, help_text="false: send nothing (events are not kept).")


class DeliverySerializer(serializers.ModelSerializer):
    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "event_id",
            "event",
            "status",
            "attempts",
            "last_status_code",
            "last_error",
            "next_attempt_at",
            "delivered_at",
            "created_at",
        ]


WEBHOOK_EXAMPLE = {
    "id": 3,
    "url": "https://example.com/hooks/memory",
    "events": ["memory.created"],
    "include_content": False,
    "description": "",
    "is_active": True,
    "disabled": False,
    "disabled_at": None,
    "consecutive_failures": 0,
    "created_at": "2026-01-01T09:00:00Z",
    "updated_at": "2026-01-01T09:00:00Z",
}


class WebhooksView(TenantAPIView):
    model = WebhookEndpoint

    @api_doc(
        summary="List the tenant's webhook endpoints",
        parameters=PAGE_PARAMS,
        responses={200: WebhookSerializer(many=True)},
    )
    def get(self, request):
        return self.paginated(self.get_queryset().order_by("id"), WebhookSerializer)

    @api_doc(
        summary="Register a webhook endpoint",
        description="Events are POSTed as JSON `{id, type, created_at, data}` with `X-Timestamp` and "
        "`X-Signature: sha256=<hex>`, the HMAC-SHA256 of `<X-Timestamp>.<body>` under the "
        "endpoint's `secret` (returned only here). Failed deliveries are retried with "
        "exponential backoff; http(s) only, and in production only public addresses.",
        body=True,
        request=WebhookCreateRequest,
        responses={
            201: OpenApiResponse(
                WebhookCreatedSerializer,
                examples=[OpenApiExample("created", {**WEBHOOK_EXAMPLE, "secret": "whsec_..."})],
            )
        },
        examples=[
            OpenApiExample(
                "register",
                {"url": "https://example.com/hooks/memory", "events": ["memory.created", "memory.forgotten"]},
                request_only=True,
            )
        ],
    )
    def post(self, request):
        data = self.validated(WebhookCreateRequest)
        endpoint = webhook_endpoint_create(tenant=self.tenant, **data)
        return Response(WebhookCreatedSerializer(endpoint).data, status=201)


class WebhookDetailView(TenantAPIView):
    model = WebhookEndpoint
    not_found_message = "That webhook does not exist."

    @api_doc(summary="Get a webhook endpoint", responses={200: WebhookSerializer})
    def get(self, request, pk):
        return Response(WebhookSerializer(self.get_object(pk)).data)

    @api_doc(
        summary="Change a webhook endpoint",
        body=True,
        request=WebhookUpdateRequest,
        responses={200: WebhookSerializer},
        examples=[
            OpenApiExample("pause", {"is_active": False}, request_only=True),
            OpenApiExample("events", {"events": ["memory.created", "user.erased"]}, request_only=True),
        ],
    )
    def patch(self, request, pk):
        data = self.validated(WebhookUpdateRequest)
        endpoint = webhook_endpoint_update(tenant=self.tenant, endpoint=self.get_object(pk), **data)
        return Response(WebhookSerializer(endpoint).data)

    @api_doc(
        summary="Delete a webhook endpoint",
        description="It and its delivery log are removed.",
        responses={204: OpenApiResponse(description="Deleted.")},
    )
    def delete(self, request, pk):
        self.get_object(pk).delete()
        return Response(status=204)


class WebhookDeliveriesView(TenantAPIView):
    model = WebhookDelivery
    not_found_message = "That webhook does not exist."

    @api_doc(
        summary="A webhook endpoint's deliveries",
        description="Newest first: status, attempts, last error.",
        parameters=PAGE_PARAMS,
        responses={200: DeliverySerializer(many=True)},
    )
    def get(self, request, pk):
        endpoint = self.get_object(pk, WebhookEndpoint.objects.for_tenant(self.tenant))
        return self.paginated(self.get_queryset().filter(endpoint=endpoint).order_by("-id"), DeliverySerializer)
