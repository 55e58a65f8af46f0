"""Log in / log out and the language switch, under the un-namespaced names settings.LOGIN_URL expects."""
from django.contrib.auth import views as auth_views
from django.urls import include, path

from web.forms import LoginForm

urlpatterns = [
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True, authentication_form=LoginForm),
         name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/", include("django.conf.urls.i18n")),
]
