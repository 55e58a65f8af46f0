from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Long-term and experience memory"

    def ready(self):
        # The review inbox extends memory.admin's note admin, so it cannot be imported from there (no cycle).
        from memory import admin_review  # noqa: F401 - imported for its admin.register call
        from memory.services.notes.note_events import note_webhook_content
        from webhooks.content import webhook_content_register

        webhook_content_register("note", note_webhook_content)  # a delivery with content gets the note's text
