from django.apps import AppConfig


class WebConfig(AppConfig):
    """The web chat for end users: log in, chat with streaming replies, manage what the assistant remembers."""

    name = "web"
    default_auto_field = "django.db.models.BigAutoField"
