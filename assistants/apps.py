from django.apps import AppConfig


class AssistantsConfig(AppConfig):
    name = "assistants"
    verbose_name = "The chat turn"  # its models (tenants, sessions, messages) are the tenancy app's since issue 40

    def ready(self):
        from assistants.services import hooks  # noqa: F401 - registers the check of ASSISTANT_PRE_TURN_HOOKS
