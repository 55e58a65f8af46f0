from django.apps import AppConfig


class TasksConfig(AppConfig):
    name = "tasks"
    verbose_name = "Working memory and background jobs"

    def ready(self):
        from tasks.services.task_states import task_webhook_content
        from webhooks.content import webhook_content_register

        webhook_content_register("task", task_webhook_content)  # a delivery with content gets what it collected
