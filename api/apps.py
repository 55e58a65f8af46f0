from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "REST API"

    def ready(self):
        from api import schema  # noqa: F401  (registers the API-key security scheme with drf-spectacular)
