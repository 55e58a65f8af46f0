"""`python manage.py reembed_stale`: queue the re-embed job for every tenant whose notes or past messages were
embedded with another model than its current one (`make run` calls it at start, after an upgrade that changed
the default encoder). Until a job is done, those notes are found by keywords only."""

from django.core.management.base import BaseCommand
from django.db import transaction


class Command(BaseCommand):
    help = "Re-embed, in the background, memories embedded with another model than their tenant's current one."

    def handle(self, *args, **options):
        from memory.services.forgetting.forgetting import memory_reembed_stale

        with transaction.atomic():  # the jobs are sent once this commits
            queued = memory_reembed_stale()
        if queued:
            self.stdout.write(
                f"Re-embedding the memories of {len(queued)} tenant(s) with the current model in the background."
            )
