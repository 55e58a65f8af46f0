"""A view built on the API's base class that fails unexpectedly, to prove the 500 is still the JSON error."""

from django.urls import include, path

from api.views.base import TenantAPIView


class CrashView(TenantAPIView):
    def get(self, request):
        raise RuntimeError("boom: secret internals")


urlpatterns = [path("crash/", CrashView.as_view()), path("api/", include("api.urls"))]
