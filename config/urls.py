from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from core.views import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # The tenancy models' admin pages were under /admin/assistants/ until issue 40 moved the models to the tenancy
    # app: a bookmark or a link in a ticket still leads to the page (the admin then asks for a login as usual).
    re_path(r"^admin/assistants/(?P<rest>.*)$", RedirectView.as_view(url="/admin/tenancy/%(rest)s", query_string=True)),
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
    path("", include("web.auth_urls")),
    path("", include("web.urls")),
]
