from django.apps import AppConfig


class AssistantsConfig(AppConfig):
    name = "assistants"
    verbose_name = "Tenants, assistants and conversations"
