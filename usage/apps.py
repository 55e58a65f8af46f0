from django.apps import AppConfig


class UsageConfig(AppConfig):
    name = "usage"
    verbose_name = "Usage and quotas"

    def ready(self):
        from usage import signals

        signals.usage_flush_connect()
