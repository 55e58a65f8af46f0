"""Log in. In development (config.settings.local, what `make run` uses, even with DEBUG off) the page names the
demo account that `make run` prints, so a first visitor can get in without reading the terminal."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth import views as auth_views

from web.forms import LoginForm

DEMO_USERNAME = "demo"


class LoginView(auth_views.LoginView):
    authentication_form = LoginForm
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        if (
            getattr(settings, "SHOW_DEMO_ACCOUNT", settings.DEBUG)
            and get_user_model().objects.filter(username=DEMO_USERNAME).exists()
        ):
            context["demo_account"] = {"username": DEMO_USERNAME, "password": settings.DEMO_PASSWORD}
        return context
