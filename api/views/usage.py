"""GET /api/v1/usage/ (what the tenant used, grouped; JSON pages or CSV) and GET/PUT /api/v1/usage/quotas/ (its
limits). docs/api.md "Usage and quotas"."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter
from rest_framework import serializers
from rest_framework.renderers import BaseRenderer
from rest_framework.response import Response

from api.fields import StrictSerializer
from api.schema import api_doc
from api.views.base import TenantAPIView, UnicodeJSONRenderer
from api.views.sessions import PAGE_PARAMS
from usage.models import UsageHour
from usage.quotas import SCOPES, quota_limits, usage_used
from usage.selectors import COLUMNS, GROUPS, usage_report
from usage.services import usage_quotas_set

MAX_DAYS = 366
CSV_COLUMNS = ("group", "label", "total_tokens", *COLUMNS, "stored_messages", "stored_notes", "cost", "currency")


class CsvRenderer(BaseRenderer):
    """`Accept: text/csv`: the report's rows (every row of the range, not one page) as CSV with a header line."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        for row in data if isinstance(data, list) else []:
            writer.writerow(row)
        return out.getvalue().encode("utf-8")


class UsageQuery(serializers.Serializer):
    # `from` is a Python keyword: the field is declared under that name below
    to = serializers.DateField(required=False, help_text="Last UTC day included (YYYY-MM-DD); default today.")
    group_by = serializers.ChoiceField(choices=GROUPS, required=False, default="day")
    page = serializers.IntegerField(required=False, min_value=1)
    page_size = serializers.IntegerField(required=False, min_value=1)

    def validate(self, attrs):
        today = datetime.now(UTC).date()
        attrs["to"] = attrs.get("to") or today
        if not 2000 <= attrs["to"].year <= 9000 or not 2000 <= (attrs.get("from") or attrs["to"]).year <= 9000:
            raise serializers.ValidationError("Give days between the years 2000 and 9000.")
        attrs["from"] = attrs.get("from") or attrs["to"] - timedelta(days=29)
        if attrs["from"] > attrs["to"]:
            raise serializers.ValidationError("'from' is after 'to': give the earlier day first.")
        if (attrs["to"] - attrs["from"]).days >= MAX_DAYS:
            raise serializers.ValidationError(f"Ask for at most {MAX_DAYS} days at a time.")
        return attrs


UsageQuery._declared_fields["from"] = serializers.DateField(
    required=False, help_text="First UTC day included (YYYY-MM-DD); default 29 days before 'to'."
)


class UsageRowSerializer(serializers.Serializer):
    group = serializers.JSONField(help_text="The day, the assistant's id, your user id (null: erased) or the model.")
    # `label`, `errors`: output keys named like a Field/Serializer attribute; drf-stubs type them as that attribute
    label = serializers.CharField(allow_null=True, help_text="The assistant's name; null for an erased user.")  # type: ignore[assignment]
    total_tokens = serializers.IntegerField()
    prompt_tokens = serializers.IntegerField()
    completion_tokens = serializers.IntegerField()
    counted_tokens = serializers.IntegerField(help_text="Tokens counted here because the provider reported none.")
    calls = serializers.IntegerField(help_text="Model calls.")
    errors = serializers.IntegerField(help_text="Model calls that failed.")  # type: ignore[assignment]
    turns = serializers.IntegerField()
    tool_calls = serializers.IntegerField()
    duration_ms = serializers.IntegerField(help_text="Time in model calls.")
    stored_messages = serializers.IntegerField(
        required=False, help_text="Messages created in the range and still stored (not with group_by=model)."
    )
    stored_notes = serializers.IntegerField(
        required=False, allow_null=True, help_text="Active notes created in the range (null per assistant)."
    )
    cost = serializers.CharField(required=False, allow_null=True, help_text="Only when a model price is set.")
    currency = serializers.CharField(required=False, allow_null=True)


class UsageView(TenantAPIView):
    model = UsageHour
    renderer_classes = [UnicodeJSONRenderer, CsvRenderer]

    @api_doc(
        summary="What the tenant used",
        description="Tokens (as the provider reported them; `counted_tokens` of them counted here), model calls, "
        "turns and tool calls between two UTC days, grouped by `assistant`, `user`, `model` or `day`. "
        "`cost` appears when a price is set for a model. `Accept: text/csv` answers every row as CSV.",
        parameters=[
            OpenApiParameter("from", OpenApiTypes.DATE, OpenApiParameter.QUERY, required=False),
            OpenApiParameter("to", OpenApiTypes.DATE, OpenApiParameter.QUERY, required=False),
            OpenApiParameter("group_by", OpenApiTypes.STR, OpenApiParameter.QUERY, required=False, enum=GROUPS),
            *PAGE_PARAMS,
        ],
        errors=(400,),
        responses={200: UsageRowSerializer(many=True)},
    )
    def get(self, request):
        query = self.query(UsageQuery)
        rows = usage_report(
            tenant=self.tenant, date_from=query["from"], date_to=query["to"], group_by=query["group_by"]
        )
        if request.accepted_renderer.format == "csv":
            day = f"{query['from']:%Y%m%d}-{query['to']:%Y%m%d}"
            disposition = f'attachment; filename="usage-{query["group_by"]}-{day}.csv"'
            return Response(rows, headers={"Content-Disposition": disposition})
        paginator = self.pagination_class()
        # a list pages like a queryset (Django's Paginator takes any sequence); drf-stubs ask for a QuerySet
        page = paginator.paginate_queryset(rows, request, view=self)  # type: ignore[arg-type,var-annotated]
        return paginator.get_paginated_response(page)


QUOTAS_EXAMPLE = {"tenant": {"tokens_per_month": 2000000}, "user": {"tokens_per_day": 20000, "turns_per_day": 200}}


class QuotasRequest(StrictSerializer):
    quotas = serializers.JSONField(
        help_text='{"tenant"|"assistant"|"user": {"tokens_per_day"|"tokens_per_month"|"turns_per_day"|'
        '"turns_per_month": n}}; "assistant" and "user" cap each one; {} removes every limit.'
    )


class UsageQuotasView(TenantAPIView):
    model = UsageHour

    def _body(self) -> dict:
        quotas = self.tenant.usage_quotas or {}
        now = datetime.now(UTC)
        used = usage_used(tenant_id=self.tenant.pk, assistant_id=0, end_user_id=0, now=now, monthly=True)
        tenant_limits = [limit for limit in quota_limits(quotas) if limit.scope == "tenant"]
        return {
            "quotas": {scope: quotas[scope] for scope in SCOPES if scope in quotas},
            "tenant_used": {limit.name: used[("tenant", limit.metric, limit.period)] for limit in tenant_limits},
        }

    @api_doc(summary="The tenant's usage limits", responses={200: OpenApiTypes.OBJECT})
    def get(self, request):
        return Response(self._body())

    @api_doc(
        summary="Set the tenant's usage limits",
        description="Replaces every limit. At 80% of one the `usage.threshold` webhook fires (once per period); "
        "at 100% chat turns answer 429 `quota_exceeded` with Retry-After until the UTC day or month resets.",
        body=True,
        request=QuotasRequest,
        responses={200: OpenApiTypes.OBJECT},
        examples=[OpenApiExample("limits", {"quotas": QUOTAS_EXAMPLE}, request_only=True)],
    )
    def put(self, request):
        data = self.validated(QuotasRequest)
        self.tenant = usage_quotas_set(tenant=self.tenant, quotas=data["quotas"])
        return Response(self._body())
