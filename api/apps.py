from django.apps import AppConfig
from django.contrib.staticfiles.apps import StaticFilesConfig


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "REST API"

    def ready(self):
        from api import schema  # noqa: F401  (registers the API-key security scheme with drf-spectacular)


class SlimStaticFilesConfig(StaticFilesConfig):
    """django.contrib.staticfiles without what /api/docs/ never loads: drf-spectacular-sidecar's ReDoc bundle and
    the source maps. They tripled the files `make run` collects and compresses on every start."""

    ignore_patterns = [*StaticFilesConfig.ignore_patterns, "*.map", "*/redoc/*", "redoc"]
