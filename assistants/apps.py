from django.apps import AppConfig


class AssistantsConfig(AppConfig):
    name = "assistants"
    verbose_name = "Tenants, assistants and conversations"

    def ready(self):
        from assistants.services import hooks  # noqa: F401 - registers the check of ASSISTANT_PRE_TURN_HOOKS
