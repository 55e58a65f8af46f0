"""TenantAPIView: the one base class of every /api/v1/ endpoint.

It owns authentication (the tenant's API key), permission, per-key throttling, parsing (JSON, size-limited),
rendering and pagination, and it resolves the tenant from the key and holds `tenant_scope(tenant)` for the
request. Subclasses say which model they read (`model`) and build on `get_queryset()`, which always starts from
that tenant's rows: they cannot override it (nor the security attributes), so no endpoint can forget the tenant.
Another tenant's object, or another user's where a user is given, answers 404 exactly like a missing one.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

from django.core.exceptions import ImproperlyConfigured
from django.db import models
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from api.authentication import API_LIMITS, ApiKeyAuthentication, HasApiKey, api_limits_check
from api.fields import MAX_ID
from api.pagination import ApiPagination
from api.parsers import LimitedJSONParser
from assistants.services.tenants import end_user_get_or_create
from core.erasure import end_user_erasure_refuse
from core.exceptions import InvalidInput, NotFound
from tenancy.identifiers import external_id_addressable, external_id_problem
from tenancy.models import EndUser
from tenancy.scoping import tenant_scope

SEALED = (
    "get_queryset",
    "initial",
    "get_authenticators",
    "get_permissions",
    "get_throttles",
    "check_throttles",
    "authentication_classes",
    "permission_classes",
    "throttle_classes",
    "finalize_response",
)


class UnicodeJSONRenderer(JSONRenderer):
    ensure_ascii = False  # Chinese stays readable in responses


class TenantAPIView(APIView):
    authentication_classes = [ApiKeyAuthentication]
    permission_classes = [HasApiKey]
    throttle_classes = list(API_LIMITS)  # per key and per tenant (api.authentication)
    parser_classes = [LimitedJSONParser]
    renderer_classes = [UnicodeJSONRenderer]
    pagination_class = ApiPagination
    model: type[models.Model] | None = None
    _scope: AbstractContextManager[None] | None  # the request's tenant scope, entered in initial()
    not_found_message = "Nothing with that id exists."

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        overridden = [name for name in SEALED if name in cls.__dict__]
        if overridden:
            raise TypeError(
                f"{cls.__name__} may not override {', '.join(overridden)}: TenantAPIView owns the "
                f"tenant, authentication, permissions and throttling of every endpoint."
            )

    # --- tenant resolution (sealed) -------------------------------------------------------------------------
    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # authenticates, checks the permission and the throttle
        self.api_key = request.auth
        self.tenant = request.auth.tenant
        self._scope = tenant_scope(self.tenant)
        self._scope.__enter__()

    def check_throttles(self, request):
        """DRF's check, with a 429 that names the limit reached (this key's, or the tenant's across its keys)."""
        api_limits_check(request, self)

    def finalize_response(self, request, response, *args, **kwargs):
        scope = getattr(self, "_scope", None)
        if scope is not None:
            self._scope = None
            scope.__exit__(None, None, None)
        if isinstance(response, Response) and response.status_code >= 400:
            # Errors are JSON even when the client asked for a stream.
            request.accepted_renderer = UnicodeJSONRenderer()
            request.accepted_media_type = "application/json"
        return super().finalize_response(request, response, *args, **kwargs)

    def get_queryset(self):
        """This tenant's rows of `model`. The only way a subclass reaches the database through the view."""
        if self.model is None:
            raise ImproperlyConfigured(f"{type(self).__name__} does not say which model it reads (`model`).")
        objects = getattr(self.model, "objects", None)
        if objects is not None and hasattr(objects, "for_tenant"):
            return objects.for_tenant(self.tenant)
        return self.model._default_manager.filter(tenant=self.tenant)  # JobRecord: tenant is a plain column

    # --- helpers for subclasses ------------------------------------------------------------------------------
    @property
    def actor(self) -> str:
        return f"api-key:{self.api_key.name} ({self.api_key.prefix})"

    def get_object(self, pk, queryset=None, message: str | None = None):
        if not isinstance(pk, int) or pk < 1 or pk > MAX_ID:
            raise NotFound(message or self.not_found_message)
        found = (queryset if queryset is not None else self.get_queryset()).filter(pk=pk).first()
        if found is None:
            raise NotFound(message or self.not_found_message)
        return found

    def end_user(self, external_id: str, *, create: bool = False, missing: str | None = None) -> EndUser:
        """The tenant's end user with this external_id. Reads of an unknown id are a 404 (`missing` says it);
        writes create it, or answer 409 user_being_erased while the user is being erased. Surrounding spaces
        are not part of an id (end_user_get_or_create strips them), on reads as on writes."""
        external_id = external_id.strip() if isinstance(external_id, str) else external_id
        if not create:
            # With `missing`, the user only leads to another object: its 404 must look like that object's.
            code = "not_found" if missing else "user_not_found"
            if not external_id_addressable(external_id):  # such a user cannot exist
                raise NotFound(missing or "There is no user with that id.", code=code)
            user = EndUser.objects.for_tenant(self.tenant).filter(external_id=external_id).first()
            if user is None:
                raise NotFound(missing or f"There is no user '{external_id}'.", code=code)
            return user
        # An existing user keeps working whatever their id; only a new id must follow today's rule.
        user = None
        if external_id_addressable(external_id):
            user = EndUser.objects.for_tenant(self.tenant).filter(external_id=external_id).first()
        if user is None:
            problem = external_id_problem(external_id)
            if problem:
                raise InvalidInput(problem, details={"user": str(external_id)[:200]})
            user = end_user_get_or_create(tenant=self.tenant, external_id=external_id)
        end_user_erasure_refuse(user)
        return user

    def of_optional_user(self, queryset):
        """`queryset` narrowed to the end user the request names with ?user=<external_id>, if it names one: on
        id-addressed endpoints the object must then also belong to that user. An unknown user is a 404."""
        external_id = self.request.query_params.get("user")
        if external_id is None:
            return queryset
        external_id = external_id.strip()
        if not external_id_addressable(external_id):
            raise NotFound(self.not_found_message)
        user = EndUser.objects.for_tenant(self.tenant).filter(external_id=external_id).first()
        if user is None:
            raise NotFound(self.not_found_message)
        return queryset.filter(end_user=user)

    def validated(self, serializer_class, data=None, **kwargs) -> dict:
        serializer = serializer_class(data=self.request.data if data is None else data, **kwargs)
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def query(self, serializer_class) -> dict:
        return self.validated(serializer_class, data=self.request.query_params.dict())

    def paginated(self, queryset, serializer_class, **context) -> Response:
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(queryset, self.request, view=self)
        data = serializer_class(page, many=True, context={"request": self.request, **context}).data
        return paginator.get_paginated_response(data)
