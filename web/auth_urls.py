"""Log in / log out and the language switch, under the un-namespaced names settings.LOGIN_URL expects."""

from django.contrib.auth import views as auth_views
from django.urls import include, path

from web.views.auth import LoginView

urlpatterns = [
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
]
