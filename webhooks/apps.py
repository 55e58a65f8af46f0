from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    """Signed webhooks: endpoints a tenant registers, and the delivery of events to them by Celery jobs."""

    name = "webhooks"
    verbose_name = "Webhooks"
